import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/client.ts';
import type { OutboxPosition, QueueDepth } from '../db/pipeline-stats.ts';
import type { DeliveryJobOutcome, DeliveryListener } from '../events/queue.ts';
import type { IdempotencyListener, IdempotencyOutcome } from '../kernel/idempotency.ts';
import type { OperationNote } from '../http/request-log.ts';
import type { Bucket, RateLimits } from '../kernel/rate-limit.ts';

// The app's Prometheus metrics, on a registry of its own (never prom-client's global one: a process may run
// several apps, as the tests do). Labels hold only words of the code (methods, route templates, status codes,
// bucket names, operation types) and a bounded set of GraphQL operation names: never an account, key or record
// id, nor a raw path. docs/operations.md lists every metric.

export interface MetricsOptions {
  /** The database's connection counts (Database.poolStats). */
  poolStats: () => PoolStats;
  rateLimits: Pick<RateLimits, 'onRefusal'>;
  /** How many distinct GraphQL operation names get a label of their own (default 100); later ones are `other`. */
  graphqlOperationNames?: number;
}

/** Route label of requests no route template matched (404s, and refusals answered before routing: 429 of a bucket). */
const UNMATCHED = 'unmatched';
const ANONYMOUS_OPERATION = 'anonymous';
const OTHER_OPERATION = 'other';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const OPERATION_TYPES = new Set(['query', 'mutation', 'subscription']);
/** GraphQL's Name grammar, at a length a dashboard can show. */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;
const BUCKETS: readonly Bucket[] = ['read', 'write', 'webhook_ingest', 'graphql'];

type Observe = (seconds: number) => void;

/** What the event pipeline metrics read (wired by the app: src/app.ts). */
export interface PipelineSources {
  /** The outbox's head and readers, given this process's tail position (one statement: src/db/pipeline-stats.ts). */
  outbox(tailSeq: bigint | null): Promise<OutboxPosition>;
  /** The queues' unfinished jobs (one statement). */
  queues(): Promise<QueueDepth[]>;
  /** The seq of the last event this process's subscription tail read (null while stopped). */
  tailSeq(): bigint | null;
  /** Open GraphQL WebSockets and their subscriptions in this process. */
  websockets(): { sockets: number; subscriptions: number };
  onDelivery(listener: DeliveryListener): unknown;
  onIdempotency(listener: IdempotencyListener): unknown;
}

/**
 * The series of a counter with one label, one per known value, each existing from the start at 0 (so that rate()
 * sees the first increment), by value.
 */
function seriesFromZero<L extends string, V extends string>(counter: Counter<L>, label: L, values: readonly V[]) {
  const series = new Map(values.map((value) => [value, counter.labels({ [label]: value } as unknown as Partial<Record<L, string>>)]));
  for (const child of series.values()) child.inc(0);
  return series;
}

/** How long a scrape waits for the event pipeline's figures from the database. */
const PIPELINE_READ_TIMEOUT_MS = 1_000;
const DELIVERY_OUTCOMES: readonly DeliveryJobOutcome[] = ['delivered', 'failed', 'dropped', 'deferred', 'error'];
const IDEMPOTENCY_OUTCOMES: readonly IdempotencyOutcome[] = ['completed', 'failed', 'replayed', 'in_flight', 'mismatch'];
/** Seconds from a time, never negative (clocks of the database and the process may differ a little). */
const ageOf = (at: Date | null, now: number) => (at ? Math.max(0, (now - at.getTime()) / 1000) : 0);

/** The time a response started (performance.now()), kept on the response for its `finish` listener. */
const STARTED = Symbol('fieldline.metrics.started');
type TimedResponse = Response & { [STARTED]: number };

/**
 * The route label of a finished request: the template Express matched (mount path + route path, e.g.
 * /api/v2/customers/:id); for a request a mounted handler answered without a route (the GraphQL endpoint),
 * its mount path when the request was for exactly that path; otherwise `unmatched`. Read at `finish`: Express
 * leaves req.route and req.baseUrl as the router that answered set them.
 */
function routeParts(req: Request): { base: string; path: string } | null {
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return { base: req.baseUrl, path: route.path };
  if (req.baseUrl !== '' && req.path === '/') return { base: req.baseUrl, path: '' };
  return null;
}

let processRegistry: Registry | undefined;
/**
 * The process's own metrics (CPU, memory, event loop, GC), collected once per process: prom-client observes GC
 * with a PerformanceObserver it never disconnects, so a registry given to collectDefaultMetrics lives as long as
 * the process, and with it everything its metrics' collect() functions reach (an app, its database).
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class OpsMetrics {
  readonly registry = new Registry();
  private readonly duration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly operations: Counter<'operation_name' | 'operation_type'>;
  private readonly operationCost: Histogram<'operation_name' | 'operation_type'>;
  private readonly operationNameLimit: number;
  private readonly operationNames = new Set<string>();
  /** Label children by route template, method and status, so that a request allocates no label object. */
  private readonly series = new Map<string, Map<string, Map<number, Observe>>>();
  /** Route templates by mount path and route path (the concatenation made once). */
  private readonly templates = new Map<string, Map<string, string>>();

  constructor(options: MetricsOptions) {
    processMetrics();
    const registers = [this.registry];

    this.duration = new Histogram({
      name: 'fieldline_http_request_duration_seconds',
      help: 'HTTP requests by method, route template (`unmatched` when none) and status code: time from the request reaching the routers to the response being handed to the OS.',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });

    const stats = options.poolStats;
    new Gauge({
      name: 'fieldline_db_pool_connections_in_use',
      help: 'Database connections running a statement or holding a transaction.',
      registers,
      collect() {
        this.set(stats().inUse);
      },
    });
    new Gauge({
      name: 'fieldline_db_pool_connections_idle',
      help: 'Database connections open and free.',
      registers,
      collect() {
        this.set(stats().idle);
      },
    });
    new Gauge({
      name: 'fieldline_db_pool_connections_max',
      help: 'Database connections the pool may open (DATABASE_POOL_SIZE; 1 for the embedded database).',
      registers,
      collect() {
        this.set(stats().max);
      },
    });
    new Gauge({
      name: 'fieldline_db_pool_waiting',
      help: 'Statements or transactions queued for a database connection.',
      registers,
      collect() {
        this.set(stats().waiting);
      },
    });

    const refusals = new Counter({
      name: 'fieldline_rate_limit_refusals_total',
      help: 'Requests refused with rate_limit.exceeded (REST 429, GraphQL over HTTP and WebSocket), by rate bucket.',
      labelNames: ['bucket'],
      registers,
    });
    const byBucket = seriesFromZero(refusals, 'bucket', BUCKETS);
    options.rateLimits.onRefusal((bucket) => (byBucket.get(bucket) ?? refusals.labels({ bucket })).inc());

    this.operationNameLimit = options.graphqlOperationNames ?? 100;
    this.operations = new Counter({
      name: 'fieldline_graphql_operations_total',
      help: `GraphQL operations by name (the first ${this.operationNameLimit} distinct names; later ones are \`other\`, unnamed ones \`anonymous\`) and type.`,
      labelNames: ['operation_name', 'operation_type'],
      registers,
    });
    this.operationCost = new Histogram({
      name: 'fieldline_graphql_operation_cost',
      help: 'Cost of GraphQL operations in rate-limit points (the graphql bucket), by operation name and type as fieldline_graphql_operations_total.',
      labelNames: ['operation_name', 'operation_type'],
      // 1 to 65,536 points: the largest operation allowed costs 50,000 (src/graphql/schema/cost.ts maxCost).
      buckets: exponentialBuckets(1, 4, 9),
      registers,
    });
  }

  /**
   * The event pipeline's metrics: the outbox's head and the lag of the webhook dispatcher and of this process's
   * subscription tail (events and seconds), the job queues' depth and oldest ready job, webhook delivery jobs by
   * outcome with the endpoints' answer times, open WebSockets and subscriptions, and idempotency-key outcomes. The
   * database figures are read when /metrics is scraped, in one pass shared by the gauges of that scrape; a read that
   * fails leaves them out of that scrape (the failure is logged by the caller's logger, `onError`).
   */
  observePipeline(sources: PipelineSources, onError: (error: unknown) => void): void {
    const registers = [this.registry];
    // One read of the database per scrape, shared by every gauge collected in it.
    let pending: Promise<{ outbox: OutboxPosition; queues: QueueDepth[]; tail: bigint | null } | null> | null = null;
    const read = () => {
      pending ??= (async () => {
        let timer: NodeJS.Timeout | undefined;
        try {
          const tail = sources.tailSeq();
          const figures = Promise.all([sources.outbox(tail), sources.queues()]).then(([outbox, queues]) => ({ outbox, queues, tail }));
          // A scrape never waits long for the database: when every connection is busy (the moment the pool gauges
          // matter most) these figures are left out of the scrape instead of holding it.
          const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PIPELINE_READ_TIMEOUT_MS)));
          const result = await Promise.race([figures, late]);
          if (result === null) {
            figures.catch(() => {});
            onError(new Error(`the database did not answer within ${PIPELINE_READ_TIMEOUT_MS} ms`));
          }
          return result;
        } catch (error) {
          onError(error);
          return null;
        } finally {
          clearTimeout(timer);
          setImmediate(() => (pending = null));
        }
      })();
      return pending;
    };
    const gauge = (name: string, help: string, labelNames: string[], collect: (this: Gauge<string>, figures: NonNullable<Awaited<ReturnType<typeof read>>>, now: number) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          this.reset();
          const figures = await read();
          if (figures) collect.call(this, figures, Date.now());
        },
      });

    gauge('fieldline_events_outbox_head_seq', 'The seq of the newest committed event (the outbox head).', [], function ({ outbox }) {
      this.set(Number(outbox.head));
    });
    gauge('fieldline_events_lag_events', "Events committed that a reader has not handed on yet, by reader: `webhooks` (the dispatcher, shared by all processes) and `tail` (this process's subscription tail).", ['reader'], function ({ outbox, tail }) {
      if (outbox.dispatched !== null) this.set({ reader: 'webhooks' }, Math.max(0, Number(outbox.head - outbox.dispatched)));
      if (tail !== null) this.set({ reader: 'tail' }, Math.max(0, Number(outbox.head - tail)));
    });
    gauge('fieldline_events_lag_seconds', 'Age of the oldest committed event a reader has not handed on yet (0 when caught up), by reader as fieldline_events_lag_events.', ['reader'], function ({ outbox, tail }, now) {
      if (outbox.dispatched !== null) this.set({ reader: 'webhooks' }, ageOf(outbox.dispatchOldest, now));
      if (tail !== null) this.set({ reader: 'tail' }, ageOf(outbox.tailOldest, now));
    });
    gauge('fieldline_queue_jobs', 'Unfinished jobs of each job queue, by state: `ready` (due now), `deferred` (due later: retries, paused endpoints, schedules) and `active` (running in some process).', ['queue', 'state'], function ({ queues }) {
      for (const depth of queues) {
        this.set({ queue: depth.queue, state: 'ready' }, depth.ready);
        this.set({ queue: depth.queue, state: 'deferred' }, depth.deferred);
        this.set({ queue: depth.queue, state: 'active' }, depth.active);
      }
    });
    gauge('fieldline_queue_oldest_ready_job_age_seconds', 'Age of the oldest job of each queue that is due and not yet claimed (0 when none waits).', ['queue'], function ({ queues }, now) {
      for (const depth of queues) this.set({ queue: depth.queue }, ageOf(depth.oldestReady, now));
    });

    new Gauge({
      name: 'fieldline_graphql_websockets_open',
      help: 'GraphQL WebSockets open in this process.',
      registers,
      collect() {
        this.set(sources.websockets().sockets);
      },
    });
    new Gauge({
      name: 'fieldline_graphql_subscriptions_active',
      help: 'GraphQL subscriptions active on the WebSockets of this process.',
      registers,
      collect() {
        this.set(sources.websockets().subscriptions);
      },
    });

    const deliveries = new Counter({
      name: 'fieldline_webhook_deliveries_total',
      help: 'Webhook delivery jobs run by this process, by outcome: delivered (2xx), failed (another answer or none; retried on the schedule), dropped (endpoint gone, disabled or unverified, event purged), deferred (endpoint paused) or error (the attempt itself failed; the job is retried).',
      labelNames: ['outcome'],
      registers,
    });
    const requestTime = new Histogram({
      name: 'fieldline_webhook_delivery_request_duration_seconds',
      help: "Time from sending a webhook request to the endpoint's answer (or its failure), by outcome (delivered or failed).",
      labelNames: ['outcome'],
      // 10 ms to about 20 s: the per-attempt timeout (WEBHOOK_TIMEOUT_MS) is 10 s by default.
      buckets: exponentialBuckets(0.01, 2, 12),
      registers,
    });
    const byOutcome = seriesFromZero(deliveries, 'outcome', DELIVERY_OUTCOMES);
    sources.onDelivery((outcome, seconds) => {
      byOutcome.get(outcome)?.inc();
      if (seconds !== null) requestTime.observe({ outcome }, seconds);
    });

    const keys = new Counter({
      name: 'fieldline_idempotency_requests_total',
      help: 'Requests with an Idempotency-Key, by outcome: completed (first run, answer stored), failed (first run failed, key released), replayed (stored answer sent again), in_flight (409, the first is still running) or mismatch (409, the key was used for another request).',
      labelNames: ['outcome'],
      registers,
    });
    const byKeyOutcome = seriesFromZero(keys, 'outcome', IDEMPOTENCY_OUTCOMES);
    sources.onIdempotency((outcome) => byKeyOutcome.get(outcome)?.inc());
  }

  /**
   * Counts one GraphQL operation and observes its cost. Names are the clients' choice: the first
   * `graphqlOperationNames` distinct ones (100 by default) are labels for the life of the process, later ones
   * `other`; an unnamed operation is `anonymous`. A bound method: it can be passed around as a callback.
   */
  readonly graphqlOperation = (operation: OperationNote): void => {
    const labels = { operation_name: this.operationLabel(operation.name), operation_type: operation.type && OPERATION_TYPES.has(operation.type) ? operation.type : 'unknown' };
    this.operations.inc(labels);
    const { cost } = operation;
    if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) this.operationCost.observe(labels, cost);
  };

  private operationLabel(name: string | null | undefined): string {
    if (!name) return ANONYMOUS_OPERATION;
    if (this.operationNames.has(name)) return name;
    if (!OPERATION_NAME.test(name) || this.operationNames.size >= this.operationNameLimit) return OTHER_OPERATION;
    this.operationNames.add(name);
    return name;
  }

  /**
   * The middleware that times every request after it (mounted before every router). Per request: one
   * performance.now(), one `finish` listener (a shared function, no closure) and, at finish, map lookups to the
   * label child of the request's route, method and status, then prom-client's observe.
   */
  httpDuration(): RequestHandler {
    const metrics = this;
    function finished(this: Response): void {
      const seconds = (performance.now() - (this as TimedResponse)[STARTED]) / 1000;
      metrics.observeFor(this.req, this.statusCode)(seconds);
    }
    return (_req: Request, res: Response, next: NextFunction) => {
      (res as TimedResponse)[STARTED] = performance.now();
      res.on('finish', finished);
      next();
    };
  }

  private observeFor(req: Request, status: number): Observe {
    const parts = routeParts(req);
    let route = UNMATCHED;
    if (parts) {
      let paths = this.templates.get(parts.base);
      if (!paths) this.templates.set(parts.base, (paths = new Map()));
      let template = paths.get(parts.path);
      if (template === undefined) paths.set(parts.path, (template = parts.base + parts.path || '/'));
      route = template;
    }
    const method = METHODS.has(req.method) ? req.method : 'other';
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let observe = byStatus.get(status);
    if (!observe) byStatus.set(status, (observe = this.duration.labels({ method, route, status_code: String(status) }).observe));
    return observe;
  }

  /** The exposition text and its Content-Type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await Registry.merge([processMetrics(), this.registry]).metrics() };
  }
}
