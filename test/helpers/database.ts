import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/client.ts';

/** Runs one statement on the TEST_DATABASE_URL server, in a connection of its own. */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/**
 * With TEST_DATABASE_URL: a new, empty database on that server (named `<prefix>_<random>`), its URL and drop().
 * Without it: null (the caller uses the embedded database).
 */
export async function serverDatabase(prefix = 'fl_test'): Promise<{ url: string; drop(): Promise<void> } | null> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return null;
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => onServer(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A fresh database for one test file: in-memory PGlite by default; with TEST_DATABASE_URL, a new database
 * created on that PostgreSQL server (and dropped when the file is done).
 */
export async function freshDatabase(options: { onQuery?: (sql: string) => void } = {}): Promise<Database> {
  const server = await serverDatabase();
  if (!server) return openDatabase({ onQuery: options.onQuery });
  const database = await openDatabase({ url: server.url, poolSize: 5, onQuery: options.onQuery });
  return {
    ...database,
    async close() {
      await database.close();
      await server.drop();
    },
  };
}
