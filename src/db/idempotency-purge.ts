import type { PrismaClient } from '../generated/prisma/client.ts';

// The hourly purge of idempotency keys past their replay window (src/kernel/idempotency.ts): every account's at
// once, outside any request, so it lives with the database layer like the default statuses' seed. Safe to run
// from several processes at the same time.

/** Deletes every idempotency key that expired before `now`; answers how many. */
export async function purgeExpiredIdempotencyKeys(prisma: PrismaClient, now: Date): Promise<number> {
  const rows = await prisma.$queryRawUnsafe<{ n: number }[]>(
    `WITH gone AS (DELETE FROM idempotency_keys WHERE expires_at < $1::timestamptz RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    now,
  );
  return rows[0]?.n ?? 0;
}
