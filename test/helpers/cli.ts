import { spawn } from 'node:child_process';
import path from 'node:path';
import { runCli } from '../../src/cli/run.ts';
import type { Database } from '../../src/db/client.ts';

// Running the `fieldline` command: in-process on an open database, or as a real process.

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

/** Runs the fieldline command in-process on an open database (with `env` as its environment), capturing stdout and stderr. */
export function cliOn(database: Database, env?: NodeJS.ProcessEnv) {
  return async (...argv: string[]): Promise<CliRun> => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      database,
      env,
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
