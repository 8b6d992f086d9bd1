import { PgBoss, fromPglite, type JobInsert } from 'pg-boss';
import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { purgeExpiredIdempotencyKeys } from '../db/idempotency-purge.ts';
import { dispatchStep, purgeEventsBefore } from '../db/outbox.ts';
import type { Clock } from '../kernel/clock.ts';
import type { DomainSettings } from '../kernel/settings.ts';
import type { DeliveryJob, WebhookDeliverer } from './delivery.ts';

// The job queue: pg-boss 12 on the same database (its own schema, `pgboss`), on PostgreSQL through its own pool
// and on the embedded database through the PGlite instance (fromPglite). Every process runs the workers; a job
// is claimed by one of them (SKIP LOCKED). It carries:
//   - webhook-delivery: one attempt of one event to one endpoint. A failure schedules the next attempt as a new
//     job (startAfter: the retry schedule with jitter); a paused endpoint's attempt is moved to the end of the
//     pause. A process that dies mid-attempt loses nothing: the job expires and runs again (at least once).
//   - events-dispatch: wakes the dispatcher (below) on every node; the outbox cursor decides who dispatches.
//   - events-purge (daily) and idempotency-keys-purge (hourly): schedules, run once per occurrence across processes.
// The dispatcher turns committed events into delivery jobs: woken by the outbox's NOTIFY (and a poll every few
// seconds as a backstop), it takes the outbox cursor, reads the events after it, and inserts one job per event
// and subscribed endpoint in the transaction that moves the cursor (src/db/outbox.ts), so an event is handed on
// exactly once, and never before it committed.

const DELIVERY = 'webhook-delivery';
const EVENTS_PURGE = 'events-purge';
const KEYS_PURGE = 'idempotency-keys-purge';
const BATCH = 500;

export interface QueueDeps {
  database: Database;
  settings: DomainSettings;
  clock: Clock;
  deliverer: WebhookDeliverer;
  logger: Logger;
}

export class EventQueue {
  private boss: PgBoss | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private poll: NodeJS.Timeout | undefined;
  private dispatching: Promise<void> | null = null;
  private again = false;
  private running = false;

  constructor(private readonly deps: QueueDeps) {}

  /** Whether the workers run (readiness). */
  isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    const { database, logger } = this.deps;
    const connection = database.queueConnection;
    const boss =
      'url' in connection
        ? new PgBoss({ connectionString: connection.url, max: 3, schema: 'pgboss' })
        : new PgBoss({ db: fromPglite(connection.pglite), backend: 'pglite', schema: 'pgboss' });
    boss.on('error', (error: unknown) => logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'job queue error'));
    await boss.start();
    this.boss = boss;
    for (const name of [DELIVERY, EVENTS_PURGE, KEYS_PURGE]) {
      if (!(await boss.getQueue(name))) await boss.createQueue(name, { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 });
    }
    // Warms pg-boss's queue cache outside any transaction: the dispatcher's insert runs inside one, where a cache
    // miss would make pg-boss read through its own connection (on the embedded database, the one it waits for).
    await boss.insert(DELIVERY, []);
    await boss.work<DeliveryJob>(DELIVERY, { batchSize: 1, pollingIntervalSeconds: 1 }, async ([job]) => {
      if (job) await this.deliver(job.data);
    });
    await boss.work(EVENTS_PURGE, async () => {
      const before = new Date(this.deps.clock.now().getTime() - this.deps.settings.eventRetentionDays * 86_400_000);
      const purged = await purgeEventsBefore(database.prisma, before);
      logger.info({ purged }, 'events past retention purged');
    });
    await boss.work(KEYS_PURGE, async () => {
      await purgeExpiredIdempotencyKeys(database.prisma, this.deps.clock.now());
    });
    await boss.schedule(EVENTS_PURGE, '17 3 * * *');
    await boss.schedule(KEYS_PURGE, '7 * * * *');
    this.stopListening = await database.listen('fieldline_events', () => this.dispatch(), () => this.dispatch());
    this.poll = setInterval(() => this.dispatch(), 5_000).unref();
    this.running = true;
  }

  /** Runs the dispatcher now (again after the current run, when one is running). */
  dispatch(): void {
    if (!this.boss) return;
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = (async () => {
      try {
        do {
          this.again = false;
          while ((await this.dispatchOnce()) === BATCH);
        } while (this.again);
      } catch (error) {
        this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'webhook dispatch failed');
      } finally {
        this.dispatching = null;
      }
    })();
  }

  private async dispatchOnce(): Promise<number | null> {
    const boss = this.boss!;
    return dispatchStep(this.deps.database.prisma, BATCH, async (sql, events, endpoints) => {
      const jobs: JobInsert<DeliveryJob>[] = [];
      for (const event of events) {
        // A test event goes to its own endpoint only (POST .../test delivers it itself).
        if (event.topic === 'webhook_endpoint.test') continue;
        for (const endpoint of endpoints) {
          if (endpoint.account_id === event.account_id && endpoint.topics.includes(event.topic)) {
            jobs.push({ data: { accountId: event.account_id, endpointId: endpoint.id, eventId: event.id, attempt: 1 } });
          }
        }
      }
      if (jobs.length > 0) await boss.insert(DELIVERY, jobs, { db: sql });
    });
  }

  /** Queues deliveries (replays): each event to the endpoint, as a first attempt. */
  async enqueue(jobs: DeliveryJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.boss!.insert(DELIVERY, jobs.map((data) => ({ data })));
  }

  private async deliver(job: DeliveryJob): Promise<void> {
    const outcome = await this.deps.deliverer.attempt(job);
    const boss = this.boss!;
    if (outcome.kind === 'deferred') await boss.send(DELIVERY, job, { startAfter: outcome.until });
    if (outcome.kind === 'failed' && outcome.retryAt) await boss.send(DELIVERY, { ...job, attempt: job.attempt + 1 }, { startAfter: outcome.retryAt });
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.poll);
    await this.stopListening?.();
    await this.dispatching;
    await this.boss?.stop({ graceful: true, timeout: 5_000, close: true }).catch(() => {});
    this.boss = null;
  }
}
