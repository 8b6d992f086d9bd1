import type { Logger } from 'pino';
import { wireText } from '../kernel/api-text.ts';
import { AppError, detailIn, docSlug, type ErrorSubject, type FieldErrors } from '../kernel/errors.ts';

// The domain's structured errors in MCP's words: a tool error (isError) whose text says the error in one line and
// then carries the problem as JSON (the catalog's code, status and title, the detail, the field errors and the
// code's own members such as required_scope or max_limit), so an agent can correct its call. An unknown failure is
// internal.error with the request id, never its message or stack.

/** A list refusal's subject, named as the list tools' arguments are (the OpenAPI list parameters' names). */
function argumentName(subject: ErrorSubject): string {
  switch (subject.kind) {
    case 'filter':
      return subject.op === undefined ? subject.field : `${subject.field}[${subject.op}]`;
    case 'custom_field':
      return `custom_fields[${subject.id}]`;
    case 'parameter':
      return subject.name;
    default:
      return subject.kind;
  }
}

/** The error as the catalog's AppError (an unknown failure is logged by kind and becomes internal.error). */
export function asAppError(error: unknown, requestId: string, logger: Logger): AppError {
  if (error instanceof AppError) return error;
  const e = error as { name?: string; code?: string; message?: string };
  logger.error({ request_id: requestId, err_name: e?.name, err_code: e?.code }, 'unhandled error in an MCP tool');
  logger.debug({ request_id: requestId, err_message: String(e?.message ?? '').slice(0, 500) }, 'unhandled error detail');
  return new AppError('internal.error', 'An unexpected error occurred; quote the request_id when reporting it.');
}

/** The problem of an error: code, status, title, detail, field errors, doc_url, request_id and the code's own members. */
export function problemOf(error: AppError, requestId: string, errorsUrl: string): Record<string, unknown> {
  const detail = detailIn(error, argumentName);
  const errors = error.extra.errors as FieldErrors | undefined;
  return {
    code: error.code,
    status: error.status,
    title: error.title,
    detail: detail === null ? null : wireText(detail),
    ...error.extra,
    ...(errors ? { errors: Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, messages.map((message) => wireText(message))])) } : {}),
    ...(error.headers['Retry-After'] ? { retry_after_seconds: Number(error.headers['Retry-After']) } : {}),
    doc_url: `${errorsUrl}/${docSlug(error.code)}`,
    request_id: requestId,
  };
}

/**
 * The tool result of a refused call: one text block, the error in one line and then the problem as JSON
 * (`{"error": {...}}`). Not as structured content: that is what the tool's output schema describes, and clients
 * (the SDK's among them) validate any structured content against it, error or not.
 */
export function toolError(error: AppError, requestId: string, errorsUrl: string) {
  const problem = problemOf(error, requestId, errorsUrl);
  const errors = problem.errors as FieldErrors | undefined;
  const fields = errors ? ` Fields: ${Object.entries(errors).map(([field, messages]) => `${field} ${messages.join('; ')}`).join(', ')}.` : '';
  const line = `${error.code} (${error.status} ${error.title}): ${String(problem.detail ?? error.title)}${fields}`;
  return { isError: true, content: [{ type: 'text' as const, text: `${line}\n${JSON.stringify({ error: problem })}` }] };
}
