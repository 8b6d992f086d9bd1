import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { topics } from '../../events/topics.ts';
import { docSlug, errorCatalog, type ErrorCode } from '../../kernel/errors.ts';
import { MAX_LIMIT } from '../../kernel/listing.ts';
import { bodyKeyOf } from '../../kernel/resource.ts';
import { byStatus, errorCodesOf, type Operation } from './error-codes.ts';
import { exampleId, exampleMoment } from './examples.ts';
import { responseHeaders } from './headers.ts';
import { problemSchema } from './problem-schema.ts';

// The error responses. Operations answer the same few sets of codes per HTTP status (every authenticated
// operation the same 401, every list the same 400 ...), so each distinct set is one response under
// components.responses (application/problem+json, its codes in the description and in x-error-codes) and each
// code's example body is one entry of components.examples; an operation refers to the response of each status
// it can answer, which states exactly its codes for that status.

/** What every problem response shares: the errors URL and the server's base path. */
export interface ProblemRendering {
  errorsUrl: string;
  basePath: string;
}

/** What the example of a code shows, taken from the first operation that answers it. */
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
      return { reason: "Closed at the account owner's request" };
    case 'pagination.limit_too_large':
      return { max_limit: MAX_LIMIT };
    case 'validation.failed':
      return { errors: { [ctx.bodyKey ?? 'body']: ['is missing'] } };
    case 'topic.not_available':
      return { topics: [topics().find((topic) => topic.gate)?.name] };
    case 'endpoint.paused':
      return { paused_until: exampleMoment };
    default:
      // Every verification.* problem names the endpoint, stored unverified.
      return code.startsWith('verification.') ? { endpoint_id: exampleId('WebhookEndpoint') } : {};
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
    request_id: exampleId('request'),
    doc_url: `${errorsUrl}/${docSlug(code)}`,
    ...extras(code, ctx),
  };
}

export type ProblemResponses = ReturnType<typeof createProblemResponses>;

/** Registers the Problem schema; the responses and examples are registered as the operations use them. */
export function createProblemResponses(registry: OpenAPIRegistry, rendering: ProblemRendering) {
  const PROBLEM = 'Problem';
  registry.register(PROBLEM, problemSchema());
  /** Component name by "status codes...", and how many sets each status has so far. */
  const names = new Map<string, string>();
  const perStatus = new Map<number, number>();
  const contexts = new Map<ErrorCode, ExampleContext>();

  function register(status: number, codes: ErrorCode[]): string {
    const key = `${status} ${codes.join(' ')}`;
    const known = names.get(key);
    if (known) return known;
    const n = (perStatus.get(status) ?? 0) + 1;
    perStatus.set(status, n);
    const name = n === 1 ? `Problem${status}` : `Problem${status}_${n}`;
    names.set(key, name);
    registry.registerComponent('responses', name, {
      // The codes; each one's title is in x-error-codes at the top and on its error page.
      description: codes.join(', '),
      headers: status === 429 ? responseHeaders('Retry-After') : responseHeaders(),
      content: {
        'application/problem+json': {
          schema: { $ref: `#/components/schemas/${PROBLEM}` },
          examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
        },
      },
      'x-error-codes': codes,
    });
    return name;
  }

  return {
    /** The error responses of the operation at `path` (under the base path), keyed by status: references to the shared responses. */
    of(op: Operation, path: string, scopes: string[]): Record<string, { $ref: string }> {
      const bodyKey = op.kind === 'extra' ? op.extra.body?.key : 'def' in op ? bodyKeyOf(op.def) : undefined;
      const ctx = { instance: `${rendering.basePath}${path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => exampleId(name))}`, scope: scopes[0] ?? null, bodyKey };
      const codes = errorCodesOf(op);
      for (const code of codes) if (!contexts.has(code)) contexts.set(code, ctx);
      return Object.fromEntries(byStatus(codes).map(([status, group]) => [String(status), { $ref: `#/components/responses/${register(status, group)}` }]));
    },
    /** Registers the example body of every code some operation answers, in catalog order (after the operations). */
    registerExamples(): void {
      for (const code of Object.keys(errorCatalog) as ErrorCode[]) {
        const ctx = contexts.get(code);
        if (ctx) registry.registerComponent('examples', code, { value: problemExample(code, ctx, rendering.errorsUrl) });
      }
    },
  };
}
