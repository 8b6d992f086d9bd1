import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Child {
  name: string;
  process: ChildProcess;
  port: number;
  /** Sends a message and resolves with the child's first answer of type `${type}` (e.g. 'cpu'). */
  ask<T>(type: string, message?: object): Promise<T>;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();

/** The V8 heap flags `npm start` runs the server with (package.json), so a bench server runs as production does. */
export const startHeapFlags: string[] = (
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start.match(/--max-[a-z-]+-size=\d+/g) ?? []
);

/**
 * Forks a bench server (a .ts entry under bench/servers, run through the same tsx loader as this process, with the
 * heap flags of `npm start`), sends it its start message and waits for {type:'ready', port}.
 */
export async function startChild(name: string, entry: string, start: object, extraEnv: Record<string, string> = {}, timeoutMs = 60_000): Promise<Child> {
  const nodeOptions = [...startHeapFlags, process.env.NODE_OPTIONS, extraEnv.NODE_OPTIONS].filter(Boolean).join(' ');
  const child = fork(fileURLToPath(new URL(`../servers/${entry}`, import.meta.url)), [], {
    env: { ...process.env, NODE_ENV: 'production', ...extraEnv, NODE_OPTIONS: nodeOptions },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`));
    });
    child.on('message', (message: { type?: string; port?: number; message?: string }) => {
      if (message.type === 'ready' && message.port) {
        clearTimeout(timer);
        resolve(message.port);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(new Error(`${name} failed to start: ${message.message}`));
      }
    });
    child.send({ type: 'start', ...start });
  });
  return {
    name,
    process: child,
    port,
    ask: <T>(type: string, message: object = {}) =>
      new Promise<T>((resolve) => {
        const listener = (answer: { type?: string }) => {
          if (answer.type !== type) return;
          child.off('message', listener);
          resolve(answer as T);
        };
        child.on('message', listener);
        child.send({ type, ...message });
      }),
    stop: () => stopChild(child),
  };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every child this process started (used on failure and SIGINT). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map(stopChild));
}
