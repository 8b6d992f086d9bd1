import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import { docSlug, errorCatalog, type ErrorCode } from '../../kernel/errors.ts';
import { MAX_LIMIT } from '../../kernel/listing.ts';
import { byStatus, errorCodesOf, type Operation } from './error-codes.ts';
import { responseHeaders } from './headers.ts';

// The error responses of an operation: one per HTTP status it can answer, each application/problem+json with
// its codes in x-error-codes, the response headers, and one example body per code.

/** What every problem response shares: the registered Problem schema, the errors URL and the server's base path. */
export interface ProblemRendering {
  schema: ZodType;
  errorsUrl: string;
  basePath: string;
}

/** What an example problem of an operation shows: the scope it needs and the key its body travels under. */
interface ExampleContext {
  instance: string;
  scope: string | null;
  bodyKey?: string;
}

function extras(code: ErrorCode, ctx: ExampleContext): Record<string, unknown> {
  switch (code) {
    case 'auth.scope_missing':
      return { required_scope: ctx.scope, granted_scopes: [] };
    case 'account.deactivated':
      return { reason: 'Closed at the account owner\'s request' };
    case 'pagination.limit_too_large':
      return { max_limit: MAX_LIMIT };
    case 'validation.failed':
      return { errors: { [ctx.bodyKey ?? 'body']: ['is missing'] } };
    default:
      return {};
  }
}

/** An example problem body of a code, as sendProblem() renders it. */
function problemExample(code: ErrorCode, ctx: ExampleContext, errorsUrl: string): Record<string, unknown> {
  const { status, title } = errorCatalog[code];
  return {
    type: `${errorsUrl}/${code}`,
    title,
    status,
    code,
    detail: null,
    instance: ctx.instance,
    request_id: '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23',
    doc_url: `${errorsUrl}/${docSlug(code)}`,
    ...extras(code, ctx),
  };
}

/** The error responses of the operation at `path` (under the base path), keyed by status. */
export function problemResponses(op: Operation, path: string, scopes: string[], rendering: ProblemRendering): Record<string, ResponseConfig> {
  const bodyKey = op.kind === 'extra' ? op.extra.body?.key : 'def' in op ? op.def.name : undefined;
  const ctx = { instance: `${rendering.basePath}${path}`, scope: scopes[0] ?? null, bodyKey };
  const out: Record<string, ResponseConfig> = {};
  for (const [status, codes] of byStatus(errorCodesOf(op))) {
    const examples = Object.fromEntries(
      codes.map((code) => [code, { summary: errorCatalog[code].title, value: problemExample(code, ctx, rendering.errorsUrl) }]),
    );
    out[String(status)] = {
      description: codes.map((code) => `${code} (${errorCatalog[code].title})`).join('; '),
      headers: status === 429 ? responseHeaders('Retry-After') : responseHeaders(),
      content: { 'application/problem+json': { schema: rendering.schema, examples } },
      'x-error-codes': codes,
    } as ResponseConfig;
  }
  return out;
}
