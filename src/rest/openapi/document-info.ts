import { defaultBucketLimits } from '../../kernel/rate-limit.ts';
import { CURRENT_VERSION, VERSION_HEADER } from '../../kernel/versioning.ts';
import { errorCatalogEntries } from './error-catalog.ts';

// The document's info: the conventions every operation shares, written once, and the error catalog as a table.

export function documentInfo(errorsUrl: string, versions: readonly string[]) {
  const rows = errorCatalogEntries(errorsUrl).map((e) => `| ${e.code} | ${e.status} | ${e.title} |`);
  const description = [
    'Multi-tenant field-service management API. Every path is under /api/v2 and, except this document, needs `Authorization: Bearer svc_<UUIDv7>`.',
    '',
    '- Single records are `{data}`, lists `{data, has_more}`; JSON is snake_case; ids are UUID v7 strings (user ids are int64).',
    `- Versioning: the ${VERSION_HEADER} request header selects the version (supported: ${versions.join(', ')}); without it the key's pinned version applies.`,
    `- Rate limits per key (per source IP when unauthenticated): read ${defaultBucketLimits.read}/min on GET, write ${defaultBucketLimits.write}/min on POST, PATCH, PUT, DELETE. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; 429 rate_limit.exceeded adds Retry-After.`,
    '- Concurrency: create, get and update return a weak ETag; PATCH and DELETE need it in If-Match (428 precondition.required, 412 precondition.failed).',
    '- Success codes: create 201 with Location, get and update 200, delete 204.',
    `- Errors are application/problem+json (RFC 9457) with type, title, status, code, detail, instance, request_id and doc_url (${errorsUrl}/<code with dots and underscores as dashes>). Unmatched /api/v2 paths answer 404 route.not_found; a known path with another method 405 method.not_allowed with Allow. The catalog is also in x-error-codes.`,
    '',
    '| code | status | title |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
  return { title: 'Fieldline API', version: CURRENT_VERSION, description };
}
