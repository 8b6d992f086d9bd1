import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The order test files start in. Vitest starts the longest files first when it knows their durations from an
// earlier run (its cache, in node_modules/.vite), and the largest first otherwise; a clean clone, as CI runs it, has
// no cache, and the suite's longest files are not its largest (the fuzz file is 200 lines and a minute or more of
// requests). Started last, one of them would run alone on one worker at the end of the run. These start first,
// longest first; every other file keeps Vitest's order.
// The linters and the parser of the documents (Spectral, Redocly, the AsyncAPI parser), the browser's API
// reference and the generated client's type check run once (embedded run only) and are among the longest: left in
// Vitest's order they started in the last tenth of the run, one of them ending alone (a run at d89900f: the AsyncAPI
// parser's 44 s from 769 to 813 s of 813).
const longestFirst = [
  'test/fuzz/openapi-fuzz.test.ts',
  'test/rest/openapi-lint.test.ts',
  'test/rest/asyncapi-parser.test.ts',
  'test/events/processes.test.ts',
  'test/security/tenant-sweep.test.ts',
  'test/cli/bin.test.ts',
  'test/pages/docs.test.ts',
  'test/examples/typescript-client.test.ts',
  'test/cli/first-start.test.ts',
  'test/events/webhook-endpoint-states.test.ts',
];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = longestFirst.findIndex((file) => spec.moduleId.endsWith(file));
      return at < 0 ? longestFirst.length : at;
    };
    // Array.prototype.sort is stable: files of the same rank keep Vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
