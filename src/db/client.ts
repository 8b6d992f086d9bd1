import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.ts';
import { applyMigrations } from './migrate.ts';
import { pgliteExtensions } from './pglite-extensions.ts';

export type Prisma = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  kind: 'postgresql' | 'pglite';
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

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let factory: SqlMigrationAwareDriverAdapterFactory;
  let closeDriver: () => Promise<void>;
  let kind: Database['kind'];
  if (options.url) {
    kind = 'postgresql';
    factory = new PrismaPg({ connectionString: options.url, max: options.poolSize ?? 10 }, { statementNameGenerator: statementName });
    closeDriver = async () => {};
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
  return {
    prisma,
    kind,
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
