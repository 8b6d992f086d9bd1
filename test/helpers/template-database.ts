import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PgBoss, fromPglite } from 'pg-boss';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/client.ts';

// Vitest global setup: the migrations run once per test run, not once per test file. On the embedded database the
// migrated data directory is dumped (PGlite dumpDataDir) to a file every test file's database is loaded from; on
// PostgreSQL (TEST_DATABASE_URL) a migrated template database is made, and every test file's database is created
// from it (CREATE DATABASE ... TEMPLATE). The job queue's schema (pg-boss) is created in it too, so an app start
// only checks it. Each file still gets a database of its own (test/helpers/database.ts freshDatabase).

declare module 'vitest' {
  export interface ProvidedContext {
    /** The file holding the migrated embedded database's dump (embedded runs). */
    pgliteSnapshot: string | null;
    /** The migrated template database on the TEST_DATABASE_URL server (PostgreSQL runs). */
    templateDatabase: string | null;
  }
}

/** Creates the job queue's schema the way the app's queue does (src/events/queue.ts: schema pgboss). */
async function createQueueSchema(boss: PgBoss): Promise<void> {
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false });
}

/** Runs statements on the TEST_DATABASE_URL server, one after the other, in a connection of their own. */
export async function onServer(serverUrl: string, ...statements: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (const sql of statements) await admin.query(sql);
  } finally {
    await admin.end();
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const name = `fl_template_${randomBytes(6).toString('hex')}`;
    await onServer(serverUrl, `CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ url: url.toString(), poolSize: 1 });
    await database.close();
    await createQueueSchema(new PgBoss({ connectionString: url.toString(), max: 1, schema: 'pgboss' }));
    project.provide('templateDatabase', name);
    project.provide('pgliteSnapshot', null);
    // The template, and every copy the workers left (a spare no file claimed, a drop still under way).
    return async () => {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      try {
        const copies = await admin.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${name.replace(/^fl_template_/, 'fl_test_')}\\_%`]);
        for (const { datname } of copies.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    };
  }
  const database = await openDatabase({});
  if (!('pglite' in database.queueConnection)) throw new Error('the embedded database has no PGlite instance');
  const pglite = database.queueConnection.pglite;
  await createQueueSchema(new PgBoss({ db: fromPglite(pglite), backend: 'pglite', schema: 'pgboss' }));
  // Cheaper to open, once per test file: the template databases, which nothing connects to (the embedded database
  // has one database and never creates another), are dropped, so a copy is 667 files instead of 1,355; and its
  // shared buffers are 16 MB instead of PostgreSQL's default 128 MB, which a test file's few thousand rows never
  // fill. An open went from about 440 to 180 ms (docs/decisions.md, Tests).
  for (const sql of [
    `ALTER SYSTEM SET shared_buffers = '16MB'`,
    `ALTER SYSTEM SET synchronous_commit = off`,
    `ALTER SYSTEM SET full_page_writes = off`,
    `ALTER SYSTEM SET wal_level = minimal`,
    `ALTER SYSTEM SET max_wal_senders = 0`,
    `UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`,
    'DROP DATABASE template0',
    'DROP DATABASE template1',
  ]) {
    await pglite.exec(sql);
  }
  const dump = await pglite.dumpDataDir('none');
  const dir = mkdtempSync(path.join(tmpdir(), 'fl-test-db-'));
  const file = path.join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await database.close();
  project.provide('pgliteSnapshot', file);
  project.provide('templateDatabase', null);
  return async () => rmSync(dir, { recursive: true, force: true });
}
