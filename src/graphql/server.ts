import type { Express, NextFunction, Request, Response } from 'express';
import type http from 'node:http';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { createYoga, type Plugin, type YogaLogger } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Domain } from '../domain.ts';
import { runAsTenant } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import type { RateDecision } from '../kernel/rate-limit.ts';
import { VERSION_HEADER } from '../kernel/versioning.ts';
import type { GraphQLContext } from './builder.ts';
import { appErrorExtensions, maskErrorWith, requestError, withRequestId } from './errors.ts';
import { GraphqlGate } from './gate.ts';
import { buildSchema } from './schema.ts';
import { startWebSocketServer } from './websocket.ts';

// /graphql on the app's express server: graphql-yoga over HTTP (GraphiQL when a browser opens it) and
// graphql-ws over WebSocket on the same path. Both admit a request through GraphqlGate (same keys, buckets
// and versions as REST) and execute the one Pothos schema, whose resolvers call the same services as REST.

export const GRAPHQL_PATH = '/graphql';

interface ServerContext {
  req: Request;
  res: Response;
  /** Set by the gate when the request is admitted. */
  fieldline?: GraphQLContext;
}

function setRateHeaders(res: Response, decision: RateDecision | undefined): void {
  if (!decision || res.headersSent) return;
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}

/** Executes inside the caller's tenant and puts the request id on the errors of the result. */
function tenantExecution(errorsUrl: string): Plugin<{}, {}, GraphQLContext> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const ctx = args.contextValue as unknown as GraphQLContext;
      setExecuteFn((execArgs) => runAsTenant(ctx.principal.accountId, () => executeFn(execArgs)));
      return {
        onExecuteDone({ result, setResult }: { result: ExecutionResult | AsyncIterable<ExecutionResult>; setResult: (r: ExecutionResult) => void }) {
          if (Symbol.asyncIterator in result) return;
          const single = result as ExecutionResult;
          if (single.errors?.length) setResult({ ...single, errors: withRequestId(single.errors as GraphQLError[], errorsUrl, ctx.requestId) });
        },
      };
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

export function mountGraphql(app: Express, domain: Domain, config: Config, logger: Logger) {
  const errorsUrl = config.ERRORS_URL;
  const gate = new GraphqlGate(domain);

  const admission: Plugin<{}, ServerContext> = {
    async onParams({ params, context, setResult }) {
      const { req, res } = context;
      let outcome;
      try {
        outcome = await gate.admit({
          authorization: req.get('authorization'),
          version: req.get(VERSION_HEADER),
          requestId: req.requestId,
          ip: req.ip ?? 'unknown',
          bucket: gate.bucketOf(params.query, params.operationName),
        });
      } catch (error) {
        const e = error as { name?: string; code?: string };
        logger.error({ request_id: req.requestId, err_name: e?.name, err_code: e?.code }, 'GraphQL admission failed');
        outcome = { error: new AppError('internal.error', 'An unexpected error occurred; quote the request id when reporting it.') };
      }
      setRateHeaders(res, outcome.decision);
      // The app's request log reads the key and account from here, as for REST.
      req.auth = 'error' in outcome ? { error: outcome.error } : { principal: outcome.context.principal };
      if ('error' in outcome) {
        setResult({ errors: [requestError(outcome.error, errorsUrl, req.requestId)] });
        return;
      }
      context.fieldline = outcome.context;
    },
  };

  const yoga = createYoga<ServerContext, GraphQLContext>({
    schema: buildSchema() as never,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    logging: yogaLogger(logger),
    graphiql: {
      title: 'Fieldline GraphQL',
      headers: JSON.stringify({ Authorization: 'Bearer <API key>' }, null, 2),
      defaultQuery: '{\n  me {\n    account { name }\n    key { scopes }\n    apiVersion\n  }\n}\n',
    },
    maskedErrors: { maskError: maskErrorWith(errorsUrl, logger) },
    context: ({ fieldline }) => {
      if (!fieldline) throw new AppError('auth.failed');
      return fieldline;
    },
    plugins: [admission, tenantExecution(errorsUrl)],
  });

  // Same body limit as REST; a body announced larger is refused before it is read.
  const bodyLimit = (req: Request, res: Response, next: NextFunction) => {
    if (Number(req.get('content-length') ?? 0) <= config.BODY_LIMIT_BYTES) return next();
    const error = new AppError('request.body_too_large', `The body exceeds ${config.BODY_LIMIT_BYTES} bytes.`);
    res.status(error.status).json({ errors: [{ message: error.detail, extensions: appErrorExtensions(error, errorsUrl, req.requestId) }] });
  };
  app.use(GRAPHQL_PATH, bodyLimit, (req: Request, res: Response) => yoga(req, res));

  const websocket = startWebSocketServer({ yoga, gate, errorsUrl, logger, path: GRAPHQL_PATH });

  return {
    attach(server: http.Server) {
      websocket.attach(server);
    },
    close(): Promise<void> {
      return websocket.close();
    },
  };
}
