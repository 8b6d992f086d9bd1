import type { Database } from './client.ts';

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
