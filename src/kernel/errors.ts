// The one catalog of error codes: code -> HTTP status and fixed title. REST renders an AppError as
// problem+json (RFC 9457); GraphQL puts the same code in extensions.code, or, for the codes marked `input` (what
// the caller fixes by changing what it sent: validation, status, number, stale ETag, conflicts of the records it
// named), in the userErrors of a mutation's payload.

export const errorCatalog = {
  'auth.missing_token': { status: 401, title: 'Missing bearer token' },
  'auth.invalid_token': { status: 401, title: 'Invalid or expired API key' },
  'auth.failed': { status: 401, title: 'Authentication failed' },
  'auth.token_revoked': { status: 401, title: 'API key revoked' },
  'auth.scope_missing': { status: 403, title: 'Scope missing' },
  'auth.permission_denied': { status: 403, title: 'Permission denied' },
  'auth.plan_required': { status: 403, title: 'Plan without API access' },
  'account.deactivated': { status: 403, title: 'Account deactivated' },
  'account.inactive': { status: 403, title: 'User inactive' },
  'resource.not_found': { status: 404, title: 'Resource not found', input: true },
  'precondition.required': { status: 428, title: 'If-Match header required', input: true },
  'precondition.failed': { status: 412, title: 'ETag mismatch', input: true },
  'idempotency_key.required': { status: 400, title: 'Idempotency-Key header required' },
  'idempotency_key.in_use': { status: 409, title: 'Idempotency key in use' },
  'cursor.invalid': { status: 400, title: 'Invalid cursor' },
  'cursor.invalid_filters': { status: 400, title: 'Cursor does not match the filters' },
  'cursor.expired': { status: 400, title: 'Cursor expired' },
  'pagination.limit_too_large': { status: 400, title: 'Limit too large' },
  'sort.invalid': { status: 400, title: 'Invalid sort' },
  'filter.invalid': { status: 400, title: 'Invalid filter' },
  'rate_limit.exceeded': { status: 429, title: 'Rate limit exceeded' },
  'validation.failed': { status: 422, title: 'Validation failed', input: true },
  'validation.no_topics': { status: 422, title: 'No topics', input: true },
  'status.transition_invalid': { status: 422, title: 'Status not configured', input: true },
  'number.immutable': { status: 422, title: 'Number is immutable', input: true },
  'system.duplicate': { status: 409, title: 'Duplicate system', input: true },
  'contact.has_linkages': { status: 409, title: 'Contact has linkages', input: true },
  'contact.primary_linkage': { status: 409, title: 'Primary contact linkage', input: true },
  'topic.not_available': { status: 422, title: 'Topic not available', input: true },
  'endpoint.disabled': { status: 409, title: 'Endpoint disabled', input: true },
  'endpoint.paused': { status: 409, title: 'Endpoint paused', input: true },
  'verification.echo_mismatch': { status: 422, title: 'Challenge not echoed', input: true },
  'verification.timeout': { status: 422, title: 'Verification timed out', input: true },
  'verification.ssl_error': { status: 422, title: 'TLS handshake failed', input: true },
  'verification.network_unreachable': { status: 422, title: 'Endpoint unreachable', input: true },
  'verification.unknown_error': { status: 422, title: 'Verification error', input: true },
  'verification.failed': { status: 422, title: 'Verification failed', input: true },
  'internal.error': { status: 500, title: 'Internal server error' },
  // Codes the spec leaves to us ("not shown"), in the same dotted style; see "Codes we added" in docs/decisions.md.
  'service.not_ready': { status: 503, title: 'Service not ready' },
  'request.malformed_json': { status: 400, title: 'Malformed JSON' },
  'request.unsupported_media_type': { status: 415, title: 'Unsupported media type' },
  'request.body_too_large': { status: 413, title: 'Request body too large' },
  'request.too_deep': { status: 400, title: 'Input nested too deeply' },
  'request.invalid': { status: 400, title: 'Malformed HTTP request' },
  'request.headers_too_large': { status: 431, title: 'Request headers too large' },
  'route.not_found': { status: 404, title: 'No such endpoint' },
  'method.not_allowed': { status: 405, title: 'Method not allowed' },
  'version.invalid': { status: 400, title: 'Unknown API version' },
  'lead.already_converted': { status: 409, title: 'Lead already converted', input: true },
  'estimate.not_accepted': { status: 409, title: 'Estimate not accepted', input: true },
  'estimate.already_converted': { status: 409, title: 'Estimate already converted', input: true },
  'idempotency_key.invalid': { status: 400, title: 'Invalid Idempotency-Key' },
  'invoice.has_payments': { status: 409, title: 'Invoice has payments', input: true },
  'job.already_invoiced': { status: 409, title: 'Job already invoiced', input: true },
  'stock.insufficient': { status: 409, title: 'Insufficient stock', input: true },
  'stock_location.has_stock': { status: 409, title: 'Stock location holds stock', input: true },
  'sales_order.already_invoiced': { status: 409, title: 'Sales order already invoiced', input: true },
  'purchase_order.has_receipts': { status: 409, title: 'Purchase order has receipts', input: true },
  'purchase_order.cancelled': { status: 409, title: 'Purchase order cancelled', input: true },
  'ticket.already_converted': { status: 409, title: 'Ticket already converted', input: true },
  'ticket.closed': { status: 409, title: 'Ticket closed', input: true },
  'recurring.ended': { status: 409, title: 'Series ended', input: true },
  'recurring.occurrence_created': { status: 409, title: 'Occurrence already created', input: true },
  // GraphQL limits (src/graphql/transport/limits.ts; docs/graphql-limits.md): an operation over a limit is refused before it runs.
  'graphql.cost_exceeded': { status: 400, title: 'Query cost too high' },
  'graphql.depth_exceeded': { status: 400, title: 'Query nested too deeply' },
  'graphql.too_many_aliases': { status: 400, title: 'Too many aliases' },
  'graphql.too_many_tokens': { status: 400, title: 'Query document too long' },
  'graphql.variable_undeclared': { status: 400, title: 'Variable not declared' },
  'graphql.result_too_large': { status: 400, title: 'Result too large' },
  'graphql.operation_not_allowed': { status: 400, title: 'Operation not persisted' },
  'graphql.websocket_required': { status: 400, title: 'Subscription needs WebSocket' },
  'graphql.parse_failed': { status: 400, title: 'GraphQL syntax error' },
  'graphql.validation_failed': { status: 400, title: 'GraphQL document invalid' },
  'graphql.variables_invalid': { status: 400, title: 'GraphQL variables invalid' },
  'websocket.too_many_connections': { status: 429, title: 'Too many open sockets' },
  'websocket.too_many_subscriptions': { status: 429, title: 'Too many active subscriptions' },
  'subscription.resync_required': { status: 409, title: 'Subscription must resync' },
  // Attachment files (src/kernel/attachments.ts; docs/decisions.md, Attachments).
  'file.signature_invalid': { status: 403, title: 'Download link invalid or expired' },
} as const satisfies Record<string, { status: number; title: string; input?: true }>;

export type ErrorCode = keyof typeof errorCatalog;

export type FieldErrors = Record<string, string[]>;

/**
 * What a refusal of a list request is about, in the kernel's terms: each adapter names it in its own words (REST
 * `status[in]`, `limit`, `custom_fields[<id>]`; GraphQL `filter.statusIn`, `first`, `filter.customFields[<id>]`).
 */
export type ErrorSubject =
  | { kind: 'limit' | 'cursor' | 'sort' | 'q' }
  | { kind: 'filter'; field: string; op?: string }
  | { kind: 'custom_field'; id: string }
  /** Another parameter of a read, by its declared (snake_case) name: system_type. */
  | { kind: 'parameter'; name: string };

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string | null;
  /** Top-level problem fields that some codes add (required_scope, errors, max_limit, reason ...). */
  readonly extra: Record<string, unknown>;
  /** Response headers that belong to this error (Retry-After). */
  readonly headers: Record<string, string>;
  /** What the error is about, when an adapter names it (subjectError): with `reason`, which words the detail. */
  subject?: ErrorSubject;
  /** The detail with the subject named as the adapter names it. */
  reason?: (name: string) => string;
  /** Values an adapter's own wording needs, never served as such: the record's current ETag of a 412. */
  values?: { currentEtag?: string };

  constructor(code: ErrorCode, detail?: string | null, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(detail ?? errorCatalog[code].title);
    this.name = 'AppError';
    this.code = code;
    this.status = errorCatalog[code].status;
    this.title = errorCatalog[code].title;
    this.detail = detail ?? null;
    this.extra = extra;
    this.headers = headers;
  }
}

/**
 * An error about a subject the adapters name (ErrorSubject): `reason(name)` words it around that name. Its `detail`
 * (for logs and any reader that names nothing) names the subject in the kernel's terms.
 */
export function subjectError(code: ErrorCode, subject: ErrorSubject, reason: (name: string) => string, extra: Record<string, unknown> = {}): AppError {
  const error = new AppError(code, reason(neutralName(subject)), extra);
  error.subject = subject;
  error.reason = reason;
  return error;
}

function neutralName(subject: ErrorSubject): string {
  if (subject.kind === 'filter') return `the ${subject.field} filter (${subject.op})`;
  if (subject.kind === 'custom_field') return `the custom field filter ${subject.id}`;
  if (subject.kind === 'parameter') return subject.name;
  return subject.kind;
}

/** The detail of an error as an adapter words it: the subject (if any) named by `name`, else the detail. */
export function detailIn(error: AppError, name: (subject: ErrorSubject) => string): string | null {
  return error.subject && error.reason ? error.reason(name(error.subject)) : error.detail;
}

/**
 * A list refusal's subject by the name of its list parameter, as REST's query string and MCP's list tool arguments
 * both name them: limit, cursor, sort, q, status[in], custom_fields[<id>].
 */
export function listParameterName(subject: ErrorSubject): string {
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

/**
 * The most fields one validation.failed names. A body may hold any number of unknown fields (40,000 keys of
 * custom_fields fit in a 1 MB body), and each would be an entry of `errors`, a word of the detail and, on GraphQL, a
 * userError: megabytes of answer and a second of CPU. The first MAX_FIELD_ERRORS are named, and the detail says
 * how many there were.
 */
export const MAX_FIELD_ERRORS = 50;

export function validationError(errors: FieldErrors, detail?: string): AppError {
  const fields = Object.keys(errors);
  if (fields.length <= MAX_FIELD_ERRORS) {
    return new AppError('validation.failed', detail ?? `Invalid fields: ${fields.map((field) => `{${field}}`).join(', ')}`, { errors });
  }
  const named = fields.slice(0, MAX_FIELD_ERRORS);
  const kept: FieldErrors = {};
  // Own keys always: a field name may be one the client chose ("__proto__").
  for (const field of named) Object.defineProperty(kept, field, { value: errors[field], enumerable: true, writable: true, configurable: true });
  const counted = `${fields.length} fields are invalid; the first ${MAX_FIELD_ERRORS} are named`;
  return new AppError('validation.failed', detail ? `${detail} (${counted})` : `${counted}: ${named.map((field) => `{${field}}`).join(', ')}`, { errors: kept });
}

export function notFound(resource: string): AppError {
  return new AppError('resource.not_found', `${resource} not found`);
}

/** Whether the caller fixes this error by changing what it sent (GraphQL answers it in a payload's userErrors). */
export function isInputError(code: ErrorCode): boolean {
  return 'input' in errorCatalog[code];
}

export function docSlug(code: string): string {
  return code.replace(/[._]/g, '-');
}
