import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
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
 * src/main.ts on an ephemeral port of 127.0.0.1 (or `env.PORT`: a process started again where one was killed) with
 * `env` over this process's environment (LOG_LEVEL warn unless `env` says otherwise; this process's NODE_OPTIONS and
 * REDIS_URL are not passed on, `env`'s are), in a process group of its own; resolves once its banner names the port. Give it DATABASE_URL, and create an account first: on a
 * database without one it makes the demo account. `runtime` is how Node runs the TypeScript: through tsx (the
 * default, as `npm start`), or `transform-types`, Node 24's own TypeScript support, as the Docker image runs it.
 */
export async function spawnServer(env: Record<string, string>, options: { runtime?: 'tsx' | 'transform-types' } = {}): Promise<Spawned> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  delete inherited.NODE_OPTIONS;
  delete inherited.REDIS_URL;
  const childEnv: NodeJS.ProcessEnv = { ...inherited, LOG_LEVEL: 'warn', ...env, PORT: env.PORT ?? '0', HOST: '127.0.0.1' };
  const loader = options.runtime === 'transform-types' ? ['--experimental-transform-types'] : ['--import', 'tsx'];
  const child: ChildProcess = spawn(node24, ['--disable-warning=ExperimentalWarning', ...loader, 'src/main.ts'], {
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

/**
 * Which of `pids` holds the TCP socket 127.0.0.1:<localPort> -> 127.0.0.1:<remotePort> (Linux /proc), or null: the
 * operating system's view of which process sent a request (a webhook delivery) or holds a database connection.
 */
export function socketOwner(localPort: number, remotePort: number, pids: number[]): number | null {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  const local = `0100007F:${hex(localPort)}`;
  const remote = `0100007F:${hex(remotePort)}`;
  const line = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((row) => row.trim().split(/\s+/))
    .find((fields) => fields[1] === local && fields[2] === remote);
  const inode = line?.[9];
  if (!inode || inode === '0') return null;
  const target = `socket:[${inode}]`;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}
