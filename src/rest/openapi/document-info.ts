import { defaultBucketLimits } from '../../kernel/rate-limit.ts';
import { CURRENT_VERSION, VERSION_HEADER } from '../../kernel/versioning.ts';
import { errorCatalogEntries } from './error-catalog.ts';

// The document's info: the conventions every operation shares, written once, the error catalog as a table, and
// who publishes the API under which terms.

export const API_TITLE = 'Fieldline API';

/**
 * The API is proprietary: an SPDX LicenseRef (OpenAPI 3.1 takes an SPDX expression in `identifier`), no public
 * license text to link to.
 */
const license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

/**
 * The team, with the server's own API reference page when the server knows its public URL: contact.url must be an
 * absolute URL (the 3.1 schema's format uri; linters refuse a relative one), so without PUBLIC_URL there is none.
 */
function contact(publicUrl: string | undefined) {
  return { name: 'Fieldline API team', ...(publicUrl ? { url: `${publicUrl}/docs` } : {}) };
}

export function documentInfo(errorsUrl: string, versions: readonly string[], publicUrl: string | undefined) {
  const rows = errorCatalogEntries(errorsUrl).map((e) => `| ${e.code} | ${e.status} | ${e.title} |`);
  const description = [
    'Multi-tenant field-service management API. Every path is under /api/v2 and, except this document, needs `Authorization: Bearer svc_<UUIDv7>`.',
    '',
    '- Single records are `{data}`, lists `{data, has_more, next_cursor}`; JSON is snake_case; ids are UUID v7 strings (user ids are int64).',
    "- The resource lists (`GET /<resource>`) are keyset-paginated: while has_more is true, next_cursor is the next page's cursor and the Link header its URL (on the last page next_cursor is null and there is no Link); an unknown parameter, field or operator gives 400 filter.invalid. The other lists are never paginated.",
    '- The create and update bodies of a resource carry the record under a key named after the resource (`{"customer": {...}}`): a missing key gives 422 validation.failed with `errors.<key>` = ["is missing"], a non-object value ["must be an object"].',
    `- Versioning: the ${VERSION_HEADER} request header selects the version (supported: ${versions.join(', ')}); without it the key's pinned version applies.`,
    `- Rate limits per key (per source IP when unauthenticated): read ${defaultBucketLimits.read}/min on GET, write ${defaultBucketLimits.write}/min on POST, PATCH, PUT, DELETE. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; 429 rate_limit.exceeded adds Retry-After.`,
    '- Concurrency: create, get and update return a weak ETag; PATCH and DELETE need it in If-Match (428 precondition.required, 412 precondition.failed). An update compares If-Match and writes the row in one atomic statement.',
    '- Success codes: create 201 with Location, get and update 200, delete 204.',
    `- Errors are application/problem+json (RFC 9457) with type, title, status, code, detail, instance, request_id and doc_url (\`${errorsUrl}/<code with dots and underscores as dashes>\`). Unmatched /api/v2 paths answer 404 route.not_found; a known path with another method 405 method.not_allowed with Allow. The catalog is also in x-error-codes.`,
    '',
    '| code | status | title |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
  return { title: API_TITLE, version: CURRENT_VERSION, description, contact: contact(publicUrl), license };
}
