import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { ADMIN_SOCKET } from '../../src/cli/admin-socket.ts';
import { acquireDataDirLock, LOCK_FILE } from '../../src/db/data-dir-lock.ts';
import { allScopes } from '../../src/resources/catalog.ts';
import { startTestApp } from '../helpers/app.ts';
import { projectRoot, spawnCollect } from '../helpers/cli.ts';
import { serverDatabase } from '../helpers/database.ts';

// The real `fieldline` binary, spawned as a user would run it. Each process opens the database (~3 s on the
// embedded one), so only the end-to-end cases live here; test/cli/commands.test.ts covers every command in-process.

const work = mkdtempSync(path.join(tmpdir(), 'fl-bin-'));
/** A project that has fieldline installed: node_modules/.bin/fieldline is a symlink, as npm makes it. */
const installedBin = path.join(work, 'project', 'node_modules', '.bin', 'fieldline');
const node24 = path.join(projectRoot, 'node_modules', '.bin', 'node');

/** PATH without any node_modules/.bin, so `node` is the system's (Node 20 on these machines). */
const systemPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((dir) => !dir.includes('node_modules'))
  .join(path.delimiter);

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: systemPath, ...extra };
  delete env.NODE_OPTIONS;
  if (!('DATABASE_URL' in extra)) delete env.DATABASE_URL;
  return env;
}

const fieldline = (args: string[], env: Record<string, string>) => spawnCollect(installedBin, args, { env: baseEnv(env), cwd: work });

let pgDatabase: Awaited<ReturnType<typeof serverDatabase>>;
beforeAll(async () => {
  mkdirSync(path.dirname(installedBin), { recursive: true });
  symlinkSync(path.join(projectRoot, 'bin', 'fieldline.mjs'), installedBin);
  pgDatabase = await serverDatabase('fl_cli');
});
afterAll(async () => {
  await pgDatabase?.drop();
  rmSync(work, { recursive: true, force: true });
});

describe('the fieldline binary', () => {
  it('runs under the project Node 24 when invoked as node_modules/.bin/fieldline with an older node on PATH', async () => {
    const run = await fieldline(['--version'], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^fieldline \d+\.\d+\.\d+ \(Node 24\.\d+\.\d+\)\n$/);
  });

  it(
    'account create --json prints exactly one JSON object, and the key works on /me against the same database',
    async () => {
      const dataDir = path.join(work, 'data-create');
      const env: Record<string, string> = pgDatabase ? { DATABASE_URL: pgDatabase.url } : { DATA_DIR: dataDir };
      const run = await fieldline(['account', 'create', '--name', 'Spawned Co', '--json'], env);
      expect(run.stderr).not.toMatch(/ExperimentalWarning/);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(Object.keys(run.json).sort()).toEqual(['account', 'key', 'user']);
      expect(run.json.key.token).toMatch(/^svc_/);
      if (!pgDatabase) expect(existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);

      // The command has exited (and released the embedded database): open it and serve the API over it.
      const database = await openDatabase(pgDatabase ? { url: pgDatabase.url, poolSize: 2 } : { dataDir });
      const api = await startTestApp({ database });
      try {
        const res = await api.client(run.json.key.token).get('/me');
        expect(res.status).toBe(200);
        expect(res.body.data.account).toMatchObject({ id: run.json.account.id, name: 'Spawned Co' });
        expect(res.body.data.key.scopes).toEqual(allScopes);
      } finally {
        await api.close();
        await database.close();
      }
    },
    120_000,
  );

  it(
    'the documented npm form, npm run -s cli -- ... --json, prints exactly one JSON object on stdout',
    async () => {
      // The embedded database of the account create test when there is one (opens faster than a fresh one).
      const env: Record<string, string> = pgDatabase ? { DATABASE_URL: pgDatabase.url } : { DATA_DIR: path.join(work, 'data-create') };
      const run = await spawnCollect('npm', ['run', '-s', 'cli', '--', 'account', 'create', '--name', 'Npm Co', '--json'], { env: baseEnv(env), cwd: projectRoot });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(run.json, run.stdout).toBeTypeOf('object');
      expect(run.json.account.name).toBe('Npm Co');
      expect(run.json.key.token).toMatch(/^svc_/);
    },
    120_000,
  );

  it('passes the exit code through and keeps stdout to one JSON error object on bad input', async () => {
    const run = await fieldline(['key', 'create', '--user', '12', '--expires-at', 'soon', '--json'], { DATA_DIR: path.join(work, 'unused') });
    expect(run.code).toBe(2);
    expect(run.json).toEqual({ error: { message: expect.stringMatching(/--expires-at must be an ISO 8601 timestamp/) } });
    expect(existsSync(path.join(work, 'unused'))).toBe(false);
  });

  it('refuses the embedded database while a server holds it that does not answer on its socket: "stop the server or use DATABASE_URL"', async () => {
    const dataDir = path.join(work, 'data-held');
    const lock = acquireDataDirLock(dataDir, 'server');
    try {
      const json = await fieldline(['key', 'revoke', '01900000-0000-7000-8000-000000000000', '--json'], { DATA_DIR: dataDir });
      expect(json.code, json.stdout + json.stderr).toBe(1);
      expect(json.json.error.message).toMatch(/in use by the Fieldline server \(pid \d+.*stop the server or use DATABASE_URL/);
      const human = await fieldline(['key', 'revoke', '01900000-0000-7000-8000-000000000000'], { DATA_DIR: dataDir });
      expect(human.code).toBe(1);
      expect(human.stdout).toBe('');
      expect(human.stderr).toMatch(/^fieldline: the embedded database in .* is in use by the Fieldline server .*stop the server or use DATABASE_URL/);
    } finally {
      lock.release();
    }
  });

  it(
    'runs through the server that holds the embedded database: lists, and a key it creates or revokes works or is refused at once; the lock and the socket go on SIGTERM',
    async () => {
      // The embedded database made by the account create test when there is one (starts faster than a fresh one).
      const dataDir = path.join(work, 'data-create');
      const server = spawn(node24, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'src/main.ts'], {
        cwd: projectRoot,
        env: baseEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => server.on('exit', (code) => resolve(code)));
      let output = '';
      const port = await new Promise<number>((resolve, reject) => {
        const read = (d: Buffer) => {
          output += d;
          const listening = /"port":(\d+)[^\n]*"msg":"listening"/.exec(output);
          if (listening) resolve(Number(listening[1]));
        };
        server.stdout.on('data', read);
        server.stderr.on('data', read);
        server.on('exit', () => reject(new Error(`server exited: ${output}`)));
      });
      const me = (token: string) => fetch(`http://127.0.0.1:${port}/api/v2/me`, { headers: { authorization: `Bearer ${token}` } });
      try {
        const holder = JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE), 'utf8'));
        expect(holder).toMatchObject({ pid: server.pid, owner: 'server' });
        expect(statSync(path.join(dataDir, ADMIN_SOCKET)).mode & 0o777).toBe(0o600);

        const accounts = await fieldline(['account', 'list', '--json'], { DATA_DIR: dataDir });
        expect(accounts.code, accounts.stdout + accounts.stderr).toBe(0);
        expect(accounts.json.accounts.length).toBeGreaterThan(0);
        const accountId = accounts.json.accounts[0].id;
        const users = await fieldline(['user', 'list', '--account', accountId, '--json'], { DATA_DIR: dataDir });
        const userId = users.json.users[0].id;

        const created = await fieldline(['key', 'create', '--user', String(userId), '--scopes', 'customers:read', '--json'], { DATA_DIR: dataDir });
        expect(created.code, created.stdout + created.stderr).toBe(0);
        expect((await me(created.json.key.token)).status).toBe(200);
        const listed = await fieldline(['key', 'list', '--user', String(userId)], { DATA_DIR: dataDir });
        expect(listed.stdout).toMatch(new RegExp(`${created.json.key.id}  user ${userId}, live, customers:read`));
        expect(listed.stdout).not.toContain(created.json.key.token);

        const revoked = await fieldline(['key', 'revoke', created.json.key.id, '--json'], { DATA_DIR: dataDir });
        expect(revoked.code).toBe(0);
        // The server's own admin service ran it: its key cache forgot the key, no waiting for the cache's lifetime.
        expect(((await (await me(created.json.key.token)).json()) as { code: string }).code).toBe('auth.token_revoked');

        const unknown = await fieldline(['user', 'update', '999999', '--inactive', '--json'], { DATA_DIR: dataDir });
        expect(unknown.code).toBe(1);
        expect(unknown.json).toEqual({ error: { message: 'no user 999999' } });
        // The server logs what ran, never its output.
        expect(output).toMatch(/"command":"key create","exit_code":0[^\n]*fieldline command run for the CLI/);
        expect(output).not.toContain(created.json.key.token);
      } finally {
        server.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      expect(existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
      expect(existsSync(path.join(dataDir, ADMIN_SOCKET))).toBe(false);
    },
    120_000,
  );
});
