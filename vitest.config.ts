import { defineConfig } from 'vitest/config';

export default defineConfig({
  // graphql 16 ships CommonJS (main) and ESM (module) builds. Node, and so every dependency (yoga, Pothos,
  // graphql-tools), loads the CommonJS one; without this alias vitest would give our sources the ESM one, and
  // the two copies' GraphQLError/GraphQLSchema classes would not recognise each other.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
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
