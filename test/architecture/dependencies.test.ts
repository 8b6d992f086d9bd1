import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The dependency rule of src/ (.dependency-cruiser.cjs, docs/architecture.md), checked by dependency-cruiser:
// layers import downward only (kernel <- resources <- domain <- http <- adapters <- documents <- app <- main),
// adapters never import each other nor reach past the domain, and no folder imports one that imports it back.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const depcruise = path.join(root, 'node_modules/.bin/depcruise');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}

/** dependency-cruiser's violations of the project's rules, over `src` of the tree at cwd. */
async function violations(cwd: string): Promise<Violation[]> {
  const config = path.join(root, '.dependency-cruiser.cjs');
  // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
  const { stdout } = await run(depcruise, ['src', '--config', config, '--output-type', 'json'], { cwd, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string }) => {
      if (error.stdout) return { stdout: error.stdout };
      throw error;
    },
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const described = (list: Violation[]) => list.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`);

describe('the dependency rule', () => {
  const scratch: string[] = [];
  afterAll(async () => {
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  it('holds for src/: every import runs downward, no adapter imports another, no folder circle', { timeout: 60_000 }, async () => {
    expect(described(await violations(root))).toEqual([]);
  });

  it('refuses a wrong-way import, an adapter importing another, a reach past the domain and a folder circle, naming the rule each breaks', { timeout: 60_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'fl-deps-'));
    scratch.push(dir);
    await cp(path.join(root, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
    const files: Record<string, string> = {
      'src/domain.ts': 'export const domain = 1;\n',
      // kernel -> domain: upward, even type-only.
      'src/kernel/action.ts': "import type { domain } from '../domain.ts';\nexport type D = typeof domain;\n",
      // rest -> graphql: one adapter speaking another's wire format.
      'src/graphql/schema/naming.ts': 'export const camel = (s: string) => s;\n',
      'src/rest/operations.ts': "import { camel } from '../graphql/schema/naming.ts';\nexport const op = camel('x');\n",
      // graphql -> resources: past the domain.
      'src/resources/jobs/board.ts': 'export const LIMIT = 1;\n',
      'src/graphql/schema/dispatch.ts': "import { LIMIT } from '../../resources/jobs/board.ts';\nexport const limit = LIMIT;\n",
      // resources/invoices <-> resources/payments: a folder circle (type-only on one side).
      'src/resources/invoices/invoice.ts': "import type { Payment } from '../payments/payment.ts';\nexport interface Invoice { payments: Payment[] }\n",
      'src/resources/payments/payment.ts': "import { balance } from '../invoices/balance.ts';\nexport interface Payment { amount: number }\nexport const b = balance;\n",
      'src/resources/invoices/balance.ts': 'export const balance = 0;\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    const found = described(await violations(dir));
    expect(found).toEqual(
      expect.arrayContaining([
        'kernel-imports-upward: src/kernel/action.ts -> src/domain.ts',
        'adapter-imports-adapter: src/rest/operations.ts -> src/graphql/schema/naming.ts',
        'adapter-past-the-domain: src/graphql/schema/dispatch.ts -> src/resources/jobs/board.ts',
        expect.stringMatching(/^no-folder-circle: src\/resources\/(invoices|payments) -> src\/resources\/(payments|invoices)/),
      ]),
    );
  });
});
