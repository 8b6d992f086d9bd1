import type { ErrorCode } from '../kernel/errors.ts';

// What a partner engineer reads on the server's error pages (/errors/<code>, src/pages/errors.ts): for every code of
// the catalog, when the server answers it (which requests, which header, field or limit), what the client does
// about it, which API answers it, and an example of what the server sends. The meaning is the REST contract's
// (../shared/spec/field-service-api-v2.md: Codes, Limits, Authentication, Events) and docs/decisions.md's for the
// codes the spec leaves to us; the numbers are the spec's limits and those of docs/graphql-limits.md. The record is
// `satisfies Record<ErrorCode, ErrorDoc>`: a code added to the catalog without its page fails the typecheck.
//
// Texts are plain prose for partners (no internals: no file names, settings or stack), with `backticks` around
// what a client types or reads (headers, fields, paths, values), which the pages render as code.

import { both, ID, OTHER_ID, rest, verification, type ErrorDoc } from './error-docs-common.ts';
import { graphqlErrorDocs } from './error-docs-graphql.ts';
import { ruleErrorDocs } from './error-docs-rules.ts';

export type { ErrorApi, ErrorDoc, ErrorExample } from './error-docs-common.ts';

const docs = {
  'auth.missing_token': {
    when: 'A request to any `/api/v2` endpoint (`GET /me` included) or any GraphQL operation without an `Authorization: Bearer <API_KEY>` header: the header is absent, uses another scheme (`Basic`, `Token`), or has nothing after `Bearer`. On the GraphQL WebSocket, the key is missing from `connectionParams.authorization` and from the upgrade request; the socket is closed with 4401.',
    fix: 'Send the API key on every request as `Authorization: Bearer svc_...`. Keys are created in the web application, on the account settings\' API keys page. Check that a proxy or HTTP library does not drop the header on redirects.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'Send the API key as Authorization: Bearer <API_KEY>.' },
  },
  'auth.invalid_token': {
    when: 'The bearer token matches no active, unexpired API key: it is mistyped or truncated, it is not of the form `svc_<UUID>`, its `expires_at` has passed, or it was issued by another installation of the service (a key of a test server sent to production).',
    fix: 'Copy the key again, whole, from where it was stored when it was created (the web application shows it once). An expired key never works again: create a new key and replace it in your configuration.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The token matches no active, unexpired API key.' },
  },
  'auth.failed': {
    when: 'The server could not verify the key because of an unexpected failure on its side. It says nothing about the key itself.',
    fix: 'Retry after a short wait, with exponential backoff. If it persists, contact support and quote the `request_id`.',
    apis: both,
    example: { instance: '/api/v2/me', detail: 'The API key could not be verified; retry later.' },
  },
  'auth.token_revoked': {
    when: 'The key was revoked, or rotated (rotating a key revokes the previous one). It takes effect within a few seconds of the revocation, on open GraphQL WebSockets too.',
    fix: 'Use the key that replaced it. A revoked key never works again; if nobody rotated it on purpose, ask an administrator of the account for a new key.',
    apis: both,
    example: { instance: '/api/v2/jobs', detail: 'This API key was revoked or rotated.' },
  },
  'auth.scope_missing': {
    when: 'The key lacks the scope the endpoint needs. Scopes are `<resource>:read` and `<resource>:write`; a write scope implies the read scope of the same resource only (`jobs:write` gives `jobs:read`, never `customers:read`). The body names the scope in `required_scope` and lists the key\'s in `granted_scopes`. Over GraphQL, a field that needs a scope the key lacks (a relation such as `Job.customer` without `customers:read`) is null with this error, and the rest of the answer is served.',
    fix: 'Use a key that has `required_scope`: a key\'s scopes are chosen when it is created, so create one with the scopes your integration needs. `GET /me` shows the scopes of the key you send. Over GraphQL, leave out the fields whose scope the key lacks.',
    apis: both,
    example: {
      instance: '/api/v2/jobs',
      detail: 'This endpoint needs the scope jobs:read.',
      fields: { required_scope: 'jobs:read', granted_scopes: ['customers:read', 'customers:write'] },
    },
  },
  'auth.permission_denied': {
    when: 'The key has the scope, but the role of the key\'s user (or the account\'s module settings) does not allow the action: for example a technician\'s key moving an estimate to `Sent`, `Accepted` or `Declined`. A key never has more rights than its user.',
    fix: 'Use a key of a user whose role allows the action (an administrator or office user for estimate decisions), or have an administrator change the user\'s role. Retrying with the same key does not help.',
    apis: both,
    example: { instance: `/api/v2/estimates/${ID}`, detail: 'The technician role may not move an estimate from Draft to Accepted: Sent, Accepted, Declined record a decision.' },
  },
  'auth.plan_required': {
    when: 'The account\'s plan has no API access. Sandbox accounts are exempt.',
    fix: 'The account owner upgrades to a plan with API access. Build and test your integration against a sandbox account meanwhile.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: "The account's plan has no API access." },
  },
  'account.deactivated': {
    when: 'The account the key belongs to is deactivated. The body may carry a `reason`.',
    fix: 'Nothing in the request can fix it: stop retrying and have the account owner contact support to reactivate the account.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The account is deactivated.', fields: { reason: "Closed at the account owner's request" } },
  },
  'account.inactive': {
    when: 'The user who owns the key is inactive (deactivated in the web application). Every key of that user answers this code.',
    fix: 'An administrator reactivates the user, or creates a key for an active user (a dedicated integration user is a good idea).',
    apis: both,
    example: { instance: '/api/v2/customers', detail: "The key's user is inactive." },
  },
  'resource.not_found': {
    when: 'The record named in the path (`GET`, `PATCH` or `DELETE /customers/{id}`, `/contacts/{id}/linkages/{linkage_id}`, `POST /estimates/{id}/convert` ...) does not exist, was deleted, or belongs to another account; the three cases are answered alike. An id that is not a well-formed id is answered the same way. Over GraphQL, a mutation answers it in its payload\'s `userErrors` (`field: ["id"]`).',
    fix: 'Use an id the API returned, with a key of the account that owns the record. A deleted record is no longer served: drop it from your copy. Records named inside a body (such as `customer_id`) are checked as fields: they answer `validation.failed`.',
    apis: both,
    example: { instance: `/api/v2/customers/${ID}`, detail: 'Customer not found' },
  },
  'precondition.required': {
    when: 'A `PATCH` or `DELETE` of a record without an `If-Match` header. (Contact linkage endpoints take no `If-Match`.) Over GraphQL, an update or delete mutation without its `ifMatch` argument, answered in the payload\'s `userErrors`.',
    fix: 'Read the record first (`GET`, or the `etag` field over GraphQL) and send its `ETag` in `If-Match` (`ifMatch`). Every create, read and update answers the record\'s current `ETag`.',
    apis: both,
    example: { instance: `/api/v2/customers/${ID}`, detail: 'This request needs an If-Match header holding the ETag of a prior GET.' },
  },
  'precondition.failed': {
    when: '`If-Match` (GraphQL `ifMatch`) is not the record\'s current `ETag`: the record changed since you read it (another client, or your own earlier write), or the value is not an ETag of ours (`*` included). Nothing was written.',
    fix: 'Read the record again, apply your change to what it holds now, and resend with the new `ETag`. Do not retry the same request unchanged: it fails the same way.',
    apis: both,
    example: { instance: `/api/v2/customers/${ID}`, detail: 'If-Match does not match the current ETag W/"1795519470592-4"' },
  },
  'idempotency_key.required': {
    when: 'A `POST` that creates an invoice, payment, sales order or inventory transfer (or an action that creates an invoice) without an `Idempotency-Key` header. GraphQL\'s financial create mutations require `idempotencyKey` in their schema instead.',
    fix: 'Generate a unique key (a UUID) for each operation you mean to perform once, send it as `Idempotency-Key`, and send the same key when you retry that operation: within 24 hours a retry with the same key and body replays the first success instead of creating a duplicate.',
    apis: rest,
    example: { instance: '/api/v2/invoices', detail: null },
  },
  'idempotency_key.in_use': {
    when: 'The `Idempotency-Key` is already taken: either the first request with it is still running (the answer has `Retry-After: 2`), or the key was used within the last 24 hours for a successful request with the same method and path but a different body (no `Retry-After`).',
    fix: 'With `Retry-After`: wait that many seconds and resend the same request with the same key; you get the first request\'s response. Without it: you reused a key for a different operation; generate a new key. A request that failed (4xx or 5xx) is not stored, so its key may be reused with a corrected body.',
    apis: rest,
    example: { instance: '/api/v2/invoices', detail: null, headers: { 'Retry-After': '2' } },
  },
  'cursor.invalid': {
    when: 'The `cursor` of a list request (GraphQL `after`) cannot be decoded: it was modified, truncated or built by hand, it belongs to another list or another account, or it was signed with a key the server has since retired.',
    fix: 'Pass back the cursor of the previous page verbatim, or follow the `Link: <...>; rel="next"` header, which carries it. Never decode or build cursors. If it still fails, start again from the first page (no `cursor`).',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The cursor cannot be decoded; pass back the cursor of the previous page verbatim.' },
  },
  'cursor.invalid_filters': {
    when: 'A continuation request (with `cursor`) whose filters, `q` or `custom_fields[...]` differ from those of the request that issued the cursor. `limit` may change between pages, and `sort` is ignored on continuation pages.',
    fix: 'Send the same filters and `q` with every page, or follow the `Link` header, which repeats them. To change the filters, start again from the first page without `cursor`.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'Filters, q or custom_fields differ from the request that issued this cursor.' },
  },
  'cursor.expired': {
    when: 'The cursor is more than 24 hours old.',
    fix: 'Start again from the first page. For a long synchronisation, resume from a filter rather than from an old cursor (`updated_at[gte]=<start of your last complete pass>` on lists that filter on `updated_at`).',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The cursor is older than 24 hours; start again from the first page.' },
  },
  'pagination.limit_too_large': {
    when: '`limit` above 100 on a list (GraphQL `first` above 100; more than 100 ids in `nodes(ids:)`; `dispatchBoard` `limit` above 1000). The body gives the largest accepted value in `max_limit`. A `limit` that is not a whole number of at least 1 is `filter.invalid`.',
    fix: 'Ask for at most `max_limit` items and fetch the rest page by page with the cursor.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'limit must be at most 100', fields: { max_limit: 100 } },
  },
  'sort.invalid': {
    when: '`sort` names a field the list cannot be sorted by, or several fields (`sort=a,b`). The detail lists the sortable fields. (GraphQL\'s `sort` argument is an enum, so a wrong field there is a GraphQL validation error instead.)',
    fix: 'Send exactly one field from the list in the detail, prefixed with `-` for descending (`sort=-created_at`). Sort is honoured on the first page only; continuation pages keep the cursor\'s order.',
    apis: rest,
    example: {
      instance: '/api/v2/customers',
      detail: 'unknown sort field "name"; sortable fields: created_at, updated_at, organization, number, status (prefix - for descending)',
    },
  },
  'filter.invalid': {
    when: 'A query parameter of a list or lookup is not accepted: an unknown parameter, filter field or operator; a value that does not parse for its field (a date that is not ISO 8601, an id that is not a UUID); a repeated parameter (`?status=a&status=b`); `q` over 200 characters or 10 terms; a `custom_fields[<id>]` whose id is not a custom field definition of the resource, whose value does not fit its type, or whose field is an attachment; a status filter naming no live status; `limit` that is not a whole number from 1; `sort` on a list that is not sortable; text that cannot be stored (a NUL character). The detail starts with the parameter at fault; over GraphQL it names the argument (`filter.statusIn`, `after`).',
    fix: 'Correct or remove the parameter the detail names. Each endpoint\'s accepted parameters and operators are in the API reference; use `field[in]=a,b` for several values of one field.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'created_at: "yesterday" is not an ISO 8601 timestamp' },
  },
  'rate_limit.exceeded': {
    when: 'The request\'s rate bucket is empty. Buckets are per API key (per source IP for requests without a valid key) and refill every minute: `read`, 1000 `GET` requests; `write`, 300 `POST`, `PATCH`, `PUT` and `DELETE` requests; `webhook_ingest`, 60 webhook management requests. GraphQL takes from a bucket of 100,000 points a minute: 100 points per request plus the operation\'s cost, and each mutation field also takes one request from `write`. The answer has `Retry-After` (seconds, with some jitter); every response has `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`.',
    fix: 'Wait `Retry-After` seconds before the next request of that bucket; nothing of the refused request was done. Pace yourself with `RateLimit-Remaining` and `RateLimit-Reset`, ask for bigger pages (`limit=100`) instead of more requests, and over GraphQL select less (see `extensions.cost`).',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The read bucket allows 1000 requests per minute.', headers: { 'Retry-After': '31' } },
  },
  'validation.failed': {
    when: 'A well-formed JSON body breaks the resource\'s rules: the record is not under its key (`{"customer": {...}}`), a required field is missing or blank, a field is unknown or cannot be set on create, a value has the wrong type, is out of range or too long, a referenced record (`customer_id`, `site_id` ...) is not one of your account\'s, a label or custom field is unknown or mistyped, a required custom field has no value, a date does not parse, or text holds a character that cannot be stored (NUL). `errors` maps each field at fault (dotted for nested ones: `lineitems.1.quantity`, `custom_fields.<id>`) to its messages. Over GraphQL, a mutation answers one `userErrors` entry per message, with the argument path in `field`.',
    fix: 'Correct every field listed in `errors` and resend. Nothing was stored. The fields each resource accepts, and their rules, are in the API reference.',
    apis: both,
    example: {
      instance: '/api/v2/customers',
      detail: 'Invalid fields: {organization}, {main_phone}',
      fields: { errors: { organization: ["can't be blank"], main_phone: ['is too long (maximum is 64 characters)'] } },
    },
  },
  'validation.no_topics': {
    when: 'A webhook endpoint registered or updated with a `topics` array that is empty or holds only blank names. Nothing is stored.',
    fix: 'Send at least one topic; `GET /webhooks/available_topics` lists the ones you can subscribe to.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'status.transition_invalid': {
    when: 'An update sends a `status` that is not exactly (case-sensitive) the `display_name` of a live status of that resource in the account: never configured, misspelled, or deleted. The detail names the value and lists the configured statuses. Any configured status may follow any other. A create also answers it when the account has no status configured for the resource.',
    fix: 'Read the account\'s statuses (`GET /statuses?related_name=Job`) and send one `display_name` exactly as listed. Statuses are configured per account in the web application.',
    apis: both,
    example: { instance: `/api/v2/customers/${ID}`, detail: '"Finished" is not a configured Customer status (configured: Active, Inactive)' },
  },
  'number.immutable': {
    when: 'An update sends a `number` different from the record\'s number (customers, jobs, estimates, invoices, sales orders, leads, deals, projects, items, tasks). Sending the record\'s own number (surrounding spaces ignored) is accepted as no change.',
    fix: 'Leave `number` out of updates. A number is chosen on create (yours, or the next one of the account) and never changes.',
    apis: both,
    example: { instance: `/api/v2/customers/${ID}`, detail: 'number cannot be changed once assigned (it is "1042")' },
  },
  'system.duplicate': {
    when: 'Creating a system on a site that already has a live system of the same `system_type` (compared ignoring case), or changing a system\'s type to one the site already has, without `confirmed: true`.',
    fix: 'If the site really has a second system of that type, resend with `"confirmed": true` in the system body. Otherwise update the existing system instead of creating another.',
    apis: both,
    example: { instance: '/api/v2/systems', detail: 'A HVAC system already exists on this site; send confirmed: true to add another.' },
  },
  'contact.has_linkages': {
    when: '`DELETE /contacts/{id}` while the contact is still linked to a customer, lead or site.',
    fix: 'List its linkages (`GET /contacts/{id}/linkages`), remove each one (`DELETE /contacts/{id}/linkages/{linkage_id}`; where the contact is the primary contact, make another contact primary first), then delete the contact.',
    apis: both,
    example: {
      instance: `/api/v2/contacts/${ID}`,
      detail: `The contact has 2 linkage(s); unlink it (DELETE /contacts/${ID}/linkages/{linkage_id}) before deleting it.`,
    },
  },
  'contact.primary_linkage': {
    when: 'Removing the linkage of a record\'s primary contact (`DELETE /contacts/{id}/linkages/{linkage_id}`), or setting `primary: false` on it (`PATCH`). A customer, lead or site with contacts always has a primary one.',
    fix: 'Make another contact primary first: link it with `"primary": true`, or `PATCH` its linkage to `"primary": true`, which demotes this one. Then unlink this contact. To move a contact to another record, link it to the new record first, then unlink the old one.',
    apis: both,
    example: {
      instance: `/api/v2/contacts/${ID}/linkages/${OTHER_ID}`,
      detail: 'This contact is the primary contact of the Customer. Link another contact as primary first, then unlink this one.',
    },
  },
  'topic.not_available': {
    when: "A webhook endpoint subscribes to a topic that is registered but not available to the account: a module gates it (the System module's system topics while it is off).",
    fix: 'Subscribe only to topics that `GET /webhooks/available_topics` lists. Topic names were renamed in 2026-05: check that you use the current names.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'endpoint.disabled': {
    when: 'A replay or another lifecycle action on a disabled webhook endpoint. A disabled endpoint receives no deliveries.',
    fix: 'Re-enable the endpoint with `PATCH /webhooks/endpoints/{id}` and a `status` of `verified` or `unverified`, then repeat the action.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'endpoint.paused': {
    when: 'A lifecycle action on a webhook endpoint that the server paused after consecutive delivery failures: its `paused_until` lies in the future.',
    fix: 'Fix what made deliveries fail (your endpoint\'s errors, timeouts or certificate), then send a test event: once it succeeds the failure counter is cleared. Otherwise wait until `paused_until`.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'verification.echo_mismatch': {
    when: `${verification}: the endpoint answered, but its body was not the challenge token verbatim.`,
    fix: 'Answer the verification request with a body that is exactly the challenge token you received: no quotes, JSON wrapping or extra text. Then retry the verification.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'verification.timeout': {
    when: `${verification}: the endpoint did not answer within the verification timeout.`,
    fix: 'Answer the challenge at once, before any slow work, and check that the endpoint is reachable from the internet. Then retry the verification.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'verification.ssl_error': {
    when: `${verification}: the TLS handshake with the endpoint failed (an expired or self-signed certificate, a certificate for another host name, an incomplete chain, or an outdated TLS version).`,
    fix: 'Serve a valid certificate for the endpoint\'s host name from a public certificate authority, with its full chain, over TLS 1.2 or later. Then retry the verification.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'verification.network_unreachable': {
    when: `${verification}: no TCP connection could be made (the host name does not resolve, the host is down, or a firewall or closed port refuses the connection).`,
    fix: 'Check the endpoint URL, its DNS record and that your firewall accepts inbound connections on its port from the internet. Then retry the verification.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'verification.unknown_error': {
    when: `${verification}: an error that is not a network error and fits no other verification code. The detail carries the error's message, truncated.`,
    fix: 'Read the detail and your endpoint\'s logs for the verification request, fix the cause, then retry the verification.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'verification.failed': {
    when: `${verification}: the verification failed for a reason no other verification code describes, or the endpoint changed while it ran (another request moved its URL or disabled it), so what it proved no longer applies.`,
    fix: 'Read the endpoint again (`GET /webhooks/endpoints/{id}`), check your endpoint\'s logs for the verification request and retry the verification. If it keeps failing, contact support and quote the `request_id`.',
    apis: rest,
    example: { instance: `/api/v2/webhooks/endpoints/${ID}`, detail: null },
  },
  'internal.error': {
    when: 'An unexpected error on the server. The answer says nothing more, on purpose; the server logged it under the `request_id`.',
    fix: 'Retry after a short wait, with exponential backoff. If it persists, contact support and quote the `request_id` (it is also in the `X-Request-Id` header).',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'An unexpected error occurred; quote the request_id when reporting it.' },
  },
  'service.not_ready': {
    when: '`GET /readyz`, the readiness check load balancers and orchestrators poll, while this server cannot serve requests: its database does not answer, database migrations are not applied, or a background worker is not running. The detail says which. API requests do not answer this code.',
    fix: 'Nothing for an API client to do: a load balancer sends traffic to ready servers. If you operate the server, act on the detail (database reachability, migrations) and read the server\'s log.',
    apis: rest,
    example: { instance: '/readyz', detail: 'Not ready: the database is unreachable.' },
  },
  'request.malformed_json': {
    when: 'A body sent as JSON that does not parse (truncated, a trailing comma, single quotes, unquoted keys), or whose `Content-Encoding` does not decode (a `gzip` header on a body that is not gzip). On `/graphql`, also: a body that is not one JSON object (batches are not accepted), `query` or `operationName` that is not a string, `variables` or `extensions` that is not an object, or a `GET` parameter that is not JSON.',
    fix: 'Serialise the body with a JSON library rather than by hand, and check what your HTTP library sends. GraphQL: send `{"query": "...", "variables": {...}, "operationName": "..."}` as one object.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The body is not valid JSON.' },
  },
  'request.unsupported_media_type': {
    when: 'A request body whose `Content-Type` is not `application/json` (or another `application/*+json` type): missing, `text/plain`, a form, `multipart/form-data`, `application/graphql`; or a body that is not UTF-8, or in a `Content-Encoding` the server cannot decode.',
    fix: 'Send `Content-Type: application/json` with a UTF-8 JSON body.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'Send the body as application/json (got text/plain).' },
  },
  'request.body_too_large': {
    when: 'A request body larger than the server accepts: 1 MiB unless the server\'s operator set another limit (the detail states the limit in bytes), or JSON that holds more than 10,000 values (object members and array entries, counted before it is parsed).',
    fix: 'Send smaller bodies: split batch work into several requests.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The body exceeds 1048576 bytes.' },
  },
  'request.too_deep': {
    when: 'JSON that nests objects and arrays more than 32 levels deep (`[]` is one level; an ordinary body nests about 5): a REST body, a GraphQL body or its variables, or a value of GraphQL\'s `JSON` scalar (`customFields`).',
    fix: 'Flatten the data you send. No field of the API needs nesting anywhere near this deep.',
    apis: both,
    example: { instance: '/api/v2/customers', detail: 'The JSON nests objects and arrays more than 32 levels deep.' },
  },
  'request.invalid': {
    when: 'An HTTP request the server cannot parse, on any path: a malformed request line, a header name or value with characters HTTP does not allow (control characters), broken chunked encoding. The server answers and closes the connection.',
    fix: 'Send requests with a standard HTTP client, and check that header values you build (tokens, ids) hold no control characters or line breaks.',
    apis: rest,
    example: { instance: '/api/v2/customers', detail: 'The HTTP request could not be parsed.' },
  },
  'request.headers_too_large': {
    when: 'The request line and headers together exceed 16 KiB, on any path. The server answers and closes the connection.',
    fix: 'Shorten the URL (fewer or shorter query parameters) and drop large headers your client adds (cookies, tracing baggage).',
    apis: rest,
    example: { instance: '/api/v2/customers', detail: 'The request line and headers exceed the server limit (16 KiB).' },
  },
  'route.not_found': {
    when: 'A path under `/api/v2` that no endpoint matches (a typo, a singular name, other letter case: paths are case-sensitive, `/api/v2/Customers` is not `/api/v2/customers`), with or without a key; also a path below `/graphql`.',
    fix: 'Check the path against the API reference (`/docs`) or the OpenAPI document (`/api/v2/openapi.json`). Resource paths are plural and lower case.',
    apis: both,
    example: { instance: '/api/v2/customer', detail: 'No endpoint GET /api/v2/customer.' },
  },
  'method.not_allowed': {
    when: 'A known path with a method it does not accept (`PUT /customers/{id}`, `DELETE /customers`). The `Allow` header lists the methods it accepts. `/graphql` accepts `GET` and `POST`, and a mutation only with `POST` (`Allow: POST`).',
    fix: 'Use a method from `Allow`: `PATCH` for updates (with `If-Match`), `POST` on the collection for creates, `POST` for GraphQL mutations.',
    apis: both,
    example: {
      instance: `/api/v2/customers/${ID}`,
      detail: `PUT is not allowed on /customers/${ID}; allowed: GET, PATCH, DELETE.`,
      headers: { Allow: 'GET, PATCH, DELETE' },
    },
  },
  'version.invalid': {
    when: 'The `Fieldline-Version` header names a version this server does not support; or the header is absent and the key is pinned to a version the server no longer supports. The detail lists the supported versions.',
    fix: 'Send `Fieldline-Version` with a version from the detail (the current one is `2026-04-30`), or leave the header out to use the version your key is pinned to. Within a version, changes are additive only.',
    apis: both,
    example: { instance: '/api/v2/me', detail: 'Unknown API version "2025-01-01" in Fieldline-Version; supported: 2026-04-30.' },
  },
  'file.signature_invalid': {
    when: 'A `GET /api/v2/files/{file_id}` without an API key whose `expires` and `signature` are not those of a download link the server made for this file: the link was altered or cut, it belongs to another file, or it expired (a link is valid for one hour after the record carrying it was read).',
    fix: 'Read the record again (`GET` on the record, or the PUT that set the attachment) and open the fresh `url` of its attachment value. A server-side client can send its API key instead of a signature.',
    apis: rest,
    example: { instance: `/api/v2/files/${ID}`, detail: 'The link has expired; read the record again for a fresh one.' },
  },
  ...ruleErrorDocs,
  ...graphqlErrorDocs,
} satisfies Record<ErrorCode, ErrorDoc>;

/** The page of every code of the catalog. */
export const errorDocs: Readonly<Record<ErrorCode, ErrorDoc>> = docs;
