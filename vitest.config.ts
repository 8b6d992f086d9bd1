import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.ts';

// Files whose answers cannot depend on the database: static checks of the source (the dependency rule, raw SQL,
// the kernel's own rules) and of the documents built from the declarations (the OpenAPI document linted, its
// Markdown and examples, the generated TypeScript client, the GraphQL schema's text), and the pages rendered in a
// browser from them. CI runs the suite on the embedded database and again on PostgreSQL; with TEST_DATABASE_ONLY=1
// (.ci/run's second run) these are left out, since they could only repeat the first run (docs/decisions.md, Tests).
const sameOnEveryDatabase = [
  'test/architecture/**',
  'test/kernel/**',
  'test/security/raw-sql.test.ts',
  'test/rest/asyncapi-parser.test.ts',
  'test/rest/openapi-lint.test.ts',
  'test/rest/openapi-markdown.test.ts',
  'test/rest/openapi-examples.test.ts',
  'test/examples/**',
  'test/http/keep-alive.test.ts',
  'test/graphql/schema.test.ts',
  'test/graphql/descriptions.test.ts',
  'test/pages/assets.test.ts',
  'test/pages/browser-guard.test.ts',
  'test/pages/docs.test.ts',
  'test/pages/graphiql.test.ts',
  'test/pages/landing.test.ts',
];

export default defineConfig({
  // graphql 16 ships CommonJS (main) and ESM (module) builds. Node, and so every dependency (yoga, Pothos,
  // graphql-tools), loads the CommonJS one; without this alias vitest would give our sources the ESM one, and
  // the two copies' GraphQLError/GraphQLSchema classes would not recognise each other.
  // rrule likewise: Node loads its CommonJS bundle (main), where our sources take the default export.
  resolve: {
    alias: [
      { find: /^graphql$/, replacement: 'graphql/index.js' },
      { find: /^rrule$/, replacement: 'rrule/dist/es5/rrule.js' },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(process.env.TEST_DATABASE_ONLY === '1' ? sameOnEveryDatabase : [])],
    // The longest files start first, cache or no cache (test/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    // The migrations run once per run; each test file's database is a copy (test/helpers/database.ts).
    globalSetup: ['test/helpers/template-database.ts'],
    pool: 'forks',
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
