import type { PrismaClient } from '../generated/prisma/client.ts';
import { asBackground } from './background.ts';

// What /metrics reports of the event pipeline that only the database knows (src/ops/metrics.ts): how far the outbox
// has grown past its readers, and what waits in the job queue. Read across accounts, at scrape time, each in one
// statement on indexed columns (the outbox's seq, pg-boss's job table by state), so a scrape costs two short reads.

/** The outbox's newest event and how far its readers are behind it. */
export interface OutboxPosition {
  /** The seq of the newest committed event (0 when there is none). */
  head: bigint;
  /** The webhook dispatcher's cursor (null before any process started the dispatcher). */
  dispatched: bigint | null;
  /** When the oldest event the dispatcher has not handed on was committed (null when it is caught up). */
  dispatchOldest: Date | null;
  /** When the oldest event after `tailSeq` (a process's subscription tail) was committed (null when caught up). */
  tailOldest: Date | null;
}

export async function outboxPosition(prisma: PrismaClient, tailSeq: bigint | null): Promise<OutboxPosition> {
  const [row] = await asBackground(() =>
    prisma.$queryRawUnsafe<{ head: string | null; dispatched: string | null; dispatch_oldest: Date | null; tail_oldest: Date | null }[]>(
      `WITH cursor AS (SELECT seq FROM event_cursors WHERE name = 'webhooks')
       SELECT (SELECT max(seq) FROM events)::text AS head,
              (SELECT seq FROM cursor)::text AS dispatched,
              (SELECT e.created_at FROM events e, cursor c WHERE e.seq > c.seq ORDER BY e.seq LIMIT 1) AS dispatch_oldest,
              (SELECT e.created_at FROM events e WHERE $1::bigint IS NOT NULL AND e.seq > $1::bigint ORDER BY e.seq LIMIT 1) AS tail_oldest`,
      tailSeq === null ? null : tailSeq.toString(),
    ),
  );
  return {
    head: BigInt(row?.head ?? 0),
    dispatched: row?.dispatched == null ? null : BigInt(row.dispatched),
    dispatchOldest: row?.dispatch_oldest ?? null,
    tailOldest: row?.tail_oldest ?? null,
  };
}

/** The jobs of one queue that are not finished. */
export interface QueueDepth {
  queue: string;
  /** Waiting to run now (created or retrying, due). */
  ready: number;
  /** Waiting for a later time (a retry's delay, the end of an endpoint's pause, a schedule). */
  deferred: number;
  /** Claimed by a worker and running. */
  active: number;
  /** When the oldest ready job was created (null when none is ready). */
  oldestReady: Date | null;
}

/** Every queue's unfinished jobs (pg-boss's `job` table in the `pgboss` schema; empty before the queue started once). */
export async function queueDepths(prisma: PrismaClient, queues: readonly string[]): Promise<QueueDepth[]> {
  const rows = await asBackground(() =>
    prisma.$queryRawUnsafe<{ name: string; ready: number; deferred: number; active: number; oldest_ready: Date | null }[]>(
      `SELECT q.name,
              count(j.id) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after <= now())::int AS ready,
              count(j.id) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after > now())::int AS deferred,
              count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
              min(j.created_on) FILTER (WHERE j.state IN ('created', 'retry') AND j.start_after <= now()) AS oldest_ready
         FROM unnest($1::text[]) AS q(name)
         LEFT JOIN pgboss.job j ON j.name = q.name AND j.state IN ('created', 'retry', 'active')
        GROUP BY q.name`,
      [...queues],
    ),
  );
  return rows.map((row) => ({ queue: row.name, ready: row.ready, deferred: row.deferred, active: row.active, oldestReady: row.oldest_ready }));
}
