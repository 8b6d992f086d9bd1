// The README's walk through the API, as a partner's typed TypeScript client would do it: types generated from
// the served OpenAPI document by openapi-typescript (api.d.ts beside this file), requests made by openapi-fetch.
// A package of its own (README.md beside this file):
//
//   npm install
//   FIELDLINE_URL=http://localhost:3000 npm run generate
//   FIELDLINE_URL=http://localhost:3000 FIELDLINE_KEY=svc_... npm start
//
// test/examples/typescript-client.test.ts regenerates api.d.ts from a running server, type-checks this file
// against it with this package's tsconfig.json and runs it, so a change of the document that breaks generated
// clients fails the suite.

import createClient from 'openapi-fetch';
import type { paths } from './api.d.ts';

const baseUrl = process.env.FIELDLINE_URL ?? 'http://localhost:3000';
const key = process.env.FIELDLINE_KEY;
if (!key) throw new Error('set FIELDLINE_KEY to an API key (the demo key printed on the first start)');

const api = createClient<paths>({ baseUrl: `${baseUrl}/api/v2`, headers: { Authorization: `Bearer ${key}` } });

/** Fails with the problem's code and detail (RFC 9457 problem+json) when a call did not succeed. */
function check<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined) {
    const problem = result.error as { code?: string; detail?: string | null } | undefined;
    throw new Error(`${what}: ${result.response.status} ${problem?.code ?? ''} ${problem?.detail ?? ''}`);
  }
  return result.data;
}

// Who am I: the account, the key's scopes and the API version it is pinned to.
const me = check(await api.GET('/me'), 'GET /me');
console.log(`account ${me.data.account.name}; API version ${me.data.api_version}; ${me.data.key.scopes.length} scopes`);

// Create: the record travels under the resource-named key; the answer carries the record's ETag.
const suffix = Date.now().toString(36);
const created = await api.POST('/customers', { body: { customer: { organization: `Acme Heating ${suffix}`, reference: `ERP-${suffix}` } } });
const customer = check(created, 'POST /customers').data;
let etag = created.response.headers.get('ETag')!;
console.log(`created customer ${customer.id} (${customer.number}), ETag ${etag}`);
for (const n of [2, 3]) check(await api.POST('/customers', { body: { customer: { organization: `Acme Heating ${suffix} #${n}` } } }), 'POST /customers');

// List, search, filter, sort and page: pass next_cursor back verbatim, with the same filters, until it is null
// (the cursor keeps the first page's sort).
const seen: string[] = [];
const filters = { q: suffix, 'status[in]': 'Active,Inactive', limit: 2 };
let cursor: string | undefined;
do {
  const page = check(await api.GET('/customers', { params: { query: cursor ? { ...filters, cursor } : { ...filters, sort: 'organization' } } }), 'GET /customers');
  seen.push(...page.data.map((record) => record.organization));
  cursor = page.next_cursor ?? undefined;
  if (page.has_more !== (page.next_cursor !== null)) throw new Error('has_more and next_cursor disagree');
} while (cursor);
console.log(`listed ${seen.length} customers matching "${suffix}" in ${Math.ceil(seen.length / 2)} pages: ${seen.join(', ')}`);
if (seen.length !== 3) throw new Error(`expected the 3 customers made above, got ${seen.length}`);

// Update with the ETag in If-Match; the answer's ETag is the new one.
const updated = await api.PATCH('/customers/{id}', { params: { path: { id: customer.id }, header: { 'If-Match': etag } }, body: { customer: { status: 'Inactive' } } });
console.log(`status now ${check(updated, 'PATCH /customers/{id}').data.status}`);
const stale = etag;
etag = updated.response.headers.get('ETag')!;

// A stale ETag is refused with 412 precondition.failed: read the record again and retry.
const refused = await api.PATCH('/customers/{id}', { params: { path: { id: customer.id }, header: { 'If-Match': stale } }, body: { customer: { reference: 'stale' } } });
if (refused.response.status !== 412 || refused.error?.code !== 'precondition.failed') throw new Error(`a stale ETag was not refused: ${refused.response.status}`);
console.log(`stale ETag refused: ${refused.response.status} ${refused.error.code}`);

// Delete (soft delete) with the current ETag; the record is gone afterwards.
const deleted = await api.DELETE('/customers/{id}', { params: { path: { id: customer.id }, header: { 'If-Match': etag } } });
if (deleted.response.status !== 204) throw new Error(`DELETE answered ${deleted.response.status}`);
const gone = await api.GET('/customers/{id}', { params: { path: { id: customer.id } } });
console.log(`deleted; GET now answers ${gone.response.status} ${gone.error?.code}`);

// Lookups: the statuses a customer can have.
const statuses = check(await api.GET('/statuses', { params: { query: { related_name: 'Customer' } } }), 'GET /statuses');
console.log(`customer statuses: ${statuses.data.map((status) => status.display_name).join(', ')}`);
