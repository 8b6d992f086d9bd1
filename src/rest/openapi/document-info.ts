import { defaultBucketLimits } from '../../kernel/rate-limit.ts';
import { CURRENT_VERSION, VERSION_HEADER } from '../../kernel/versioning.ts';

// The document's info: the conventions every operation shares, written once, where the error catalog is, and who
// publishes the API under which terms.

export const API_TITLE = 'Fieldline API';

/**
 * The API is proprietary: an SPDX LicenseRef (OpenAPI 3.1 takes an SPDX expression in `identifier`), no public
 * license text to link to.
 */
const license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };

/**
 * The team, with the server's own API reference page when the server knows its public URL: contact.url must be an
 * absolute URL (the 3.1 schema's format uri; linters refuse a relative one), so without PUBLIC_URL there is none.
 * The AsyncAPI document (src/docs/asyncapi.ts) names the same contact.
 */
export function contact(publicUrl: string | undefined) {
  return { name: 'Fieldline API team', ...(publicUrl ? { url: `${publicUrl}/docs` } : {}) };
}

export function documentInfo(errorsUrl: string, versions: readonly string[], publicUrl: string | undefined) {
  const description = [
    'Multi-tenant field-service management API. Every path is under /api/v2 and, except this document and the AsyncAPI document, needs `Authorization: Bearer svc_<UUIDv7>`.',
    '',
    '- Single records are `{data}`, lists `{data, has_more, next_cursor}`; JSON is snake_case; ids are UUID v7 strings (user ids are int64).',
    "- The resource lists (`GET /<resource>`) are keyset-paginated: while has_more is true, next_cursor is the next page's cursor and the Link header its URL (on the last page next_cursor is null and there is no Link); an unknown parameter, field or operator, or an unparseable filter value, gives 400 filter.invalid. `sort` takes exactly one field (prefix - for descending; an unknown field or several: 400 sort.invalid) and is honoured on the first page only: continuation pages keep the cursor's ordering. `q` narrows the results; their order follows sort, not relevance. The other lists are never paginated.",
    '- The create and update bodies of a resource carry the record under a key named after the resource (`{"customer": {...}}`): a missing key gives 422 validation.failed with `errors.<key>` = ["is missing"], a non-object value ["must be an object"]. Unknown fields are refused (422 validation.failed, ["is not a permitted field"]), in the record and beside it (`{"customer": {...}, "extra": 1}` names `extra`): the schemas say so with additionalProperties false. In an update body omitted fields are unchanged and null clears a field whose type allows it; a field marked x-immutable accepts only its current value (a no-op), another gives 422 validation.failed ("cannot be changed").',
    '- custom_fields are keyed by custom field definition id: on create unknown ids or wrongly typed values give 422 validation.failed and required definitions must be given; on update they merge into the stored values (ids absent are kept, an id set to null is cleared).',
    `- Versioning: the ${VERSION_HEADER} request header selects the version (supported: ${versions.join(', ')}); without it the key's pinned version applies.`,
    `- Rate limits per key (per source IP when unauthenticated): read ${defaultBucketLimits.read}/min on GET, write ${defaultBucketLimits.write}/min on POST, PATCH, PUT, DELETE. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; 429 rate_limit.exceeded adds Retry-After.`,
    '- Concurrency: create, get and update return a weak ETag; PATCH and DELETE need it in If-Match (428 precondition.required, 412 precondition.failed). An update compares If-Match and writes the row in one atomic statement.',
    '- Decimals (format decimal: amounts, quantities, prices, rates) are exact: served as strings with exactly the places their pattern shows, written as a decimal string ("12.5") or a JSON number within the bounds the field states; other values give 422 validation.failed.',
    '- Success codes: create 201 with Location, get and update 200, delete 204.',
    '- Events: every write emits events (`<resource>.<action>`), delivered to the webhook endpoints subscribed to their topics as signed POSTs (Standard Webhooks): `webhooks` describes one per topic, with its body, headers and the answers expected. The same events, and the GraphQL subscriptions over graphql-ws on /graphql, are described as AsyncAPI 3.0 at /api/v2/asyncapi.json.',
    `- Errors are application/problem+json (RFC 9457) with type, title, status, code, detail, instance, request_id and doc_url (\`${errorsUrl}/<code with dots and underscores as dashes>\`). Unmatched /api/v2 paths answer 404 route.not_found; a known path with another method 405 method.not_allowed with Allow. Every code with its status, title, cause and fix: ${errorsUrl} (pages served by this server unless ERRORS_URL points elsewhere); code, status and title are also in x-error-codes.`,
  ].join('\n');
  return { title: API_TITLE, version: CURRENT_VERSION, description, contact: contact(publicUrl), license };
}
