import { errorText } from '../kernel/logger.ts';
import { PgBoss, fromPglite, type JobInsert, type JobResult, type Queue } from 'pg-boss';
import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { purgeExpiredIdempotencyKeys } from '../db/idempotency-purge.ts';
import { dispatchStep, ensureDispatchCursor, purgeEventsBefore } from '../db/outbox.ts';
import type { Clock } from '../kernel/clock.ts';
import type { DomainSettings } from '../kernel/settings.ts';
import { CatchUp } from './catch-up.ts';
import type { DeliveryJob, WebhookDeliverer } from '../resources/webhooks/delivery.ts';

// The job queue: pg-boss 12 on the same database (its own schema, `pgboss`), on PostgreSQL through its own pool
// and on the embedded database through the PGlite instance (fromPglite). Every process runs the workers; a job
// is claimed by one of them (SKIP LOCKED). It carries:
//   - webhook-delivery: one attempt of one event to one endpoint. A failure schedules the next attempt as a new
//     job (startAfter: the retry schedule with jitter); a paused endpoint's attempt is moved to the end of the
//     pause. A process that dies mid-attempt loses nothing: the job expires and runs again (at least once).
//   - events-purge (daily), idempotency-keys-purge (hourly) and files-purge (every 10 minutes: released attachment
//     files and crash orphans, src/kernel/attachments.ts): schedules, run once per occurrence across processes.
//   - recurring-generate (every 5 minutes): the occurrences of recurring templates that came inside their horizon
//     (src/resources/recurring/generator.ts). Every process also runs that sweep once when it starts; the
//     occurrence ledger, not the schedule, makes each occurrence happen once.
// The dispatcher turns committed events into delivery jobs: woken by the outbox's NOTIFY (and a poll every few
// seconds as a backstop), it takes the outbox cursor, reads the events after it, and inserts one job per event
// and subscribed endpoint in the transaction that moves the cursor (src/db/outbox.ts), so an event is handed on
// exactly once, and never before it committed.

const DELIVERY = 'webhook-delivery';
const EVENTS_PURGE = 'events-purge';
const KEYS_PURGE = 'idempotency-keys-purge';
const FILES_PURGE = 'files-purge';
const RECURRING = 'recurring-generate';
const BATCH = 500;
/** Every queue the app runs, for /metrics (queue depth). */
export const QUEUES: readonly string[] = [DELIVERY, EVENTS_PURGE, KEYS_PURGE, FILES_PURGE, RECURRING];

/** How one delivery job ended: the attempt's outcome, or `error` when it threw (pg-boss retries it). */
export type DeliveryJobOutcome = 'delivered' | 'failed' | 'dropped' | 'deferred' | 'error';
/** Told of every delivery job this process ran: its outcome and, when a request was made, how long it took. */
export type DeliveryListener = (outcome: DeliveryJobOutcome, requestSeconds: number | null) => void;

// Delivery workers: every process runs DELIVERY_WORKERS workers, each claiming up to DELIVERY_BATCH attempts at a
// time and making them concurrently; a worker whose claim came back full claims again at once (burst), so a backlog
// drains as fast as the endpoints answer. The queue NOTIFYs when a job becomes runnable (the dispatcher's insert, a
// retry due now), which wakes the workers; otherwise they look every DELIVERY_POLL_SECONDS (jobs scheduled for
// later: the retry schedule, the end of a pause). With pg-boss's default (one job per worker per poll, polled every
// second) a process made at most one delivery a second.
const DELIVERY_WORKERS = 4;
const DELIVERY_BATCH = 5;
const DELIVERY_POLL_SECONDS = 1;

// Supervision (docs/decisions.md, Webhook endpoints, Queue): a job whose worker died (kill -9, a lost machine) stays
// `active` until pg-boss's supervisor finds it past its expiry and puts it back for a retry. Two things bound how
// soon that happens, and both are set here:
//   - the delivery job's expiry: the per-attempt timeout (WEBHOOK_TIMEOUT_MS, which bounds the HTTP exchange) plus
//     DELIVERY_EXPIRY_MARGIN_SECONDS for the attempt's database work (reading the endpoint, the event and the
//     secrets, writing the delivery log). pg-boss also fails a job whose handler runs past its expiry, so the
//     margin must cover a slow database too; past it the attempt may be made twice (deliveries are at least once,
//     receivers deduplicate by webhook-id). With the defaults: 10 s + 15 s.
//   - how often the supervisor looks: each process ticks every SUPERVISE_SECONDS and the expiry check runs once per
//     MONITOR_SECONDS across all processes (a claim on the queue row). pg-boss's defaults are 60 s each; 5 s costs
//     one short pass per process every 5 s (a few statements on indexed columns; pg-boss backs its statistics
//     aggregate off by itself when it gets slow).
// An expired delivery then runs again after pg-boss's retry delay (DELIVERY_RETRY: 1-2 s for the first retry):
// with the default timeout, within about 25 + 10 + 2 s of the worker's claim.
// The queue options are written on every start (createQueue, or updateQueue when the queue exists with other
// options: the database outlives the process, and a job takes its queue's options when it is inserted). Processes
// started with different WEBHOOK_TIMEOUT_MS overwrite each other's expiry; the last one started wins.
const DELIVERY_EXPIRY_MARGIN_SECONDS = 15;
const SUPERVISE_SECONDS = 5;
const MONITOR_SECONDS = 5;
/**
 * pg-boss's own retries of a delivery job: after its handler threw (the database failed mid-attempt) or it expired
 * (its worker died). Failed deliveries are not these: they are new jobs on the webhook retry schedule. Ten retries
 * from 1 s, doubling (with jitter), cover 17 to 34 minutes of database trouble.
 */
const DELIVERY_RETRY = { retryLimit: 10, retryDelay: 1, retryBackoff: true } as const;
/** The purge schedules' jobs: a purge of a large table may take a while. */
const PURGE_OPTIONS = { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 } as const;

/** A generation sweep may create many records (a year of a thousand templates): it may run for a while. */
const RECURRING_OPTIONS = { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 1800 } as const;

type QueueSettings = Pick<Queue, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'expireInSeconds' | 'notify'>;

/** The options of each queue; the delivery job's expiry follows the per-attempt timeout. */
export function queueOptions(settings: DomainSettings): Record<string, QueueSettings> {
  const expireInSeconds = Math.ceil(settings.webhooks.timeoutMs / 1000) + DELIVERY_EXPIRY_MARGIN_SECONDS;
  return {
    [DELIVERY]: { ...DELIVERY_RETRY, expireInSeconds, notify: true },
    [EVENTS_PURGE]: PURGE_OPTIONS,
    [KEYS_PURGE]: PURGE_OPTIONS,
    [FILES_PURGE]: PURGE_OPTIONS,
    [RECURRING]: RECURRING_OPTIONS,
  };
}

export interface QueueDeps {
  database: Database;
  settings: DomainSettings;
  clock: Clock;
  deliverer: WebhookDeliverer;
  /** The purge of released attachment files and crash orphans (src/kernel/attachments.ts). */
  files: { purge(now: Date): Promise<number> };
  /** The recurring templates' generator (src/resources/recurring/recurring.service.ts). */
  recurring: { sweep(stopped: () => boolean): Promise<{ created: number; missed: number; failed: number }> };
  logger: Logger;
}

export class EventQueue {
  /** Delivery attempts under way in this process. */
  private delivering = 0;
  private boss: PgBoss | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private poll: NodeJS.Timeout | undefined;
  private readonly dispatcher: CatchUp;
  private running = false;
  /** The sweep each process runs when it starts (awaited by stop). */
  private starting: Promise<void> = Promise.resolve();
  private deliveryListeners: readonly DeliveryListener[] = [];

  constructor(private readonly deps: QueueDeps) {
    this.dispatcher = new CatchUp(() => this.dispatchOnce(), BATCH, deps.logger, 'webhook dispatch');
  }

  /** Calls `listener` after each delivery job of this process (metrics); answers the unsubscribe. */
  onDelivery(listener: DeliveryListener): () => void {
    this.deliveryListeners = [...this.deliveryListeners, listener];
    return () => {
      this.deliveryListeners = this.deliveryListeners.filter((registered) => registered !== listener);
    };
  }

  private told(outcome: DeliveryJobOutcome, requestSeconds: number | null): void {
    for (const listener of this.deliveryListeners) listener(outcome, requestSeconds);
  }

  /** Whether the workers run (readiness). */
  isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    const { database, logger } = this.deps;
    const connection = database.queueConnection;
    const supervision = { superviseIntervalSeconds: SUPERVISE_SECONDS, monitorIntervalSeconds: MONITOR_SECONDS, useListenNotify: true };
    const boss =
      'url' in connection
        ? new PgBoss({ connectionString: connection.url, max: 3, schema: 'pgboss', ...supervision })
        : new PgBoss({ db: fromPglite(connection.pglite), backend: 'pglite', schema: 'pgboss', ...supervision });
    boss.on('error', (error: unknown) => logger.warn({ err: errorText(error) }, 'job queue error'));
    await boss.start();
    this.boss = boss;
    for (const [name, options] of Object.entries(queueOptions(this.deps.settings))) {
      const existing = await boss.getQueue(name);
      if (!existing) await boss.createQueue(name, options);
      else if (Object.entries(options).some(([option, value]) => existing[option as keyof QueueSettings] !== value)) await boss.updateQueue(name, options);
    }
    // Warms pg-boss's queue cache outside any transaction: the dispatcher's insert runs inside one, where a cache
    // miss would make pg-boss read through its own connection (on the embedded database, the one it waits for).
    await boss.insert(DELIVERY, []);
    const deliveryWork = {
      localConcurrency: DELIVERY_WORKERS,
      batchSize: DELIVERY_BATCH,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: DELIVERY_POLL_SECONDS,
      notifyPollingIntervalSeconds: DELIVERY_POLL_SECONDS,
      perJobResults: true,
    } as const;
    // Each attempt settles on its own: one that throws (the database failed) is retried by pg-boss, the others complete.
    await boss.work<DeliveryJob, unknown, typeof deliveryWork>(DELIVERY, deliveryWork, (jobs) =>
      Promise.all(
        jobs.map(async (job): Promise<JobResult> => {
          try {
            this.delivering += 1;
            await this.deliver(job.data).finally(() => (this.delivering -= 1));
            return { id: job.id, status: 'completed' };
          } catch (error) {
            this.told('error', null);
            logger.warn({ err: errorText(error), event_id: job.data.eventId }, 'webhook delivery attempt failed');
            return { id: job.id, status: 'failed', output: { message: errorText(error) } };
          }
        }),
      ),
    );
    await boss.work(EVENTS_PURGE, async () => {
      const before = new Date(this.deps.clock.now().getTime() - this.deps.settings.eventRetentionDays * 86_400_000);
      const purged = await purgeEventsBefore(database.prisma, before);
      logger.info({ purged }, 'events past retention purged');
    });
    await boss.work(KEYS_PURGE, async () => {
      await purgeExpiredIdempotencyKeys(database.prisma, this.deps.clock.now());
    });
    await boss.work(FILES_PURGE, async () => {
      const purged = await this.deps.files.purge(this.deps.clock.now());
      if (purged > 0) logger.info({ purged }, 'released and orphaned files purged');
    });
    await boss.work(RECURRING, () => this.generate());
    await boss.schedule(EVENTS_PURGE, '17 3 * * *');
    await boss.schedule(RECURRING, '*/5 * * * *');
    await boss.schedule(FILES_PURGE, '*/10 * * * *');
    await boss.schedule(KEYS_PURGE, '7 * * * *');
    await ensureDispatchCursor(database.prisma);
    this.stopListening = await database.listen('fieldline_events', () => this.dispatch(), () => this.dispatch());
    this.poll = setInterval(() => this.dispatch(), 5_000).unref();
    this.running = true;
    // What came due while no process ran (or since the last sweep) is generated at once, not at the next schedule.
    this.starting = this.generate().catch((error: unknown) => logger.warn({ err: errorText(error) }, 'recurring generation at start failed'));
  }

  /** One sweep of the recurring templates (logged when it did something). */
  private async generate(): Promise<void> {
    const done = await this.deps.recurring.sweep(() => !this.running);
    if (done.created + done.missed + done.failed > 0) this.deps.logger.info(done, 'recurring occurrences generated');
  }

  /** Runs the dispatcher now (again after the current run, when one is running). */
  dispatch(): void {
    if (this.boss) this.dispatcher.wake();
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
    this.told(outcome.kind, 'requestMs' in outcome ? outcome.requestMs / 1000 : null);
    const boss = this.boss!;
    if (outcome.kind === 'deferred') await boss.send(DELIVERY, job, { startAfter: outcome.until });
    if (outcome.kind === 'failed' && outcome.retryAt) await boss.send(DELIVERY, { ...job, attempt: job.attempt + 1 }, { startAfter: outcome.retryAt });
  }

  /** Stops the queue once the deliveries under way are done; resolves with how many there were. */
  async stop(): Promise<number> {
    const delivering = this.delivering;
    this.running = false;
    clearInterval(this.poll);
    await this.stopListening?.();
    await this.dispatcher.idle();
    await this.starting;
    await this.boss?.stop({ graceful: true, timeout: 5_000, close: true }).catch(() => {});
    this.boss = null;
    return delivering;
  }
}
