import type { Express, NextFunction, Request, Response } from 'express';
import type http from 'node:http';
import type { Redis } from 'ioredis';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { createYoga, type GraphiQLOptions, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Domain } from '../../domain.ts';
import { runAsTenant } from '../../kernel/context.ts';
import { AppError } from '../../kernel/errors.ts';
import { rateHeaders } from '../../http/admission.ts';
import type { RateDecision } from '../../kernel/rate-limit.ts';
import { VERSION_HEADER } from '../../kernel/versioning.ts';
import type { GraphQLContext } from '../schema/builder.ts';
import { appErrorExtensions, catalogErrors, maskErrorWith, withRequestId } from '../schema/errors.ts';
import { GraphqlGate } from './gate.ts';
import { readOperation } from './request.ts';
import { documentRefusal } from './document-limits.ts';
import { graphqlLimits, operationAdmission, type LimitsOptions } from './limits.ts';
import { ExpensiveOperations } from './concurrency.ts';
import { meterSchema, OperationCost } from '../schema/meter.ts';
import { jitExecution } from './jit.ts';
import { memoryStore, persistedOperations, redisStore, type Manifest } from './persisted.ts';
import { buildSchema } from '../schema/schema.ts';
import { startWebSocketServer } from './websocket.ts';
import { operationReport, type OperationReporter } from './operation-report.ts';
import { noteErrorCode } from '../../http/request-log.ts';

// /graphql on the app's express server: graphql-yoga over HTTP (GraphiQL when a browser opens it) and
// graphql-ws over WebSocket on the same path. Both admit a request through GraphqlGate (same keys, buckets
// and versions as REST) and execute the one Pothos schema, whose resolvers call the same services as REST.
// Over HTTP, admission is an express middleware in front of yoga, so that every response of the path
// (transport errors included) has taken from a bucket, carries RateLimit-* headers and answers catalog codes.

export const GRAPHQL_PATH = '/graphql';

export interface ServerContext {
  req: Request;
  res: Response;
  /** The admitted context of a WebSocket operation (HTTP requests: see `admitted` in mountGraphql). */
  fieldline?: GraphQLContext;
}

function setRateHeaders(res: Response, decision: RateDecision | undefined): void {
  if (decision && !res.headersSent) res.set(rateHeaders(decision));
}

/** Executes inside the caller's tenant and masks the errors of the result, with the request id on each. */
function tenantExecution(mask: ReturnType<typeof maskErrorWith>): Plugin<{}, {}, GraphQLContext> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const ctx = args.contextValue as unknown as GraphQLContext;
      setExecuteFn((execArgs) => runAsTenant(ctx.principal.accountId, () => executeFn(execArgs)));
      return {
        onExecuteDone({ result, setResult }: { result: ExecutionResult | AsyncIterable<ExecutionResult>; setResult: (r: ExecutionResult) => void }) {
          if (Symbol.asyncIterator in result) return;
          const single = result as ExecutionResult;
          if (single.errors?.length) setResult({ ...single, errors: withRequestId(single.errors as GraphQLError[], mask, ctx.requestId) });
        },
      };
    },
  };
}

/**
 * Every answer of an admitted HTTP request reports extensions.cost (parse and validation errors included) and
 * carries the RateLimit-* headers of the points bucket as the operation left it.
 */
function costReport(admitted: WeakMap<Request, GraphQLContext>, errorsUrl: string): Plugin<{}, ServerContext, GraphQLContext> {
  return {
    onResultProcess({ result, setResult, serverContext }) {
      const ctx = serverContext?.req ? admitted.get(serverContext.req) : undefined;
      if (!ctx || Array.isArray(result) || Symbol.asyncIterator in (result as object)) return;
      setRateHeaders(serverContext.res, ctx.cost.decision);
      const single = result as ExecutionResult;
      // Errors raised before execution (parse, validation, variables) reach the answer without the request id, and
      // yoga's validation errors without masking: each gets its catalog code and the request id here.
      const errors = single.errors?.some((error) => !error.extensions?.requestId) ? catalogErrors(single.errors as GraphQLError[], errorsUrl, ctx.requestId) : single.errors;
      if (!single.extensions?.cost || errors !== single.errors) setResult({ ...single, ...(errors ? { errors } : {}), extensions: { ...single.extensions, cost: single.extensions?.cost ?? ctx.cost.report() } });
    },
  };
}

function yogaLogger(logger: Logger): YogaLogger {
  return {
    debug: () => {},
    info: () => {},
    warn: (...args: unknown[]) => logger.warn({ source: 'graphql-yoga' }, String(args[0]).slice(0, 200)),
    // yoga logs the original of every masked error; maskError already logged what is safe to log.
    error: () => {},
  };
}

/** The settings the GraphQL endpoint reads (the app's config: src/config.ts). */
export interface GraphqlConfig {
  ERRORS_URL: string;
  BODY_LIMIT_BYTES: number;
  GRAPHQL_PERSISTED_OPERATIONS?: { manifest: Manifest };
  GRAPHQL_APQ: 'on' | 'off';
  GRAPHQL_APQ_TTL_SECONDS: number;
  GRAPHQL_EXPENSIVE_COST: number;
  GRAPHQL_EXPENSIVE_PER_KEY: number;
  GRAPHQL_EXPENSIVE_PER_PROCESS: number;
  GRAPHQL_EXPENSIVE_WAIT_MS: number;
}

/** The IDE page a browser's GET /graphql receives (yoga's `graphiql` and `renderGraphiQL` options); the app's. */
export interface GraphqlIde {
  graphiql: (request: globalThis.Request, context: ServerContext) => GraphiQLOptions;
  renderGraphiQL: (options: GraphiQLOptions) => string;
}

export function mountGraphql(
  app: Express,
  domain: Domain,
  config: GraphqlConfig,
  logger: Logger,
  options: { limits: boolean; redis?: Redis; reportOperation?: OperationReporter; ide?: GraphqlIde } = { limits: true },
) {
  const reportOperation = options.reportOperation ?? (() => {});
  const errorsUrl = config.ERRORS_URL;
  const gate = new GraphqlGate(domain);
  /** The context of each admitted HTTP request, for yoga's context factory. */
  const admitted = new WeakMap<Request, GraphQLContext>();

  const sendError = (req: Request, res: Response, error: AppError, decision?: RateDecision) => {
    noteErrorCode(res, error.code);
    for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
    res.status(error.status).json({
      errors: [{ message: error.detail ?? error.title, extensions: appErrorExtensions(error, errorsUrl, req.requestId) }],
      extensions: { cost: new OperationCost(decision).report() },
    });
  };

  const mask = maskErrorWith(errorsUrl, logger);
  const expensive = new ExpensiveOperations({
    threshold: config.GRAPHQL_EXPENSIVE_COST,
    perKey: config.GRAPHQL_EXPENSIVE_PER_KEY,
    perProcess: config.GRAPHQL_EXPENSIVE_PER_PROCESS,
    waitMs: config.GRAPHQL_EXPENSIVE_WAIT_MS,
  });
  const limitsOptions: LimitsOptions | null = options.limits ? { errorsUrl, charge: (ctx, analysis) => gate.charge(ctx, analysis), expensive } : null;

  // Admission of every HTTP request to /graphql, before yoga sees it; the order of the REST gate:
  // 1. read the operation (its failures kept), authenticate (its failure kept), take one request from the bucket
  //    of the key or source IP: write for a mutation, read for a query; when the operation cannot be read,
  //    by method (GET read, anything else write). RateLimit-* headers on every response from here on.
  // 2. 429 rate_limit.exceeded; GraphiQL's page (no key needed); 404/405 for another path or method; the
  //    authentication failure; version.invalid; then the body's own problems (415, 413, 400). CORS preflights never
  //    get here: src/http/cors.ts answers them.
  const admission = async (req: Request, res: Response, next: NextFunction) => {
    let charged: RateDecision | undefined;
    try {
      const reading = await readOperation(req, config.BODY_LIMIT_BYTES);
      const identity = await gate.identify({ authorization: req.get('authorization'), ip: req.ip ?? 'unknown' });
      const { decision } = identity;
      charged = decision;
      setRateHeaders(res, decision);
      // The app's request log reads the key and account from here, as for REST.
      req.auth = identity.principal ? { principal: identity.principal } : { error: identity.authError ?? new AppError('auth.failed') };
      if (identity.rateError) return sendError(req, res, identity.rateError, decision);
      if ('toYoga' in reading) return next();
      const refusal = 'refusal' in reading ? reading.refusal : null;
      if (refusal && (refusal.code === 'route.not_found' || refusal.code === 'method.not_allowed')) return sendError(req, res, refusal, decision);
      // A document too long or too deeply nested for the parser is refused before anything parses it.
      const tooBig = options.limits && 'params' in reading ? documentRefusal(reading.params.query) : null;
      const type = !tooBig && 'params' in reading ? gate.operationType(reading.params.query, reading.params.operationName) : 'query';
      if (type === 'mutation' && req.method === 'GET') {
        return sendError(req, res, new AppError('method.not_allowed', 'A mutation must be sent with POST.', {}, { Allow: 'POST' }), decision);
      }
      // Subscriptions are served over WebSocket only, where each is admitted, capped per key and re-checked.
      if (type === 'subscription') {
        return sendError(req, res, new AppError('graphql.websocket_required', 'Subscriptions are served over WebSocket (graphql-transport-ws) on this path, not over HTTP.'), decision);
      }
      admitted.set(req, gate.contextOf(identity, req.get(VERSION_HEADER), req.requestId));
      if (refusal ?? tooBig) return sendError(req, res, (refusal ?? tooBig)!, decision);
      next();
    } catch (error) {
      if (res.headersSent) return;
      if (error instanceof AppError) return sendError(req, res, error, charged);
      const e = error as { name?: string; code?: string };
      logger.error({ request_id: req.requestId, err_name: e?.name, err_code: e?.code }, 'GraphQL admission failed');
      sendError(req, res, new AppError('internal.error', 'An unexpected error occurred; quote the request id when reporting it.'));
    }
  };

  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema: (options.limits ? meterSchema(buildSchema()) : buildSchema()) as never,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    // CORS is the app's (src/http/cors.ts, from CORS_ORIGINS), in front of admission; yoga's own would allow any origin.
    cors: false,
    logging: yogaLogger(logger),
    // GraphiQL's page: the app's (src/graphql/graphiql.ts), with its assets served by this server (/assets/graphiql/...).
    ...(options.ide ?? { graphiql: false }),
    maskedErrors: { maskError: (error) => mask(error) },
    // HTTP requests were admitted above; WebSocket operations bring their context (websocket.ts).
    context: ({ fieldline, req }) => {
      const context = fieldline ?? admitted.get(req);
      if (!context) throw new AppError('auth.failed');
      return context;
    },
    // graphql-jit first (jit.ts): the execute function the limits wrap (with the meter's abort signal, which
    // graphql-js honours when it runs instead), and that tenantExecution wraps in turn.
    plugins: [
      // Persisted operations (persisted.ts): an id becomes its document before yoga checks the parameters.
      persistedOperations({
        errorsUrl,
        manifest: config.GRAPHQL_PERSISTED_OPERATIONS?.manifest,
        apq: config.GRAPHQL_APQ === 'on',
        store: options.redis ? redisStore(options.redis, config.GRAPHQL_APQ_TTL_SECONDS, logger) : memoryStore(),
        isMutation: (query, operationName) => gate.isMutation(query, operationName),
      }),
      jitExecution(),
      ...(limitsOptions ? [graphqlLimits(limitsOptions)] : []),
      tenantExecution(mask),
      costReport(admitted, errorsUrl),
      operationReport(admitted, reportOperation),
    ],
  });

  app.use(GRAPHQL_PATH, admission, (req: Request, res: Response) => {
    // yoga builds a URL from the Host header, which the client chooses; nothing here uses it, so a Host that no
    // URL can hold is replaced rather than answered with 500.
    if (!URL.canParse(`http://${req.headers.host ?? ''}/`) || !req.headers.host) req.headers.host = 'localhost';
    return yoga(req, res);
  });

  const websocket = startWebSocketServer({
    yoga,
    gate,
    errorsUrl,
    logger,
    path: GRAPHQL_PATH,
    maxMessageBytes: config.BODY_LIMIT_BYTES,
    reportOperation,
    subscriptions: { admit: limitsOptions ? operationAdmission(limitsOptions) : null, mask },
  });

  return {
    attach(server: http.Server) {
      websocket.attach(server);
    },
    /** The open WebSockets and their active subscriptions (/metrics). */
    stats(): { sockets: number; subscriptions: number } {
      return websocket.stats();
    },
    /** Closes the WebSockets (1001, "Server shutting down"); resolves with how many were open. */
    close(): Promise<number> {
      return websocket.close();
    },
  };
}
