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
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgresql://... ; when absent the embedded PGlite database is used. */
  url?: string;
  /** Directory for the embedded database; absent means in memory. */
  dataDir?: string;
  poolSize?: number;
  migrate?: boolean;
  /** Called with every SQL statement the client sends (tests count statements with it). */
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

// Values as Prisma gives them: int8 as BigInt, calendar dates as 'YYYY-MM-DD' strings (pg's default would make a
// local-time Date), numeric as exact decimal strings, timestamptz as Date, jsonb parsed.
const exactTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8) return (value: string) => BigInt(value);
    if (oid === pg.types.builtins.DATE) return (value: string) => value;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let factory: SqlMigrationAwareDriverAdapterFactory;
  let closeDriver: () => Promise<void>;
  let kind: Database['kind'];
  let raw: RawRunner | undefined;
  if (options.url) {
    kind = 'postgresql';
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
    factory = new PrismaPg(pool, { statementNameGenerator: statementName });
    closeDriver = () => pool.end();
    const onQuery = options.onQuery;
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
    const pglite = await PGlite.create({ dataDir: options.dataDir, extensions: pgliteExtensions });
    factory = new PrismaPGlite(pglite);
    closeDriver = () => pglite.close();
  }
  if (options.migrate !== false) await applyMigrations(kind === 'postgresql' ? wholeScriptMigrations(factory) : factory);
  const prisma = new PrismaClient({
    adapter: factory,
    log: options.onQuery ? [{ emit: 'event', level: 'query' }] : [],
  });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (prisma as unknown as { $on(event: 'query', cb: (e: { query: string }) => void): void }).$on('query', (e) => onQuery(e.query));
  }
  await prisma.$connect();
  // Data the declarations need that no migration writes: default statuses of classes added since an account was made.
  if (options.migrate !== false) await seedDefaultStatuses(prisma);
  return {
    prisma,
    kind,
    raw: raw ?? prisma,
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
