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

/** Makes the webhook dispatcher's cursor (at the newest event) unless it exists; once per process, before it dispatches. */
export async function ensureDispatchCursor(prisma: PrismaClient): Promise<void> {
  await asBackground(() =>
    prisma.$executeRawUnsafe(`INSERT INTO event_cursors (name, seq) SELECT 'webhooks', coalesce(max(seq), 0) FROM events ON CONFLICT (name) DO NOTHING`),
  );
}

/**
 * The dispatcher's read, one statement: takes the cursor (FOR UPDATE SKIP LOCKED: while one process dispatches, the
 * others skip), reads up to $1 events after it (events are numbered in commit order, so nothing can appear behind
 * the cursor later) and the verified endpoints of their accounts subscribed to one of their topics; when there is
 * none, it moves the cursor past the events itself (`moved`), so a step with nothing to deliver is this statement
 * alone. `cursor` is null when another process holds the cursor.
 */
const STEP = `
WITH cursor AS (SELECT seq FROM event_cursors WHERE name = 'webhooks' FOR UPDATE SKIP LOCKED),
batch AS (SELECT e.id, e.account_id, e.topic, e.seq FROM events e JOIN cursor ON e.seq > cursor.seq ORDER BY e.seq LIMIT $1),
subscribed AS (
  SELECT w.id, w.account_id, w.topics FROM webhook_endpoints w
   WHERE w.status = 'verified' AND w.account_id IN (SELECT account_id FROM batch) AND w.topics && ARRAY(SELECT topic FROM batch)
),
moved AS (
  UPDATE event_cursors SET seq = (SELECT max(seq) FROM batch)
   WHERE name = 'webhooks' AND EXISTS (SELECT 1 FROM batch) AND NOT EXISTS (SELECT 1 FROM subscribed)
  RETURNING seq
)
SELECT (SELECT seq::text FROM cursor) AS cursor,
       (SELECT coalesce(json_agg(json_build_object('id', id, 'account_id', account_id, 'topic', topic, 'seq', seq::text) ORDER BY seq), '[]') FROM batch)::text AS events,
       (SELECT coalesce(json_agg(json_build_object('id', id, 'account_id', account_id, 'topics', topics)), '[]') FROM subscribed)::text AS endpoints,
       EXISTS (SELECT 1 FROM moved) AS moved`;

interface StepRead {
  /** False when another process holds the cursor. */
  held: boolean;
  events: DispatchedEvent[];
  endpoints: DispatchEndpoint[];
  /** The statement moved the cursor past the events itself (no endpoint is subscribed to them). */
  moved: boolean;
}

async function readStep(sql: Pick<PrismaClient, '$queryRawUnsafe'>, limit: number): Promise<StepRead> {
  const [row] = await sql.$queryRawUnsafe<{ cursor: string | null; events: string; endpoints: string; moved: boolean }[]>(STEP, limit);
  const events = (JSON.parse(row!.events) as (Omit<DispatchedEvent, 'seq'> & { seq: string })[]).map((event) => ({ ...event, seq: BigInt(event.seq) }));
  return { held: row!.cursor !== null, events, endpoints: JSON.parse(row!.endpoints) as DispatchEndpoint[], moved: row!.moved };
}

/**
 * One step of the webhook dispatcher: reads the events after its cursor (STEP); when no endpoint is subscribed to
 * them, that one statement has also moved the cursor, and the step is done. Otherwise, in one transaction that
 * holds the cursor, it reads them again, lets `enqueue` insert the deliveries in that transaction and moves the
 * cursor. Answers how many events it read, or null when another process holds the cursor (ensureDispatchCursor
 * made it).
 */
export async function dispatchStep(
  prisma: PrismaClient,
  limit: number,
  enqueue: (sql: TxSql, events: DispatchedEvent[], endpoints: DispatchEndpoint[]) => Promise<void>,
): Promise<number | null> {
  return asBackground(async () => {
    const first = await readStep(prisma, limit);
    if (!first.held) return null;
    if (first.moved || first.events.length === 0) return first.events.length;
    return prisma.$transaction(
      async (tx) => {
        const step = await readStep(tx, limit);
        if (!step.held) return null;
        if (step.moved || step.events.length === 0) return step.events.length;
        await enqueue({ executeSql: async (text, values) => ({ rows: await tx.$queryRawUnsafe<any[]>(text, ...(values ?? [])) }) }, step.events, step.endpoints);
        await tx.$executeRawUnsafe(`UPDATE event_cursors SET seq = $1 WHERE name = 'webhooks'`, step.events[step.events.length - 1]!.seq);
        return step.events.length;
      },
      { timeout: 30_000, maxWait: 10_000 },
    );
  });
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
