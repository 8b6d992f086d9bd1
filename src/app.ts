import express, { type Express } from 'express';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { buildDomain, type Domain } from './domain.ts';
import type { Clock } from './kernel/clock.ts';
import { AppError, docSlug } from './kernel/errors.ts';
import { newId } from './kernel/ids.ts';
import type { Bucket } from './kernel/rate-limit.ts';
import { createLogger } from './logger.ts';
import { buildApiRouter } from './rest/api-router.ts';
import { buildOpenApiDocument } from './rest/openapi/document.ts';
import { requestId } from './rest/request-id.ts';
import { mountGraphql } from './graphql/server.ts';

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
  /** Starts an HTTP server (with the GraphQL WebSocket endpoint) on the port; 0 picks a free one. */
  listen(port: number, host?: string): Promise<{ server: http.Server; port: number }>;
  close(): Promise<void>;
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
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, errorsUrl: string): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  const problem = new AppError(
    error.code === 'HPE_HEADER_OVERFLOW' ? 'request.headers_too_large' : 'request.invalid',
    error.code === 'HPE_HEADER_OVERFLOW' ? 'The request line and headers exceed the server limit (16 KiB).' : 'The HTTP request could not be parsed.',
  );
  const body = JSON.stringify({
    type: `${errorsUrl}/${problem.code}`,
    title: problem.title,
    status: problem.status,
    code: problem.code,
    detail: problem.detail,
    instance: requestPath(error),
    request_id: newId(),
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
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Paths are case-sensitive everywhere (/API/V2/... and /GRAPHQL are not the API); set before the first use().
  app.set('case sensitive routing', true);
  app.set('trust proxy', config.TRUST_PROXY ?? false);
  app.use(requestId);
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const auth = req.auth && 'principal' in req.auth ? req.auth.principal : null;
      logger.info(
        {
          request_id: req.requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          key_id: auth?.key.id,
          account_id: auth?.accountId,
        },
        'request',
      );
    });
    next();
  });
  // [ops] health, readiness and metrics (src/ops/) are mounted on this line.
  let openapi: object | null = null;
  app.use('/api/v2', buildApiRouter(domain, config, logger, () => (openapi ??= buildOpenApiDocument({ errorsUrl: config.ERRORS_URL, versions: domain.versions.supported }))));
  const graphql = mountGraphql(app, domain, config, logger, { limits: deps.graphqlLimits ?? true, redis: deps.redis });
  // [pages] the landing page, the API reference and the GraphiQL assets (src/pages/) are mounted on this line.
  // [errors] the error pages (src/pages/errors.ts) are mounted on this line.
  const servers = new Set<http.Server>();

  return {
    express: app,
    domain,
    async listen(port, host = config.HOST) {
      const server = http.createServer(app);
      server.on('clientError', (error, socket) => answerClientError(error as NodeJS.ErrnoException, socket, config.ERRORS_URL));
      graphql.attach(server);
      servers.add(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address();
      return { server, port: typeof address === 'object' && address ? address.port : port };
    },
    async close() {
      await graphql.close();
      await Promise.all(
        [...servers].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      );
    },
  };
}
