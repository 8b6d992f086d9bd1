import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { wireText } from '../kernel/api-text.ts';
import { AppError, detailIn, docSlug, type FieldErrors } from '../kernel/errors.ts';
import { noteErrorCode } from '../http/request-log.ts';
import { restSubjectName } from './list-request.ts';

/** Field errors with their messages' field markers as wire names. */
function wireErrors(errors: FieldErrors): FieldErrors {
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((message) => wireText(message))]));
}

/** Renders an error as RFC 9457 problem+json with the spec's envelope. Unknown errors become internal.error. */
export function sendProblem(req: Request, res: Response, error: unknown, errorsUrl: string, logger: Logger): void {
  let problem: AppError;
  if (error instanceof AppError) {
    problem = error;
  } else {
    problem = new AppError('internal.error', 'An unexpected error occurred; quote the request_id when reporting it.');
    const e = error as { name?: string; code?: string; message?: string };
    // Only the kind of failure is logged at error level; its message may hold SQL or data.
    logger.error({ request_id: req.requestId, err_name: e?.name, err_code: e?.code }, 'unhandled error');
    logger.debug({ request_id: req.requestId, err_message: String(e?.message ?? '').slice(0, 500) }, 'unhandled error detail');
  }
  const body = {
    type: `${errorsUrl}/${problem.code}`,
    title: problem.title,
    status: problem.status,
    code: problem.code,
    detail: restDetail(problem),
    instance: req.originalUrl.split('?')[0],
    request_id: req.requestId,
    doc_url: `${errorsUrl}/${docSlug(problem.code)}`,
    ...problem.extra,
    ...(problem.extra.errors ? { errors: wireErrors(problem.extra.errors as FieldErrors) } : {}),
  };
  if (res.headersSent) return;
  noteErrorCode(res, problem.code);
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(body));
}

/** An error's detail in REST's words: a list refusal names its parameter as the query string does. */
export function restDetail(error: AppError): string | null {
  const detail = detailIn(error, restSubjectName);
  return detail === null ? null : wireText(detail);
}
