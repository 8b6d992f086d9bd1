import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

// One JSON line per HTTP request, written when the answer is finished. Adapters note what only they know on
// the response (the error code of a problem, the GraphQL operation) through the functions below. Never a token,
// a header value or a body: the path without its query string, the key's id, the account's id.

/** A GraphQL operation as the log and the metrics report it. */
export interface OperationNote {
  /** The operation's name; null when anonymous (or when the document could not be read). */
  name: string | null;
  /** query, mutation or subscription; null when the document could not be read. */
  type: string | null;
  /** The requested cost of the cost analysis; null when the analysis did not run. */
  cost: number | null;
}

interface Notes {
  errorCode?: string;
  operation?: OperationNote;
}

const notesOf = new WeakMap<Response, Notes>();

function notes(res: Response): Notes {
  let found = notesOf.get(res);
  if (!found) notesOf.set(res, (found = {}));
  return found;
}

/** The catalog code of the error this response answers (the first one noted wins). */
export function noteErrorCode(res: Response, code: string): void {
  notes(res).errorCode ??= code;
}

export function noteOperation(res: Response, operation: OperationNote): void {
  notes(res).operation = operation;
}

/** Probes a load balancer or Prometheus sends every few seconds: logged at debug when they succeed. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const auth = req.auth && 'principal' in req.auth ? req.auth.principal : null;
      const noted = notesOf.get(res);
      const status = res.statusCode;
      const line = {
        request_id: req.requestId,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        key_id: auth?.key.id,
        account_id: auth?.accountId,
        error_code: noted?.errorCode,
        operation_name: noted?.operation?.name ?? undefined,
        operation_type: noted?.operation?.type ?? undefined,
        cost: noted?.operation?.cost ?? undefined,
      };
      if (status >= 500) logger.error(line, 'request');
      else if (status < 400 && PROBES.has(line.path)) logger.debug(line, 'request');
      else logger.info(line, 'request');
    });
    next();
  };
}
