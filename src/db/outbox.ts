import type { PrismaClient } from '../generated/prisma/client.ts';
import { asBackground } from './background.ts';

// The outbox read across accounts (src/events/): the webhook dispatcher's step and the retention purge. Outside
// any tenant (every account's events at once), so they live with the database layer.

export interface DispatchedEvent {
  id: string;
  account_id: string;
  topic: string;
  seq: bigint;
}

export interface DispatchEndpoint {
  id: string;
  account_id: string;
  topics: string[];
}

/** A SQL runner inside the dispatcher's transaction (pg-boss inserts its jobs through it). */
export interface TxSql {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: any[] }>;
}

/**
 * One step of the webhook dispatcher, in one transaction: takes the dispatcher's cursor (FOR UPDATE SKIP LOCKED:
 * while one process dispatches, the others skip), reads up to `limit` events after it (events are numbered in
 * commit order, so nothing can appear behind the cursor later), finds the verified endpoints subscribed to them,
 * lets `enqueue` insert the deliveries in the same transaction and moves the cursor. Answers how many events it
 * read, or null when another process holds the cursor.
 */
export async function dispatchStep(
  prisma: PrismaClient,
  limit: number,
  enqueue: (sql: TxSql, events: DispatchedEvent[], endpoints: DispatchEndpoint[]) => Promise<void>,
): Promise<number | null> {
  return asBackground(() => prisma.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO event_cursors (name, seq) SELECT 'webhooks', coalesce(max(seq), 0) FROM events ON CONFLICT (name) DO NOTHING`);
      const cursor = await tx.$queryRawUnsafe<{ seq: bigint }[]>(`SELECT seq FROM event_cursors WHERE name = 'webhooks' FOR UPDATE SKIP LOCKED`);
      if (cursor.length === 0) return null;
      const events = await tx.$queryRawUnsafe<DispatchedEvent[]>(
        `SELECT id::text AS id, account_id::text AS account_id, topic, seq FROM events WHERE seq > $1 ORDER BY seq LIMIT $2`,
        cursor[0]!.seq,
        limit,
      );
      if (events.length === 0) return 0;
      const endpoints = await tx.$queryRawUnsafe<DispatchEndpoint[]>(
        `SELECT id::text AS id, account_id::text AS account_id, topics FROM webhook_endpoints
          WHERE status = 'verified' AND account_id = ANY($1::uuid[]) AND topics && $2::text[]`,
        [...new Set(events.map((event) => event.account_id))],
        [...new Set(events.map((event) => event.topic))],
      );
      if (endpoints.length > 0) {
        await enqueue({ executeSql: async (text, values) => ({ rows: await tx.$queryRawUnsafe<any[]>(text, ...(values ?? [])) }) }, events, endpoints);
      }
      await tx.$executeRawUnsafe(`UPDATE event_cursors SET seq = $1 WHERE name = 'webhooks'`, events[events.length - 1]!.seq);
      return events.length;
    },
    { timeout: 30_000, maxWait: 10_000 },
  ));
}

/** Deletes events older than `before` (retention) and the delivery log rows older than it; answers the events deleted. */
export async function purgeEventsBefore(prisma: PrismaClient, before: Date): Promise<number> {
  await prisma.$executeRawUnsafe(`DELETE FROM webhook_deliveries WHERE created_at < $1::timestamptz`, before);
  const rows = await prisma.$queryRawUnsafe<{ n: number }[]>(`WITH gone AS (DELETE FROM events WHERE created_at < $1::timestamptz RETURNING 1) SELECT count(*)::int AS n FROM gone`, before);
  return rows[0]?.n ?? 0;
}

/** An event as the subscription tail reads it (every account's, in seq order). */
export interface TailRow {
  seq: bigint;
  id: string;
  account_id: string;
  topic: string;
  record_id: string;
  payload: unknown;
  details: unknown;
  etag: string | null;
  created_at: Date;
}

/** The highest seq committed so far (0 with no events): where a process's subscription tail starts. */
export async function latestSeq(prisma: PrismaClient): Promise<bigint> {
  const rows = await asBackground(() => prisma.$queryRawUnsafe<{ seq: bigint | null }[]>(`SELECT max(seq) AS seq FROM events`));
  return BigInt(rows[0]?.seq ?? 0);
}

/** Up to `limit` events after `seq`, every account's, in commit order (the subscription tail's read). */
export function eventsAfter(prisma: PrismaClient, seq: bigint, limit: number): Promise<TailRow[]> {
  return asBackground(() =>
    prisma.$queryRawUnsafe<TailRow[]>(
      `SELECT seq, id::text AS id, account_id::text AS account_id, topic, record_id::text AS record_id, payload, details, etag, created_at
         FROM events WHERE seq > $1 ORDER BY seq LIMIT $2`,
      seq,
      limit,
    ),
  );
}
