import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { RawRunner } from '../kernel/tenant-sql.ts';
import { reportedOnly } from './background.ts';
import { seedDefaultStatuses } from './default-statuses.ts';
import { listenOnServer } from './listen.ts';
import { applyMigrations } from './migrate.ts';
import { exactTypes } from './pg-types.ts';
import { pgliteExtensions } from './pglite-extensions.ts';
import { statementName } from './statement-names.ts';
import { wholeScriptMigrations } from './whole-script-migrations.ts';

export type Prisma = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  kind: 'postgresql' | 'pglite';
  /**
   * Raw statements for the hottest reads (list pages). On PostgreSQL they go straight to the pg pool Prisma also
   * uses (same named statements, no ORM result mapping: about 100 µs less per request, see bench/README.md); on the
   * embedded database they go through Prisma.
   */
  raw: RawRunner;
  /** The connections the driver holds now, for the pool gauges of /metrics (src/ops/metrics.ts). */
  poolStats(): PoolStats;
  /**
   * LISTEN on a channel: `onNotify` runs for each notification, `onConnect` after every (re)subscription (so a
   * listener can catch up on what it missed while disconnected). Resolves to the function that stops listening.
   */
  listen(channel: string, onNotify: () => void, onConnect: () => void): Promise<() => Promise<void>>;
  /** How the job queue (pg-boss) reaches this database: its connection string, or the embedded instance. */
  queueConnection: { url: string } | { pglite: PGlite };
  close(): Promise<void>;
}

/**
 * PostgreSQL: pg.Pool's own counts. The embedded database has one connection that runs one statement or
 * transaction at a time (PGlite queues the rest): in use while any runs, the others waiting.
 */
export interface PoolStats {
  /** Connections the driver may open. */
  max: number;
  /** Connections checked out (running a statement or holding a transaction). */
  inUse: number;
  /** Connections open and free. */
  idle: number;
  /** Requests queued for a connection. */
  waiting: number;
}

export interface DatabaseOptions {
  /** postgresql://... ; when absent the embedded PGlite database is used. */
  url?: string;
  /** Directory for the embedded database; absent means in memory. */
  dataDir?: string;
  /**
   * Embedded only: start from this dump of a data directory (PGlite's dumpDataDir, an uncompressed tar), for example
   * one already migrated (the test suite migrates once and starts every file from a copy).
   */
  snapshot?: Blob;
  poolSize?: number;
  migrate?: boolean;
  /**
   * Called with every SQL statement the client sends for requests (tests count statements with it); the background
   * work of the job queue (asBackground) is not reported.
   */
  onQuery?: (sql: string) => void;
}

/**
 * PGlite's WebAssembly module, compiled once per process. PGlite keeps the modules it compiled by the URL object it
 * makes for each new instance, which never matches the last one, so without this every instance read and compiled
 * the 9 MB module again (a test run opens about 120; in one process 10 % of an instance's start).
 */
let pgliteModule: Promise<WebAssembly.Module> | undefined;
function compiledPglite(): Promise<WebAssembly.Module> {
  pgliteModule ??= readFile(path.join(path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm')).then((bytes) => WebAssembly.compile(bytes));
  return pgliteModule;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let factory: SqlMigrationAwareDriverAdapterFactory;
  let closeDriver: () => Promise<void>;
  let kind: Database['kind'];
  let raw: RawRunner | undefined;
  let poolStats: () => PoolStats;
  let listen: Database['listen'];
  let queueConnection: Database['queueConnection'];
  if (options.url) {
    const url = options.url;
    queueConnection = { url };
    listen = (channel, onNotify, onConnect) => listenOnServer(url, channel, onNotify, onConnect);
    kind = 'postgresql';
    const max = options.poolSize ?? 10;
    const pool = new pg.Pool({ connectionString: options.url, max });
    // An idle connection the server ends (a restart, an administrator, a dropped database) is an 'error' of the pool;
    // without a listener it would be an uncaught exception that ends the process. The pool drops that connection and
    // opens another when one is needed; the statements that fail say so themselves.
    pool.on('error', () => {});
    poolStats = () => ({ max, inUse: pool.totalCount - pool.idleCount, idle: pool.idleCount, waiting: pool.waitingCount });
    factory = new PrismaPg(pool, { statementNameGenerator: statementName });
    closeDriver = () => pool.end();
    const onQuery = options.onQuery && reportedOnly(options.onQuery);
    raw = {
      async $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T> {
        onQuery?.(sql);
        const result = await pool.query({ name: statementName({ sql } as SqlQuery), text: sql, values, types: exactTypes });
        return result.rows as T;
      },
    };
  } else {
    kind = 'pglite';
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    const pglite = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.snapshot, extensions: pgliteExtensions, pgliteWasmModule: await compiledPglite() });
    // What holds or waits for the one connection: every call of the adapter (query, exec, transaction; a
    // transaction's own statements run inside its call). PGlite keeps its queue private, so the calls are counted.
    let calls = 0;
    const counted = <F extends (...args: never[]) => Promise<unknown>>(run: F): F =>
      (async (...args: Parameters<F>) => {
        calls += 1;
        try {
          return await run(...args);
        } finally {
          calls -= 1;
        }
      }) as F;
    pglite.query = counted(pglite.query.bind(pglite));
    pglite.exec = counted(pglite.exec.bind(pglite));
    pglite.transaction = counted(pglite.transaction.bind(pglite));
    poolStats = () => {
      const open = pglite.closed ? 0 : 1;
      const inUse = Math.min(calls, open);
      return { max: 1, inUse, idle: open - inUse, waiting: calls - inUse };
    };
    factory = new PrismaPGlite(pglite);
    closeDriver = () => pglite.close();
    queueConnection = { pglite };
    listen = async (channel, onNotify, onConnect) => {
      const unlisten = await pglite.listen(channel, () => onNotify());
      onConnect();
      return async () => {
        if (!pglite.closed) await unlisten();
      };
    };
  }
  if (options.migrate !== false) {
    if (options.url) {
      // On one connection of its own: the schema engine takes a session advisory lock (other processes wait for it)
      // and releases it with a later statement, which a pool could run on another connection, leaving the lock held
      // by an idle pooled connection for as long as the pool keeps it busy.
      const migrations = new pg.Pool({ connectionString: options.url, max: 1 });
      migrations.on('error', () => {});
      try {
        await applyMigrations(wholeScriptMigrations(new PrismaPg(migrations)));
      } finally {
        await migrations.end();
      }
    } else {
      await applyMigrations(factory);
    }
  }
  const prisma = new PrismaClient({
    adapter: factory,
    log: options.onQuery ? [{ emit: 'event', level: 'query' }] : [],
  });
  if (options.onQuery) {
    const onQuery = reportedOnly(options.onQuery);
    (prisma as unknown as { $on(event: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) => onQuery(e.query));
  }
  await prisma.$connect();
  // Data the declarations need that no migration writes: default statuses of classes added since an account was made.
  if (options.migrate !== false) await seedDefaultStatuses(prisma);
  return {
    prisma,
    kind,
    raw: raw ?? prisma,
    poolStats,
    listen,
    queueConnection,
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
