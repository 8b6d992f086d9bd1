import express, { type Express } from 'express';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { buildDomain, type Domain } from './domain.ts';
import { EventQueue, QUEUES } from './events/queue.ts';
import { outboxPosition, queueDepths } from './db/pipeline-stats.ts';
import { errorText } from './kernel/logger.ts';
import { OutboxTail } from './events/tail.ts';
import type { Clock } from './kernel/clock.ts';
import { AppError, docSlug } from './kernel/errors.ts';
import { CURRENT_VERSION } from './kernel/versioning.ts';
import { newId } from './kernel/ids.ts';
import type { Bucket } from './kernel/rate-limit.ts';
import { createLogger } from './kernel/logger.ts';
import { mountOps, type Ops } from './ops/index.ts';
import { buildApiRouter } from './rest/api-router.ts';
import { buildOpenApiDocument } from './rest/openapi/document.ts';
import { requestId } from './rest/request-id.ts';
import { sendProblem } from './http/problem.ts';
import { GRAPHQL_PATH, mountGraphql } from './graphql/transport/server.ts';
import { mountMcp } from './mcp/server.ts';
import { pagesRouter } from './pages/index.ts';
import { errorPages } from './pages/errors.ts';
import { graphiqlIde } from './pages/graphiql.ts';
import { corsMiddleware } from './http/cors.ts';
import { fileStorageOf } from './files/index.ts';
import { bodyGuard } from './http/body-guard.ts';
import { requestLog } from './http/request-log.ts';

export interface AppDeps {
  database: Database;
  config: Config;
  logger?: Logger;
  clock?: Clock;
  rateLimits?: Partial<Record<Bucket, number>>;
  redis?: Redis;
  /** false turns the GraphQL cost limits off (benchmarks measure them against this baseline); never in a server. */
  graphqlLimits?: boolean;
}

export interface App {
  express: Express;
  domain: Domain;
  /** /readyz's background-worker registry and the Prometheus metrics (src/ops/). */
  ops: Ops;
  /** Starts an HTTP server (with the GraphQL WebSocket endpoint) on the port; 0 picks a free one. */
  listen(port: number, host?: string): Promise<{ server: http.Server; port: number }>;
  /**
   * Drains and stops: no new connection is accepted, idle ones are closed, WebSockets are closed (1001) and event
   * streams ended, the requests in flight finish (each answer closes its connection) for at most `timeoutMs`
   * (SHUTDOWN_TIMEOUT_MS by default), then the event pipeline stops once its deliveries under way are done.
   */
  close(options?: { timeoutMs?: number }): Promise<Drained>;
}

/** What close() drained (the final log line of a process reports it). */
export interface Drained {
  /** Requests in flight when the drain began. */
  requests: number;
  /** Requests still running at the deadline; their connections were closed. */
  cut: number;
  /** WebSockets closed. */
  websockets: number;
  /** Webhook delivery attempts under way when the queue stopped (each finished first). */
  deliveries: number;
}

/** The path of the request line Node refused, when it can be read (empty otherwise). */
function requestPath(error: NodeJS.ErrnoException): string {
  const packet = (error as { rawPacket?: Buffer }).rawPacket;
  const line = packet ? packet.subarray(0, 2048).toString('latin1').split('\r\n')[0] : '';
  const target = line.split(' ')[1] ?? '';
  return /^\/[\x21-\x7e]*$/.test(target) ? target.split('?')[0].slice(0, 200) : '';
}

/**
 * A request Node's HTTP parser refuses before express sees it (headers over Node's limit, a malformed request
 * line) is answered as problem+json with a catalog code, like every other refusal, instead of Node's bare status.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, errorsUrl: string, logger: Logger): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  const problem = new AppError(
    error.code === 'HPE_HEADER_OVERFLOW' ? 'request.headers_too_large' : 'request.invalid',
    error.code === 'HPE_HEADER_OVERFLOW' ? 'The request line and headers exceed the server limit (16 KiB).' : 'The HTTP request could not be parsed.',
  );
  const instance = requestPath(error);
  const requestId = newId();
  logger.info({ request_id: requestId, path: instance, status: problem.status, error_code: problem.code }, 'request');
  const body = JSON.stringify({
    type: `${errorsUrl}/${problem.code}`,
    title: problem.title,
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    instance,
    request_id: requestId,
    doc_url: `${errorsUrl}/${docSlug(problem.code)}`,
  });
  socket.end(
    `HTTP/1.1 ${problem.status} ${problem.title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function buildApp(deps: AppDeps): App {
  const { config } = deps;
  const logger = deps.logger ?? createLogger(config.LOG_LEVEL);
  const domain = buildDomain({
    prisma: deps.database.prisma,
    raw: deps.database.raw,
    clock: deps.clock,
    authCacheTtlMs: config.AUTH_CACHE_TTL_MS,
    rateLimits: deps.rateLimits,
    redis: deps.redis,
    apiVersions: config.API_VERSIONS,
    idempotencyLockMs: config.IDEMPOTENCY_LOCK_SECONDS * 1000,
    logger,
    fileStorage: fileStorageOf(config),
    filesUrl: `${config.PUBLIC_URL ?? ''}/api/v2/files`,
    settings: {
      webhooks: {
        allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        verifyTimeoutMs: config.WEBHOOK_VERIFY_TIMEOUT_MS,
        retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
        pauseAfterFailures: config.WEBHOOK_PAUSE_AFTER_FAILURES,
        pauseSeconds: config.WEBHOOK_PAUSE_SECONDS,
        disableAfterDays: config.WEBHOOK_DISABLE_AFTER_DAYS,
        secretsKey: config.WEBHOOK_SECRETS_KEY,
      },
      eventRetentionDays: config.EVENT_RETENTION_DAYS,
    },
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Paths are case-sensitive everywhere (/API/V2/... and /GRAPHQL are not the API); set before the first use().
  app.set('case sensitive routing', true);
  app.set('trust proxy', config.TRUST_PROXY ?? false);
  app.use(requestId);
  app.use(requestLog(logger));
  app.use(bodyGuard());
  const cors = corsMiddleware(config.CORS_ORIGINS);
  app.use('/api/v2', cors);
  app.use(GRAPHQL_PATH, cors);
  // /healthz, /readyz, /metrics and the request timing of every route below (src/ops/).
  const ops = mountOps(app, { database: deps.database, domain, config, logger });
  // The landing page, the API reference and the GraphiQL assets (src/pages/); mounted first for /api/v2/docs.
  app.use(pagesRouter(config));
  // Built once, with its first use (REST serves it; the MCP tools' input schemas are read from it).
  let openapiDocument: object | undefined;
  const openapi = () => (openapiDocument ??= buildOpenApiDocument({ errorsUrl: config.ERRORS_URL, versions: domain.versions.supported, publicUrl: config.PUBLIC_URL }));
  // The AsyncAPI document (src/docs/asyncapi.ts) is loaded with its first request, as it is built then.
  const asyncapi = async () => (await import('./docs/asyncapi.ts')).asyncApiDocument({ publicUrl: config.PUBLIC_URL, apiVersion: CURRENT_VERSION });
  app.use('/api/v2', buildApiRouter(domain, config, logger, { openapi, asyncapi }));
  const graphql = mountGraphql(app, domain, config, logger, {
    limits: deps.graphqlLimits ?? true,
    redis: deps.redis,
    reportOperation: ops.metrics.graphqlOperation,
    ide: graphiqlIde(),
  });
  // The Model Context Protocol endpoint for agents (src/mcp/): tools generated from the same declarations.
  mountMcp(app, domain, config, logger, { openapi });
  app.use('/errors', errorPages(config));
  // Any other path: the catalog's 404 as problem+json, like an unknown path under /api/v2.
  app.use((req, res) => {
    sendProblem(req, res, new AppError('route.not_found', `No endpoint ${req.method} ${req.originalUrl.split('?')[0]}.`), config.ERRORS_URL, logger);
  });
  const servers = new Set<http.Server>();
  // Requests being answered, for the drain of close(): its waits for them, and an answer given while it drains
  // closes its connection.
  const inFlight = new Set<http.ServerResponse>();
  let draining = false;
  const track = (req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (draining) res.shouldKeepAlive = false;
  };
  // The job queue (webhook deliveries, the outbox dispatcher, retention and idempotency-key purges) starts with the
  // first listen(); /readyz reports it as the `webhooks` worker.
  const queue = new EventQueue({ database: deps.database, settings: domain.settings, clock: domain.clock, deliverer: domain.webhooks.deliverer, files: domain.attachments, recurring: domain.recurring, logger });
  let queueStart: Promise<void> | null = null;
  ops.workers.register('webhooks', () => queue.isRunning());
  // The outbox tail of GraphQL subscriptions (src/events/tail.ts) starts with it: one reader per process.
  const tail = new OutboxTail(deps.database, logger);
  ops.metrics.observePipeline(
    {
      outbox: (tailSeq) => outboxPosition(deps.database.prisma, tailSeq),
      queues: () => queueDepths(deps.database.prisma, QUEUES),
      tailSeq: () => tail.position,
      websockets: () => graphql.stats(),
      onDelivery: (listener) => queue.onDelivery(listener),
      onIdempotency: (listener) => domain.idempotency.onOutcome(listener),
    },
    (error) => logger.warn({ err: errorText(error) }, 'event pipeline metrics could not be read'),
  );

  return {
    express: app,
    domain,
    ops,
    async listen(port, host = config.HOST) {
      queueStart ??= Promise.all([queue.start(), tail.start()]).then(() => {
        domain.webhooks.sink = queue;
        domain.eventStreams.source = tail;
        domain.eventStreams.startKeyChecks();
      });
      await queueStart;
      const server = http.createServer(app);
      // An idle keep-alive connection is kept longer than the proxies in front of us keep theirs (load balancers
      // commonly 60 s), so the server never closes one a client or proxy is about to reuse: with Node's default
      // (5 s) that race answers a request with a reset connection (a 502 at the proxy). Headers must still arrive
      // within headersTimeout, which has to exceed keepAliveTimeout.
      server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
      server.headersTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000;
      server.requestTimeout = Math.max(config.HTTP_REQUEST_TIMEOUT_MS, server.headersTimeout);
      server.prependListener('request', track);
      server.on('clientError', (error, socket) => answerClientError(error as NodeJS.ErrnoException, socket, config.ERRORS_URL, logger));
      graphql.attach(server);
      servers.add(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address();
      return { server, port: typeof address === 'object' && address ? address.port : port };
    },
    async close(options = {}) {
      const timeoutMs = options.timeoutMs ?? config.SHUTDOWN_TIMEOUT_MS;
      draining = true;
      const closed = [...servers].map((server) => new Promise<void>((resolve) => server.close(() => resolve())));
      for (const server of servers) server.closeIdleConnections();
      const requests = inFlight.size;
      for (const res of inFlight) {
        // An event stream (a subscription over SSE) never finishes by itself: it ends now, like a WebSocket.
        if (String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) res.end();
        else if (!res.headersSent) res.shouldKeepAlive = false;
      }
      const websockets = graphql.close();
      const deadline = Date.now() + timeoutMs;
      while (inFlight.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const cut = inFlight.size;
      for (const server of servers) server.closeAllConnections();
      await Promise.all(closed);
      domain.webhooks.sink = null;
      domain.eventStreams.source = null;
      domain.eventStreams.stop();
      const drained: Drained = { requests, cut, websockets: await websockets, deliveries: 0 };
      await tail.stop();
      drained.deliveries = await queue.stop();
      return drained;
    },
  };
}
