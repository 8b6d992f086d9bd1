import { createHash, timingSafeEqual } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/client.ts';
import type { Domain } from '../domain.ts';
import { AppError } from '../kernel/errors.ts';
import { sendProblem } from '../http/problem.ts';
import { OpsMetrics } from './metrics.ts';
import { Readiness } from './readiness.ts';
import { WorkerRegistry } from './workers.ts';


// What an operator (or an orchestrator) asks the process, outside the API and without an API key
// (docs/operations.md):
// - GET /healthz: the process answers (liveness). No database access.
// - GET /readyz: it can serve (readiness): database, migrations, background workers (readiness.ts).
// - GET /metrics: Prometheus text (metrics.ts); behind `Authorization: Bearer <METRICS_TOKEN>` when that is set.

/** The operations side of an app: its workers' registry (for /readyz) and its metrics. */
export interface Ops {
  /** Background workers /readyz requires to be running: `ops.workers.register('webhooks', () => queue.isRunning())`. */
  workers: WorkerRegistry;
  /** The app's Prometheus metrics; the GraphQL server reports operations with `ops.metrics.graphqlOperation(...)`. */
  metrics: OpsMetrics;
}

export interface OpsDeps {
  database: Database;
  domain: Pick<Domain, 'rateLimits'>;
  config: Config;
  logger: Logger;
  /** Time limit of each readiness check (default 1000 ms). */
  readinessTimeoutMs?: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The METRICS_TOKEN guard: null when the request may read /metrics, else the 401 to answer. */
function metricsGuard(token: string | undefined): (req: Request) => AppError | null {
  if (!token) return () => null;
  const expected = sha256(token);
  return (req) => {
    const authorization = req.get('authorization');
    const match = authorization ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization) : null;
    if (!match) return new AppError('auth.missing_token', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.');
    // Digests of equal length, compared in constant time: neither the token nor its length leaks through timing.
    if (!timingSafeEqual(sha256(match[1]), expected)) return new AppError('auth.invalid_token', 'The token is not the METRICS_TOKEN.');
    return null;
  };
}

/**
 * Mounts the request-duration middleware (before every router, so that it times them all) and the /healthz,
 * /readyz and /metrics routes on the app.
 */
export function mountOps(app: Express, deps: OpsDeps): Ops {
  const { config, logger } = deps;
  const metrics = new OpsMetrics({ poolStats: () => deps.database.poolStats(), rateLimits: deps.domain.rateLimits });
  const workers = new WorkerRegistry();
  const readiness = new Readiness({ database: deps.database, workers, logger, timeoutMs: deps.readinessTimeoutMs });
  const guard = metricsGuard(config.METRICS_TOKEN);
  const problem = (req: Request, res: Response, error: unknown) => sendProblem(req, res, error, config.ERRORS_URL, logger);

  app.use(metrics.httpDuration());

  app.get('/healthz', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    try {
      const report = await readiness.check();
      if (report.ready) return void res.json({ status: 'ready', checks: report.checks });
      problem(req, res, new AppError('service.not_ready', `Not ready: ${report.failures.join('; ')}.`));
    } catch (error) {
      problem(req, res, error);
    }
  });

  app.get('/metrics', async (req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    const refusal = guard(req);
    if (refusal) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      return problem(req, res, refusal);
    }
    try {
      const { contentType, text } = await metrics.scrape();
      res.type(contentType).send(text);
    } catch (error) {
      problem(req, res, error);
    }
  });

  return { workers, metrics };
}
