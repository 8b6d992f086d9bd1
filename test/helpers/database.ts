import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { onServer } from './template-database.ts';

/**
 * With TEST_DATABASE_URL: a new database on that server (named `<prefix>_<random>`; empty, or a copy of `template`),
 * its URL and drop(). Without it: null (the caller uses the embedded database). Its commits do not wait for the
 * server's disk (`synchronous_commit = off`): what a client sees is the same, only a crash of the server itself
 * could lose the last commits, and a test's database is dropped afterwards anyway (docs/decisions.md, Tests).
 */
export async function serverDatabase(prefix = 'fl_test', template?: string): Promise<{ url: string; drop(): Promise<void> } | null> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return null;
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`, `ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

let snapshot: Blob | undefined;
/** The migrated embedded database made once per run (test/helpers/template-database.ts), read once per worker. */
function migratedSnapshot(): Blob {
  const file = inject('pgliteSnapshot');
  if (!file) throw new Error('no migrated snapshot: vitest.config.ts runs test/helpers/template-database.ts as globalSetup');
  snapshot ??= new Blob([readFileSync(file)]);
  return snapshot;
}

/** A copy of the run's template on the TEST_DATABASE_URL server, made ahead while the current test file runs. */
let spare: Promise<{ url: string; drop(): Promise<void> } | null> | undefined;

/** The run's copies are named after its template (`fl_template_<run>` gives `fl_test_<run>_<random>`). */
function copyPrefix(template: string): string {
  return template.replace(/^fl_template_/, 'fl_test_');
}

/** A copy of the template for this file; the next file's copy is started at once (see freshDatabase). */
async function templateCopy(template: string): Promise<{ url: string; drop(): Promise<void> } | null> {
  const copy = spare ?? serverDatabase(copyPrefix(template), template);
  spare = serverDatabase(copyPrefix(template), template);
  // Awaited by the next file of this worker; a failure is reported there. Unclaimed at the end of the run, it is
  // dropped with the template (test/helpers/template-database.ts).
  spare.catch(() => {});
  return copy;
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite loaded from the run's migrated snapshot by default;
 * with TEST_DATABASE_URL, a copy of the run's migrated template database on that server. The migrations ran once
 * for the whole run (test/helpers/template-database.ts). On the server a copy takes a few hundred milliseconds
 * the worker would wait for (the server writes it to disk): each worker makes the next file's copy while the
 * current file runs, and drops a file's database after the file without waiting (docs/decisions.md, Tests). With
 * dropOnClose false, close() only closes the connections and drop() is the caller's: an app still running on the
 * database (a test closed the database under it) must not have its connections terminated by the drop (DROP ...
 * WITH (FORCE)) before it stops.
 */
export async function freshDatabase(options: { onQuery?: (sql: string) => void; dropOnClose?: boolean } = {}): Promise<Database & { drop(): void }> {
  const template = inject('templateDatabase');
  const server = template ? await templateCopy(template) : null;
  if (!server) {
    const database = await openDatabase({ snapshot: migratedSnapshot(), migrate: false, onQuery: options.onQuery });
    return { ...database, drop() {} };
  }
  const database = await openDatabase({ url: server.url, poolSize: 5, migrate: false, onQuery: options.onQuery });
  // Nothing of this file connects to it any more; the run's teardown drops whatever is left.
  const drop = () => void server.drop().catch(() => {});
  return {
    ...database,
    drop,
    async close() {
      await database.close();
      if (options.dropOnClose !== false) drop();
    },
  };
}
