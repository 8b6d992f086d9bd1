import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from './cli.ts';
import { client, type Client } from './http.ts';

// Real server processes for tests that need more than one process, or one that dies: src/main.ts spawned on an
// ephemeral port of 127.0.0.1, each in a process group of its own, so a test can SIGKILL it (and anything it
// started) mid-request. PostgreSQL only: the embedded database lives inside one process.

const node24 = path.join(projectRoot, 'node_modules', '.bin', 'node');

export interface Spawned {
  pid: number;
  port: number;
  /** http://127.0.0.1:<port> (REST is under /api/v2, GraphQL at /graphql). */
  url: string;
  /** A REST client of /api/v2 sending this token. */
  api(token: string): Client;
  /** Resolves when the process has exited (code, signal). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the process group (the server and anything it started); a no-op once it has exited. */
  kill(): void;
  /** SIGTERM (the server's graceful shutdown), SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** What it wrote on stdout and stderr so far. */
  output(): string;
}

/**
 * src/main.ts on an ephemeral port of 127.0.0.1 with `env` over this process's environment (LOG_LEVEL warn unless
 * `env` says otherwise; NODE_OPTIONS and REDIS_URL are not passed on), in a process group of its own; resolves once
 * its banner names the port. Give it DATABASE_URL, and create an account first: on a database without one it makes
 * the demo account.
 */
export async function spawnServer(env: Record<string, string>): Promise<Spawned> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: '0', HOST: '127.0.0.1' };
  delete childEnv.NODE_OPTIONS;
  delete childEnv.REDIS_URL;
  const child: ChildProcess = spawn(node24, ['--disable-warning=ExperimentalWarning', '--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const running = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  const signal = (name: NodeJS.Signals) => {
    if (!running()) return;
    try {
      process.kill(-child.pid!, name);
    } catch {
      child.kill(name);
    }
  };
  const kill = () => signal('SIGKILL');
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => {
      output += d;
      const listening = /Fieldline listening on http:\/\/localhost:(\d+) /.exec(output);
      if (listening) resolve(Number(listening[1]));
    });
    child.on('error', reject);
    void exited.then(({ code, signal: killedBy }) => reject(new Error(`the server exited (${code ?? killedBy}) before it was ready:\n${output}`)));
  }).catch((error) => {
    kill();
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    pid: child.pid!,
    port,
    url,
    api: (token) => client(`${url}/api/v2`, token),
    exited,
    kill,
    async stop(graceMs = 10_000) {
      signal('SIGTERM');
      const force = setTimeout(kill, graceMs);
      await exited;
      clearTimeout(force);
    },
    output: () => output,
  };
}

/** Polls `probe` until it answers something truthy (or throws), for at most `timeoutMs`. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Tears down in order: every step runs even when an earlier one failed (a child process, a connection, a database
 * left behind would outlive the file), then the first failure is thrown.
 */
export async function teardown(steps: readonly (() => unknown)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const run of steps) {
    try {
      await run();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length) throw failures[0];
}
