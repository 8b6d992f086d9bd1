import { rm } from 'node:fs/promises';
import type pg from 'pg';
import type { App } from '../../src/app.ts';
import type { Database } from '../../src/db/client.ts';
import { stopAllChildren } from './children.ts';
import type { BenchDatabase } from './db.ts';

/** What a bench holds open at a given moment (null: not made yet, or already closed). */
export interface Held {
  benchDb: BenchDatabase | null;
  app?: App | null;
  database?: Database | null;
  sql?: pg.Client | null;
  /** Temporary directories (e.g. a server's FILES_DIR), removed after the servers stopped. */
  dirs?: (string | null)[];
}

/**
 * A bench's cleanup, run at most once, on success, failure, SIGINT and SIGTERM: the child servers stopped, the
 * in-process app and its database closed, the SQL client ended, the temporary directories removed and the bench
 * database dropped. `held` tells
 * what is open when it runs.
 */
export function benchCleanup(held: () => Held, log: (message: string) => void): () => Promise<void> {
  let cleaning: Promise<void> | null = null;
  const cleanup = () => {
    cleaning ??= (async () => {
      const { benchDb, app, database, sql, dirs } = held();
      await stopAllChildren().catch(() => {});
      await app?.close().catch(() => {});
      await database?.close().catch(() => {});
      await sql?.end().catch(() => {});
      for (const dir of dirs ?? []) {
        if (dir) await rm(dir, { recursive: true, force: true }).then(() => log(`removed ${dir}`), (error: unknown) => console.error(`could not remove ${dir}: ${(error as Error).message}`));
      }
      if (benchDb) {
        await benchDb.drop().then(
          () => log(`dropped ${benchDb.name}`),
          (error: unknown) => console.error(`could not drop ${benchDb.name}: ${(error as Error).message}`),
        );
      }
    })();
    return cleaning;
  };
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping the servers and dropping the bench database`);
      void cleanup().finally(() => process.exit(code));
    });
  }
  return cleanup;
}

/**
 * Runs a bench's main: on success the cleanup and exit 0; on failure the stack on stderr, the cleanup and exit 1.
 */
export function runBench(main: () => Promise<void>, cleanup: () => Promise<void>): void {
  main().then(
    async () => {
      await cleanup();
      process.exit(0);
    },
    async (error: unknown) => {
      console.error(`bench failed: ${(error as Error)?.stack ?? String(error)}`);
      await cleanup();
      process.exit(1);
    },
  );
}
