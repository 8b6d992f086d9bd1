import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { RawRunner } from '../kernel/tenant-sql.ts';
import { seedDefaultStatuses } from './default-statuses.ts';
import { applyMigrations } from './migrate.ts';
import { pgliteExtensions } from './pglite-extensions.ts';

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

// Stable names let PostgreSQL reuse plans for the same query shape (prepared statements are off by default).
const statementNames = new Map<string, string>();
function statementName(query: SqlQuery): string {
  let name = statementNames.get(query.sql);
  if (!name) {
    name = `fl_${statementNames.size.toString(36)}`;
    if (statementNames.size < 5000) statementNames.set(query.sql, name);
  }
  return name;
}

/**
 * @prisma/adapter-pg runs a migration script statement by statement, split on every ";", which breaks the
 * dollar-quoted bodies of trigger functions. PostgreSQL takes the whole script as one simple-protocol query
 * (one implicit transaction), so migrations are applied through adapters that do that.
 */
function wholeScriptMigrations(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  const whole = <T extends SqlDriverAdapter>(adapter: T): T => {
    const inner = adapter as unknown as { client: { query(sql: string): Promise<unknown> }; onError(error: unknown): never };
    adapter.executeScript = async (script: string) => {
      try {
        await inner.client.query(script);
      } catch (error) {
        inner.onError(error);
      }
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => whole(await factory.connect()),
    connectToShadowDb: async () => whole(await factory.connectToShadowDb()),
  };
}

function digit(text: string, at: number): number {
  return text.charCodeAt(at) - 48;
}
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}
/** Where 'YYYY-MM-DD HH:MM:SS' has its digits. */
const DIGITS_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/**
 * timestamptz as a Date, as pg's own parser (postgres-date) makes it, with a fast path for what a UTC session
 * prints, 'YYYY-MM-DD HH:MM:SS[.f...]+00' (year 1000 or later): read digit by digit instead of through regular
 * expressions, which a read of a thousand jobs with their customers, sites and contacts does six thousand
 * times. Sub-millisecond digits are dropped, as postgres-date drops them. Anything else goes to pg's parser.
 */
const pgTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (value: string) => Date;
function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (n < 22 || n > 29 || text.charCodeAt(10) !== 32 || text.charCodeAt(0) === 48 || !text.endsWith('+00')) return pgTimestamptz(text);
  for (const at of DIGITS_AT) if (digit(text, at) >>> 0 > 9) return pgTimestamptz(text);
  let ms = 0;
  if (n > 22) {
    if (text.charCodeAt(19) !== 46 /* . */) return pgTimestamptz(text);
    for (let at = 20; at < n - 3; at++) {
      if (digit(text, at) >>> 0 > 9) return pgTimestamptz(text);
      if (at < 23) ms = ms * 10 + digit(text, at);
    }
    for (let at = n - 3; at < 23; at++) ms *= 10;
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  return new Date(Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), ms));
}

// Values as Prisma gives them: int8 as BigInt, calendar dates as 'YYYY-MM-DD' strings (pg's default would make a
// local-time Date), numeric as exact decimal strings, timestamptz as Date, jsonb parsed.
const exactTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8) return (value: string) => BigInt(value);
    if (oid === pg.types.builtins.DATE) return (value: string) => value;
    if (oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

const background = new AsyncLocalStorage<true>();

/**
 * Runs background work (the job queue's outbox dispatcher) so that its statements are not reported to onQuery:
 * statement counts of a request stay the request's own while the queue works beside it.
 */
export function asBackground<T>(work: () => Promise<T>): Promise<T> {
  // Awaited inside: a Prisma query is sent when awaited, and must be sent in this context to be left unreported.
  return background.run(true, async () => await work());
}

function reportedOnly(onQuery: (sql: string) => void): (sql: string) => void {
  return (sql) => {
    if (!background.getStore()) onQuery(sql);
  };
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
    const pglite = await PGlite.create({ dataDir: options.dataDir, loadDataDir: options.snapshot, extensions: pgliteExtensions });
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

/**
 * LISTEN on its own connection to the server (a pooled connection cannot hold a LISTEN). A lost connection is
 * reopened after a pause, and onConnect runs after every subscription, so the listener reads what it missed.
 */
async function listenOnServer(url: string, channel: string, onNotify: () => void, onConnect: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    next.on('error', () => {
      next.end().catch(() => {});
      if (client === next) client = null;
      if (!stopped) retry = setTimeout(() => void connect().catch(() => {}), 1000).unref();
    });
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    if (stopped) return void (await next.end());
    client = next;
    onConnect();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}

// The readiness probe's two statements (src/ops/readiness.ts). Raw SQL is only written in src/db
// (test/security/raw-sql.test.ts), and neither statement reads tenant data.

/** Resolves when the database answers `SELECT 1`; rejects with the driver's error otherwise. */
export async function pingDatabase(database: Pick<Database, 'prisma'>): Promise<void> {
  await database.prisma.$queryRaw`SELECT 1`;
}

/** Names of the migrations Prisma recorded as applied: finished and not rolled back. */
export async function appliedMigrationNames(database: Pick<Database, 'prisma'>): Promise<Set<string>> {
  const rows = await database.prisma.$queryRaw<{ migration_name: string }[]>`
    SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
  return new Set(rows.map((row) => row.migration_name));
}
