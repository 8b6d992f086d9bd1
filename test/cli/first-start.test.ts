import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allScopes } from '../../src/resources/catalog.ts';
import { projectRoot, spawnCollect } from '../helpers/cli.ts';
import { serverDatabase } from '../helpers/database.ts';
import { client } from '../helpers/http.ts';

// `npm start` on an empty database: the server creates the demo account and prints its key once (README,
// "Quick start"). The real server process, spawned as src/main.ts; its printed port and key are used as a
// user would use them.

const work = mkdtempSync(path.join(tmpdir(), 'fl-first-start-'));
const node24 = path.join(projectRoot, 'node_modules', '.bin', 'node');

let pgDatabase: Awaited<ReturnType<typeof serverDatabase>>;
beforeAll(async () => {
  pgDatabase = await serverDatabase('fl_cli');
});
afterAll(async () => {
  await pgDatabase?.drop();
  rmSync(work, { recursive: true, force: true });
});

/** The server on an ephemeral port; resolves once its banner (stderr) matches `ready` (or rejects if it exits first). */
async function startServer(env: Record<string, string>, ready: RegExp) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' };
  delete childEnv.NODE_OPTIONS;
  if (!('DATABASE_URL' in env)) delete childEnv.DATABASE_URL;
  const server = spawn(node24, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const closed = new Promise<number | null>((resolve) => server.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    server.stdout.on('data', (d) => (stdout += d));
    server.stderr.on('data', (d) => {
      stderr += d;
      if (ready.test(stderr)) resolve();
    });
    server.on('exit', (code) => reject(new Error(`server exited (${code}) before it was ready: ${stdout}${stderr}`)));
  });
  const port = Number(/Fieldline listening on http:\/\/localhost:(\d+) /.exec(stderr)?.[1]);
  return {
    port,
    api: (token: string) => client(`http://127.0.0.1:${port}/api/v2`, token),
    /** SIGTERM, then the exit code and everything the server printed. */
    async stop(): Promise<{ code: number | null; stdout: string; stderr: string }> {
      server.kill('SIGTERM');
      const code = await closed;
      return { code, stdout, stderr };
    },
    stderr: () => stderr,
  };
}

describe('the first start', () => {
  it(
    'creates the demo account and prints a key with every scope that works on /me; a restart on the same database prints no key',
    async () => {
      const env: Record<string, string> = pgDatabase ? { DATABASE_URL: pgDatabase.url } : { DATA_DIR: path.join(work, 'data') };

      const first = await startServer(env, /curl -H "Authorization: Bearer svc_\S+" \S+\/api\/v2\/me\n/);
      let demoKey = '';
      try {
        expect(first.port).toBeGreaterThan(0);
        expect(first.stderr()).toMatch(/First start: created the demo account "Demo Field Services"/);
        demoKey = /Demo API key \(every scope; shown only now, store it\):\n\n {2}(svc_\S+)\n/.exec(first.stderr())![1];
        const me = await first.api(demoKey).get('/me');
        expect(me.status, me.text).toBe(200);
        expect(me.body.data.account).toMatchObject({ name: 'Demo Field Services', sandbox: true });
        expect([...me.body.data.key.scopes].sort()).toEqual([...allScopes].sort());
      } finally {
        const { code, stdout } = await first.stop();
        expect(code).toBe(0);
        // stdout is for log shippers: JSON lines only, with the start and the demo account as structured lines, never the key.
        const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['listening', 'demo account created; its key was printed on stderr', 'request']));
        // The drain's end is the last line: what the process stopped on, how long the drain took, and what it drained.
        expect(lines.at(-1)).toMatchObject({
          msg: 'stopped',
          signal: 'SIGTERM',
          duration_ms: expect.any(Number),
          drained: { requests: 0, cut: 0, websockets: 0, deliveries: 0 },
        });
        expect(stdout).not.toMatch(/svc_/);
      }

      const second = await startServer(env, /GraphQL http:\S+\/graphql\n/);
      try {
        // The demo key persisted and still works.
        expect((await second.api(demoKey).get('/me')).status).toBe(200);
      } finally {
        const { code, stdout, stderr } = await second.stop();
        expect(code).toBe(0);
        // Everything the second server printed, up to its exit: no demo account, no key.
        expect(stderr).toMatch(/Fieldline listening on/);
        expect(stdout + stderr).not.toMatch(/svc_|Demo API key|First start|demo account/);
      }
    },
    120_000,
  );
});

describe('the configuration', () => {
  it('an empty setting is unset (DATABASE_URL= as compose files write it); a bad one stops the start with one line naming it, no stack trace', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', METRICS_TOKEN: '  ', ERRORS_URL: '', PORT: 'eighty', LOG_LEVEL: 'info' };
    delete env.NODE_OPTIONS;
    const run = await spawnCollect(node24, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'src/main.ts'], { env });
    expect(run.code).toBe(1);
    // Only PORT is named: the empty DATABASE_URL, METRICS_TOKEN (at least 16 characters when set) and ERRORS_URL are unset.
    expect(run.stderr).toMatch(/^Fieldline cannot start: invalid configuration: PORT: [^\n]+\n$/);
    expect(run.stderr).not.toMatch(/DATABASE_URL|METRICS_TOKEN|ERRORS_URL|\n\s+at /);
    // stdout keeps to JSON lines: one fatal line saying the same.
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([expect.objectContaining({ level: 60, msg: 'failed to start', err_message: expect.stringMatching(/^invalid configuration: PORT: /) })]);
  });
});
