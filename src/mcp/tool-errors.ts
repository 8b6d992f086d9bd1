import type { AppError, FieldErrors } from '../kernel/errors.ts';
import { problemMembers } from '../http/problem.ts';

// The domain's structured errors in MCP's words: a tool error (isError) whose text says the error in one line and
// then carries the problem as JSON, with the members of REST's problem+json (src/http/problem.ts: the catalog's
// code, status and title, the detail, the field errors, doc_url, request_id and the code's own members such as
// required_scope or max_limit) so an agent can correct its call, and `retry_after_seconds` for what REST says in
// a Retry-After header. An unknown failure is internal.error with the request id (asAppError), never its message.

/** The problem of a refused tool call. */
export function problemOf(error: AppError, requestId: string, errorsUrl: string): Record<string, unknown> {
  return {
    ...problemMembers(error, requestId, errorsUrl),
    ...(error.headers['Retry-After'] ? { retry_after_seconds: Number(error.headers['Retry-After']) } : {}),
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
