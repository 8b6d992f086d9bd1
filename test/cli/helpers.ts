import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { buildApp, type App } from '../../src/app.ts';
import { runCli } from '../../src/cli/run.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';

export const projectRoot = path.resolve(import.meta.dirname, '../..');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON value (null when it is not exactly one JSON document). */
  json: any;
}

function parseOne(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return null;
  }
}

/** Runs the fieldline command in-process on an open database, capturing stdout and stderr. */
export function cliOn(database: Database) {
  return async (...argv: string[]): Promise<CliRun> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      database,
      stdout: { write: (s: string) => (stdout += s) },
      stderr: { write: (s: string) => (stderr += s) },
    });
    return { code, stdout, stderr, json: parseOne(stdout) };
  };
}

/** Spawns a real process and collects its output and exit code. */
export function spawnCollect(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd ?? projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: parseOne(stdout) }));
  });
}

/** The app (REST API) over a database the test opened itself, on an ephemeral port. */
export async function apiOver(database: Database): Promise<{ app: App; url: string; close(): Promise<void> }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', AUTH_CACHE_TTL_MS: '0' });
  const app = buildApp({ database, config });
  const { port } = await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${port}/api/v2`, close: () => app.close() };
}

/**
 * With TEST_DATABASE_URL: a new database on that server with its URL (for a spawned command), dropped by drop().
 * Without: null (the tests use a temporary DATA_DIR with the embedded database).
 */
export async function serverDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return null;
  const name = `fl_cli_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.end();
    },
  };
}
