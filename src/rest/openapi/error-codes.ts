import { errorCatalog, type ErrorCode } from '../../kernel/errors.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import type { ExtraOperation } from '../openapi-operations.ts';

// Which problem codes each operation the REST adapter mounts can answer, derived from what the kernel does
// on that path (gate.ts identify/authorize/jsonBody, ResourceService, runList, LookupService), plus the codes a
// resource declares for its hooks (def.errors) and those an extra operation declares (openapi-operations.ts).

export type Operation =
  /** `parent`: a nested resource's list or create under a record of that resource (src/kernel/nesting.ts). */
  | { kind: 'list' | 'create' | 'get' | 'update' | 'delete'; def: ResourceDefinition; parent?: ResourceDefinition }
  /** A declared extra operation; `includes` are the standard operations whose rules it also runs. */
  | { kind: 'extra'; extra: ExtraOperation; includes: Operation[] }
  /** PUT and DELETE of an attachment custom field (src/rest/attachments.ts). */
  | { kind: 'attachment_set' | 'attachment_clear'; def: ResourceDefinition }
  /** GET /files/{file_id}: with a key or a signed link. */
  | { kind: 'file' }
  | { kind: 'me' }
  | { kind: 'lookup' }
  | { kind: 'openapi' };

/** identify() + authorize(): every authenticated route (authentication, account states, version header). */
const authenticated: ErrorCode[] = [
  'auth.missing_token',
  'auth.invalid_token',
  'auth.failed',
  'auth.token_revoked',
  'account.deactivated',
  'account.inactive',
  'auth.plan_required',
  'version.invalid',
];
/** jsonBody(): every route that reads a JSON body. */
const bodyCodes: ErrorCode[] = ['request.malformed_json', 'request.unsupported_media_type', 'request.body_too_large', 'request.too_deep'];
/** The codes of a financial create's Idempotency-Key. */
const idempotencyCodes: ErrorCode[] = ['idempotency_key.required', 'idempotency_key.invalid', 'idempotency_key.in_use'];

const always: ErrorCode[] = ['rate_limit.exceeded', 'internal.error', 'request.headers_too_large', 'request.invalid'];

export function errorCodesOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(always);
  const add = (...list: ErrorCode[]) => list.forEach((c) => codes.add(c));
  if (op.kind === 'openapi') return ordered(codes);
  add(...authenticated);
  if (op.kind === 'lookup') add('filter.invalid');
  if (op.kind === 'me' || op.kind === 'lookup') return ordered(codes);
  if (op.kind === 'file') {
    add('auth.scope_missing', 'resource.not_found', 'file.signature_invalid', 'filter.invalid');
    return ordered(codes);
  }
  if (op.kind === 'extra') {
    const { extra } = op;
    if (extra.scopes.length > 0) add('auth.scope_missing');
    if (extra.body) add(...bodyCodes);
    // Every path parameter names a record that may not exist (or be of another account).
    if (extra.path.includes('{')) add('resource.not_found');
    add(...extra.errors);
    if (extra.idempotent) add(...idempotencyCodes);
    for (const included of op.includes) add(...errorCodesOf(included));
    return ordered(codes);
  }
  add('auth.scope_missing');
  const { def } = op;
  add(...((op.kind === 'attachment_set' || op.kind === 'attachment_clear' ? undefined : def.errors?.[op.kind]) ?? []));
  // Under a parent record that may not exist (or be of another account).
  if ('parent' in op && op.parent) add('resource.not_found');
  switch (op.kind) {
    case 'list':
      add('filter.invalid', 'cursor.invalid', 'cursor.invalid_filters', 'cursor.expired', 'pagination.limit_too_large');
      if (Object.keys(def.list.sorts).length > 0) add('sort.invalid');
      break;
    case 'create':
      add(...bodyCodes, 'validation.failed');
      if (def.idempotentCreate) add(...idempotencyCodes);
      // The initial status is the first live status; none configured is a status problem.
      if (def.conventions.status) add('status.transition_invalid');
      break;
    case 'get':
      add('resource.not_found');
      break;
    case 'update':
      add(...bodyCodes, 'precondition.required', 'precondition.failed', 'resource.not_found', 'validation.failed');
      if (def.conventions.status) add('status.transition_invalid');
      if (def.conventions.number) add('number.immutable');
      break;
    case 'delete':
      add('precondition.required', 'precondition.failed', 'resource.not_found');
      break;
    case 'attachment_set':
      add('request.unsupported_media_type', 'request.body_too_large', 'precondition.required', 'precondition.failed', 'resource.not_found', 'validation.failed');
      break;
    case 'attachment_clear':
      add('precondition.required', 'precondition.failed', 'resource.not_found', 'validation.failed');
      break;
  }
  return ordered(codes);
}

/** Catalog order, so the document is the same on every build. */
function ordered(codes: Set<ErrorCode>): ErrorCode[] {
  return (Object.keys(errorCatalog) as ErrorCode[]).filter((c) => codes.has(c));
}

/** Codes grouped by HTTP status, statuses ascending. */
export function byStatus(codes: ErrorCode[]): [number, ErrorCode[]][] {
  const groups = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = errorCatalog[code].status;
    groups.set(status, [...(groups.get(status) ?? []), code]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b);
}
