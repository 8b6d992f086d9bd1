import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { wireText } from '../kernel/api-text.ts';
import { AppError, detailIn, docSlug, listParameterName, type FieldErrors } from '../kernel/errors.ts';
import { noteErrorCode } from './request-log.ts';

// An error as the wire formats that speak REST's words render it: RFC 9457 problem+json for REST (and for what the
// MCP endpoint answers at the HTTP level), and the same members inside an MCP tool error (src/mcp/tool-errors.ts).

/** Field errors with their messages' field markers as wire names. */
function wireErrors(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((message) => wireText(message))]));
}

/**
 * The error as the catalog's AppError. Anything else becomes internal.error; only the kind of failure is logged at
 * error level (its message may hold SQL or data), the message at debug level, and neither reaches the caller.
 */
export function asAppError(error: unknown, requestId: string, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  const e = error as { name?: string; code?: string; message?: string };
  logger.error({ request_id: requestId, err_name: e?.name, err_code: e?.code }, 'unhandled error');
  logger.debug({ request_id: requestId, err_message: String(e?.message ?? '').slice(0, 500) }, 'unhandled error detail');
  return new AppError('internal.error', 'An unexpected error occurred; quote the request_id when reporting it.');
}

/** An error's detail in REST's words: a list refusal names its parameter as the query string does. */
export function restDetail(error: AppError): string | null {
  const detail = detailIn(error, listParameterName);
  return detail === null ? null : wireText(detail);
}

/** The members of the problem of an error (without `instance`): the spec's envelope and the code's own members. */
export function problemMembers(problem: AppError, requestId: string, errorsUrl: string): Record<string, unknown> {
  return {
    type: `${errorsUrl}/${problem.code}`,
    title: problem.title,
    status: problem.status,
    code: problem.code,
    detail: restDetail(problem),
    request_id: requestId,
    doc_url: `${errorsUrl}/${docSlug(problem.code)}`,
    ...problem.extra,
    ...(problem.extra.errors ? { errors: wireErrors(problem.extra.errors as FieldErrors) } : {}),
  };
}

/** Renders an error as RFC 9457 problem+json with the spec's envelope. Unknown errors become internal.error. */
export function sendProblem(req: Request, res: Response, error: unknown, errorsUrl: string, logger: Logger): void {
  const problem = asAppError(error, req.requestId, logger);
  const { type, title, status, code, detail, ...rest } = problemMembers(problem, req.requestId, errorsUrl);
  const body = { type, title, status, code, detail, instance: req.originalUrl.split('?')[0], ...rest };
  if (res.headersSent) return;
  noteErrorCode(res, problem.code);
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
}
