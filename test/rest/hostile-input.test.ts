import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { bodyKeyOf, restPath, serves, type ResourceDefinition, type StandardOperation } from '../../src/kernel/resource.ts';
import { parentsOf } from '../../src/kernel/nesting.ts';
import { highRateLimits, startTestApp, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createContact, link, linkagesOf } from '../helpers/factories/contacts.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { createEstimate } from '../helpers/factories/estimates.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { type Created, createRecord, freshKey, idsOf, ifMatch, patch, readRecord, unique } from '../helpers/factories/records.ts';
import { createPlace, createSite, type Place } from '../helpers/factories/sites.ts';
import { createSystem } from '../helpers/factories/systems.ts';
import { type ApiResponse, client, type Client } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';
import { plainFields } from '../security/sweep-seed.ts';

// Issue 8, hostile input over REST: text PostgreSQL cannot store (NUL, unpaired UTF-16 surrogates) anywhere in a
// body or a query parameter, list Link headers that never echo the client's Host, malformed Host headers,
// JSON nested deeper than the server walks, case-sensitive routing, the estimate decision gate in both
// directions, and contact linkage bodies with the fields at the top level. None of it may answer 500.

const CANNOT_STORE = 'contains a character that cannot be stored (NUL or unpaired surrogate)';
const KEY_CANNOT_STORE = 'has a key that contains a character that cannot be stored (NUL or unpaired surrogate)';
/** A NUL character and an unpaired (high, then low) surrogate: JSON carries each as a \u escape. */
const hostile = { nul: 'bad\u0000text', high: 'bad\ud800text', low: '\udc00bad' } as const;

// Webhook endpoints are registered at an echo receiver on 127.0.0.1 (their verification handshake must pass), and
// every request under /webhooks counts against the webhook_ingest bucket, raised like the others.
const t = useTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
const { tenant, api } = useTenant(t);
let root: Client;
let place: Place;
let receiver: Receiver;
beforeAll(async () => {
  root = client(t.url, tenant.token);
  place = await createPlace(api);
  receiver = await startReceiver({ kind: 'echo' });
});
afterAll(() => receiver?.close());

/** One live record of every resource, with its current ETag, for the update cases. */
async function oneOfEach(): Promise<Record<string, Created>> {
  const item = await createItem(api);
  const site = await createSite(api, { type: 'Customer', id: place.customer.id });
  const made: Record<string, Created> = {
    customer: await createCustomer(api),
    site,
    contact: await createContact(api),
    lead: await createLead(api),
    item,
    customer_item_price: await createRecord(api, 'customer_item_prices', 'customer_item_price', { customer_id: place.customer.id, item_id: item.id, unit_price: '5' }),
    tax_rate: await createTaxRate(api),
    system: await createSystem(api, site.id),
    job: await createJob(api, { site_id: site.id }),
    estimate: await createEstimate(api, { site_id: site.id }),
    // A deal needs exactly one party (no required field says so).
    deal: await createRecord(api, 'deals', 'deal', { name: 'Hostile deal', customer_id: place.customer.id }),
    // A schedule is a rule, not plain text; a horizon of 0 keeps the templates from creating records.
    recurring_job: await createRecord(api, 'recurring_jobs', 'recurring_job', { site_id: site.id, rule: 'FREQ=MONTHLY;BYMONTHDAY=1', start_date: '2026-01-01', horizon_days: 0 }),
    recurring_invoice: await createRecord(api, 'recurring_invoices', 'recurring_invoice', { customer_id: place.customer.id, rule: 'FREQ=MONTHLY;BYMONTHDAY=1', start_date: '2026-01-01' }),
    // A topic none of these tests emits: the endpoint gets no deliveries in the background.
    webhook_endpoint: await createRecord(api, 'webhooks/endpoints', 'endpoint', { url: receiver.url, topics: ['webhook_endpoint.paused'], description: 'Hostile' }),
  };
  // A resource without a factory above (one added since) gets a record of plain values of its required fields.
  const defs = [...t.app.domain.resources.values()].map((service) => service.def);
  const reference = (model: string) => (model === 'user' ? tenant.userId : made[defs.find((def) => def.model === model)?.name ?? '']?.id);
  for (const def of defs.filter((d) => serves(d, 'update'))) made[def.name] ??= await createRecord(api, (await collectionOf(def)).slice(1), bodyKeyOf(def), plainFields(def, 'HOSTILE', reference, {}));
  return made;
}

/**
 * The collection path of a resource's list and create: `/<plural>`, or for a nested resource (notes) the path under
 * a live record of its first parent resource (`/customers/<id>/notes`), made once.
 */
let nestedParentPath: string | undefined;
async function collectionOf(def: ResourceDefinition): Promise<string> {
  const defs = [...t.app.domain.resources.values()].map((service) => service.def);
  const [first] = parentsOf(def, defs);
  if (!first) return `/${restPath(def)}`;
  nestedParentPath ??= `/${restPath(first.parent)}/${(await createRecord(api, restPath(first.parent), bodyKeyOf(first.parent), plainFields(first.parent, 'HOSTILE', () => undefined, {}))).id}`;
  return `${nestedParentPath}/${def.plural}`;
}

/** Every resource the domain serves: body key, REST collection path and the fields its create and update accept. */
function declarations() {
  return [...t.app.domain.resources.values()].map(({ def }) => {
    const conventions = [
      ...(def.conventions.number ? ['number'] : []),
      ...(def.conventions.status ? ['status'] : []),
    ];
    const fields = (mode: 'create' | 'update') => [
      ...Object.entries(def.fields)
        .filter(([, spec]) => (mode === 'create' ? spec.create : spec.update) !== 'not_accepted')
        .map(([name]) => name),
      ...conventions.filter((name) => mode === 'update' || name !== 'status'),
    ];
    // Fields that take a list of strings (webhook topics): an entry holding such text is named `<field>.<index>`.
    const lists = new Set(Object.entries(def.fields).filter(([, spec]) => spec.kind === 'string[]').map(([name]) => name));
    // Only the writes the resource serves (a ledger takes no update, a derived table no write).
    return { def, key: bodyKeyOf(def), plural: restPath(def), name: def.name, lists, create: serves(def, 'create') || def.nested ? fields('create') : [], update: serves(def, 'update') ? fields('update') : [], serves: (op: StandardOperation) => serves(def, op), children: def.children ?? {}, customFields: def.conventions.customFields, labels: def.conventions.labels, className: def.className };
  });
}

function expectCannotStore(res: ApiResponse, errors: Record<string, string[]>) {
  return expectProblem(res, { status: 422, code: 'validation.failed', errors, onlyErrors: true });
}

function expectBadParameter(res: ApiResponse, name: string) {
  return expectProblem(res, { status: 400, code: 'filter.invalid', detail: `${name}: ${CANNOT_STORE}` });
}

describe('text PostgreSQL cannot store, in request bodies', () => {
  it('answers 422 validation.failed naming the field for NUL and unpaired surrogates in every field of every resource on create', async () => {
    for (const resource of declarations()) {
      const collection = await collectionOf(resource.def);
      const before = idsOf(await api.get(`${collection}?limit=100`));
      for (const field of resource.create) {
        for (const value of Object.values(hostile)) {
          expectCannotStore(await api.post(collection, { [resource.key]: { [field]: value } }, freshKey()), { [field]: [CANNOT_STORE] });
          if (resource.lists.has(field)) {
            expectCannotStore(await api.post(collection, { [resource.key]: { [field]: ['fine', value] } }, freshKey()), { [`${field}.1`]: [CANNOT_STORE] });
          }
        }
      }
      expect(idsOf(await api.get(`${collection}?limit=100`)), resource.plural).toEqual(before);
    }
  });

  it('answers 422 naming the field on update of every resource, and leaves the record as it was', async () => {
    const records = await oneOfEach();
    for (const resource of declarations().filter((r) => r.serves('update'))) {
      const current = records[resource.name];
      expect(current, resource.name).toBeDefined();
      for (const field of resource.update) {
        for (const value of Object.values(hostile)) {
          const res = await api.patch(`/${resource.plural}/${current.id}`, { [resource.key]: { [field]: value } }, ifMatch(current.etag));
          expectCannotStore(res, { [field]: [CANNOT_STORE] });
          if (resource.lists.has(field)) {
            const entry = await api.patch(`/${resource.plural}/${current.id}`, { [resource.key]: { [field]: [value, 'fine'] } }, ifMatch(current.etag));
            expectCannotStore(entry, { [`${field}.0`]: [CANNOT_STORE] });
          }
        }
      }
      const after = await readRecord(api, resource.plural, current.id);
      expect(after.etag, resource.name).toBe(current.etag);
    }
  });

  it('names nested fields in the dotted style: line items, phone numbers, labels, custom field values and multiselect entries', async () => {
    const def = (name: string, type: string, options?: string[]) =>
      t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Job', name: unique(name), type, options });
    const text = await def('Text', 'text');
    const multi = await def('Multi', 'multiselect', ['a', 'b']);
    const line = { description: 'ok', quantity: 1, unit_price: '2' };
    for (const plural of ['jobs', 'estimates'] as const) {
      const key = plural.slice(0, -1);
      expectCannotStore(await api.post(`/${plural}`, { [key]: { site_id: place.site.id, lineitems: [line, { ...line, description: hostile.nul }] } }), {
        'lineitems.1.description': [CANNOT_STORE],
      });
      expectCannotStore(await api.post(`/${plural}`, { [key]: { site_id: place.site.id, lineitems: [{ ...line, quantity: hostile.high }] } }), {
        'lineitems.0.quantity': [CANNOT_STORE],
      });
    }
    expectCannotStore(await api.post('/jobs', { job: { site_id: place.site.id, custom_fields: { [text.id]: hostile.nul } } }), { [`custom_fields.${text.id}`]: [CANNOT_STORE] });
    expectCannotStore(await api.post('/jobs', { job: { site_id: place.site.id, custom_fields: { [multi.id]: ['a', hostile.low] } } }), {
      [`custom_fields.${multi.id}.1`]: [CANNOT_STORE],
    });
    expectCannotStore(await api.post('/jobs', { job: { site_id: place.site.id, labels: ['fine', hostile.nul] } }), { 'labels.1': [CANNOT_STORE] });
    expectCannotStore(await api.post('/contacts', { contact: { first_name: 'Pat', phone_numbers: [{ number: '555', extension: hostile.nul }] } }), {
      'phone_numbers.0.extension': [CANNOT_STORE],
    });
    expectCannotStore(await api.post('/contacts', { contact: { mobile: hostile.nul } }), { mobile: [CANNOT_STORE] });
    // Several at once: every one is named.
    expectCannotStore(await api.post('/customers', { customer: { organization: hostile.nul, reference: hostile.high, description: 'fine' } }), {
      organization: [CANNOT_STORE],
      reference: [CANNOT_STORE],
    });
  });

  it('reports an object key that cannot be stored on the object that holds it', async () => {
    expectCannotStore(await api.post('/customers', { customer: { organization: 'Fine', [hostile.nul]: 1 } }), { customer: [KEY_CANNOT_STORE] });
    expectCannotStore(await api.post('/customers', { customer: { organization: 'Fine', custom_fields: { [hostile.high]: 'x' } } }), { custom_fields: [KEY_CANNOT_STORE] });
    const job = await createJob(api, { site_id: place.site.id });
    expectCannotStore(await patch(api, 'jobs', job, { lineitems: [{ description: 'x', quantity: 1, unit_price: '1', [hostile.low]: true }] }), {
      'lineitems.0': [KEY_CANNOT_STORE],
    });
  });

  it('checks lead conversion bodies: 422 naming the customer field or the member, and the lead stays unconverted', async () => {
    const lead = await createLead(api);
    expectCannotStore(await api.post(`/leads/${lead.id}/convert`, { customer: { organization: hostile.nul } }), { organization: [CANNOT_STORE] });
    expectCannotStore(await api.post(`/leads/${lead.id}/convert`, { customer: { custom_fields: { x: hostile.high } } }), { 'custom_fields.x': [CANNOT_STORE] });
    const stray = await api.post(`/leads/${lead.id}/convert`, { 'x\u0000': 1 });
    expectProblem(stray, { status: 422, code: 'validation.failed', errors: { 'x\\u0000': ['is not a permitted field'] }, onlyErrors: true });
    expect((await readRecord(api, 'leads', lead.id)).record.converted_customer_id).toBeNull();
    // The estimate conversion takes no body: anything in it is refused, hostile text included.
    const estimate = await createEstimate(api, { site_id: place.site.id });
    expectProblem(await api.post(`/estimates/${estimate.id}/convert`, { [hostile.nul]: hostile.nul }), { status: 422, code: 'validation.failed', errors: { body: true } });
  });

  it('checks linkage bodies, under "linkage" and at the top level, on POST and PATCH', async () => {
    const contact = await createContact(api);
    const target = { linkable_id: place.customer.id, linkable_type: 'Customer' };
    expectCannotStore(await api.post(`/contacts/${contact.id}/linkages`, { linkage: { ...target, linkable_type: `Customer${hostile.nul}` } }), { linkable_type: [CANNOT_STORE] });
    expectCannotStore(await api.post(`/contacts/${contact.id}/linkages`, { ...target, relationship_type: hostile.high }), { relationship_type: [CANNOT_STORE] });
    expectCannotStore(await api.post(`/contacts/${contact.id}/linkages`, { ...target, [hostile.nul]: true }), { linkage: [KEY_CANNOT_STORE] });
    expect(await linkagesOf(api, contact.id)).toEqual([]);
    const linkage = await link(api, contact.id, { type: 'Customer', id: place.customer.id });
    expectCannotStore(await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, { linkage: { relationship_type: hostile.low } }), { relationship_type: [CANNOT_STORE] });
    expectCannotStore(await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, { relationship_type: hostile.nul }), { relationship_type: [CANNOT_STORE] });
    expect(await linkagesOf(api, contact.id)).toEqual([linkage]);
  });
});

describe('text PostgreSQL cannot store, in query parameters', () => {
  it('answers 400 filter.invalid naming the parameter on every list, whatever the parameter', async () => {
    const nul = '%00';
    for (const { def, plural } of declarations()) {
      const collection = await collectionOf(def);
      const cases: [string, string][] = [
        [`q=a${nul}b`, 'q'],
        [`limit=${nul}`, 'limit'],
        [`sort=${nul}`, 'sort'],
        [`cursor=${nul}`, 'cursor'],
        [`created_at[gte]=${nul}`, 'created_at[gte]'],
        [`status=${nul}`, 'status'],
        [`status[in]=Active,${nul}`, 'status[in]'],
        [`custom_fields[${randomUUID()}]=x${nul}`, 'custom_fields['],
        [`custom_fields[x${nul}]=1`, 'custom_fields[x\\u0000]'],
        [`${nul}=1`, '\\u0000'],
      ];
      for (const [query, name] of cases) {
        const res = await api.get(`${collection}?${query}`);
        expectProblem(res, { status: 400, code: 'filter.invalid', detail: CANNOT_STORE });
        expect(res.body.detail.startsWith(name), `${plural}?${query}: ${res.body.detail}`).toBe(true);
      }
    }
  });

  it('answers 400 filter.invalid naming the parameter on the lookups and the system options catalog', async () => {
    for (const kind of ['statuses', 'labels', 'custom_field_definitions']) {
      expectBadParameter(await api.get(`/${kind}?related_name=Customer%00`), 'related_name');
    }
    expectBadParameter(await api.get('/system_options?system_type=HVAC%00'), 'system_type');
  });

  it('answers 404 resource.not_found to a record path holding NUL, on every method', async () => {
    const contact = await createContact(api);
    expectProblem(await api.get('/customers/a%00b'), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.patch('/customers/a%00b', { customer: { organization: 'x' } }, ifMatch('W/"1-0"')), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.delete('/customers/a%00b', ifMatch('W/"1-0"')), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.patch(`/contacts/${contact.id}/linkages/%00`, { primary: true }), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.post('/leads/%00/convert'), { status: 404, code: 'resource.not_found' });
  });

  it('reads percent-encoded bytes that are not UTF-8 (a surrogate\'s encoding) as U+FFFD: an ordinary value, never 500', async () => {
    const customers = await api.get('/customers?q=%ED%A0%80');
    expect(customers.status, customers.text).toBe(200);
    expect(customers.body.data).toEqual([]);
    const options = await api.get('/system_options?system_type=%ED%A0%80');
    expect(options.status, options.text).toBe(200);
    expect(options.body.data).toEqual([]);
  });
});

/** A request with exactly the given Host header (or none), through node:http so that odd values go out as they are. */
function rawRequest(path: string, options: { host?: string; method?: string; anonymous?: boolean; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  const { port, hostname } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { connection: 'close', ...(options.headers ?? {}) };
    if (!options.anonymous) headers.authorization = `Bearer ${tenant.token}`;
    if (options.host !== undefined) headers.host = options.host;
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const req = http.request({ host: hostname, port: Number(port), path, method: options.method ?? 'GET', setHost: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('Link headers and the Host header', () => {
  let pageable: boolean;
  beforeAll(async () => {
    for (let i = 0; i < 3; i += 1) await createCustomer(api);
    pageable = true;
  });

  it('builds the next link as a relative reference, never from the Host header the client sent', async () => {
    expect(pageable).toBe(true);
    const res = await rawRequest('/api/v2/customers?limit=1&sort=organization&status[in]=Active', { host: 'evil.example' });
    expect(res.status, res.text).toBe(200);
    const linkHeader = String(res.headers.link);
    expect(linkHeader).not.toContain('evil.example');
    const match = /^<(\/api\/v2\/customers\?[^>]+)>; rel="next"$/.exec(linkHeader);
    expect(match, linkHeader).not.toBeNull();
    const next = new URL(match![1], 'http://placeholder');
    expect(next.searchParams.get('limit')).toBe('1');
    expect(next.searchParams.get('status[in]')).toBe('Active');
    expect(next.searchParams.has('sort')).toBe(false);
    expect(next.searchParams.get('cursor')).toBeTruthy();
    // The reference resolves against the server that answered: following it gives the next page.
    const following = await root.get(match![1]);
    expect(following.status, following.text).toBe(200);
    expect(following.body.data).toHaveLength(1);
  });

  it('ignores the authority of an absolute-form request target too', async () => {
    const res = await rawRequest('http://evil.example/api/v2/customers?limit=1', { host: 'evil.example' });
    expect(res.status, res.text).toBe(200);
    expect(String(res.headers.link)).toMatch(/^<\/api\/v2\/customers\?limit=1&cursor=[^>]+>; rel="next"$/);
  });

  it('answers normally whatever the Host header holds: space, bad port, unclosed IPv6 bracket, empty', async () => {
    for (const host of ['a b', 'x:abc', '[::1', '', 'evil.example:99999']) {
      const list = await rawRequest('/api/v2/customers?limit=1', { host });
      expect(list.status, `${JSON.stringify(host)}: ${list.text}`).toBe(200);
      expect(String(list.headers.link)).toMatch(/^<\/api\/v2\/customers\?limit=1&cursor=[^>]+>; rel="next"$/);
      expect((await rawRequest('/api/v2/me', { host })).status).toBe(200);
      const anonymous = await rawRequest('/api/v2/customers', { host, anonymous: true });
      expect(anonymous.status, anonymous.text).toBe(401);
      expect(JSON.parse(anonymous.text).code).toBe('auth.missing_token');
      const created = await rawRequest('/api/v2/customers', {
        host,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ customer: { organization: unique('Host ') } }),
      });
      expect(created.status, created.text).toBe(201);
      expect(created.headers.location).toMatch(/^\/api\/v2\/customers\/[0-9a-f-]{36}$/);
      const unknown = await rawRequest('/api/v2/nothing-here', { host });
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.text).code).toBe('route.not_found');
    }
  });

  it('builds absolute links on PUBLIC_URL when it is configured', async () => {
    const other = await startTestApp({ env: { PUBLIC_URL: 'https://api.example.com/fieldline/' } });
    try {
      const { api: otherApi } = await other.newTenant();
      for (let i = 0; i < 2; i += 1) await createCustomer(otherApi);
      const res = await otherApi.get('/customers?limit=1');
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('link')).toMatch(/^<https:\/\/api\.example\.com\/fieldline\/api\/v2\/customers\?limit=1&cursor=[^>]+>; rel="next"$/);
    } finally {
      await other.close();
    }
  });

  it('accepts only an absolute http(s) PUBLIC_URL without credentials, query or fragment', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com' }).PUBLIC_URL).toBe('https://api.example.com');
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:3000/base/' }).PUBLIC_URL).toBe('http://localhost:3000/base');
    expect(loadConfig({}).PUBLIC_URL).toBeUndefined();
    for (const bad of ['api.example.com', '/api', 'ftp://example.com', 'https://user:pw@example.com', 'https://example.com/?a=1', 'https://example.com/#x', 'https://a b']) {
      expect(() => loadConfig({ PUBLIC_URL: bad }), bad).toThrow(/PUBLIC_URL/);
    }
  });
});

/** A JSON text of `depth` arrays inside each other around `inner`. */
const nestedArrays = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
/** A JSON text of `depth` objects {"a": ...} inside each other around `inner`. */
const nestedObjects = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

describe('JSON nested too deeply', () => {
  const send = (method: string, path: string, raw: string) => api.request(method, path, { raw, headers: { 'content-type': 'application/json' } });

  it('answers 400 request.too_deep, never internal.error, to bodies nested up to the 1 MiB limit', async () => {
    const half = 500_000; // 1,000,000 bytes of brackets: within BODY_LIMIT_BYTES (1 MiB)
    const bodies = [
      nestedArrays(half),
      nestedObjects(170_000),
      `{"customer":{"organization":"Deep","custom_fields":{"x":${nestedArrays(10_000)}}}}`,
    ];
    for (const raw of bodies) {
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(1_048_576);
      expectProblem(await send('POST', '/customers', raw), { status: 400, code: 'request.too_deep', detail: 'more than 32 levels' });
    }
  });

  it('refuses the same on every route that reads a body: update, linkages, conversions', async () => {
    const customer = await createCustomer(api);
    const contact = await createContact(api);
    const lead = await createLead(api);
    const raw = `{"x":${nestedArrays(5_000)}}`;
    const res = await api.request('PATCH', `/customers/${customer.id}`, { raw, headers: { 'content-type': 'application/json', 'if-match': customer.etag } });
    expectProblem(res, { status: 400, code: 'request.too_deep' });
    expectProblem(await send('POST', `/contacts/${contact.id}/linkages`, raw), { status: 400, code: 'request.too_deep' });
    expectProblem(await send('POST', `/leads/${lead.id}/convert`, raw), { status: 400, code: 'request.too_deep' });
    expect((await readRecord(api, 'customers', customer.id)).etag).toBe(customer.etag);
  });

  it('lets 32 levels through to validation and refuses 33', async () => {
    // {"customer": {"custom_fields": {"x": ...}}} is 3 levels; the arrays make up the rest.
    const body = (arrays: number) => `{"customer":{"organization":"${unique('Depth ')}","custom_fields":{"x":${nestedArrays(arrays)}}}}`;
    expectProblem(await send('POST', '/customers', body(29)), { status: 422, code: 'validation.failed', errors: { 'custom_fields.x': true } });
    expectProblem(await send('POST', '/customers', body(30)), { status: 400, code: 'request.too_deep' });
  });
});

describe('case-sensitive routing', () => {
  it('does not serve the API under another spelling of /api/v2', async () => {
    for (const path of ['/API/V2/customers', '/Api/v2/me', '/api/V2/me', '/API/v2/openapi.json']) {
      const res = await root.get(path);
      // The server's catch-all 404 for paths that are not the API (no rate-limit headers: no bucket was consulted).
      expectProblem(res, { status: 404, code: 'route.not_found', instance: path.split('?')[0] });
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(res.text).not.toContain('"data"');
    }
    const post = await root.post('/API/V2/customers', { customer: { organization: unique('Shouting ') } });
    expect(post.status).toBe(404);
    expect((await api.get(`/customers?q=${encodeURIComponent('Shouting')}`)).body.data).toEqual([]);
  });

  it('answers 404 route.not_found under /api/v2 for another spelling of an endpoint', async () => {
    const contact = await createContact(api);
    for (const path of ['/Customers', '/ME', `/Contacts/${contact.id}/linkages`, `/contacts/${contact.id}/Linkages`, '/OpenAPI.json']) {
      expectProblem(await api.get(path), { status: 404, code: 'route.not_found' });
    }
  });
});

describe('estimate decisions are gated in both directions', () => {
  it('refuses a technician moving an estimate out of Sent, Accepted or Declined (403 auth.permission_denied), and leaves it as it was', async () => {
    const tech = await userClient(t, tenant, 'technician');
    for (const decided of ['Sent', 'Accepted', 'Declined']) {
      let est = await createEstimate(api, { site_id: place.site.id });
      const moved = await patch(api, 'estimates', est, { status: decided });
      expect(moved.status, moved.text).toBe(200);
      est = { ...est, etag: moved.headers.get('etag')! };
      for (const status of ['Draft', ...['Sent', 'Accepted', 'Declined'].filter((s) => s !== decided)]) {
        expectProblem(await patch(tech.api, 'estimates', est, { status }), { status: 403, code: 'auth.permission_denied', detail: `from ${decided} to ${status}` });
      }
      const after = await readRecord(api, 'estimates', est.id);
      expect(after.record.status).toBe(decided);
      expect(after.etag).toBe(est.etag);
      // Re-sending the current status is no move, and other fields stay open to the technician.
      const same = await patch(tech.api, 'estimates', est, { status: decided, title: 'Checked on site' });
      expect(same.status, same.text).toBe(200);
      expect(same.body.data).toMatchObject({ status: decided, title: 'Checked on site' });
    }
  });

  it('lets office and admin users move an estimate out of a decision status', async () => {
    for (const role of ['office', 'admin'] as const) {
      const who = await userClient(t, tenant, role);
      const est = await createEstimate(who.api, { site_id: place.site.id });
      const sent = await patch(who.api, 'estimates', est, { status: 'Sent' });
      expect(sent.status, sent.text).toBe(200);
      const back = await patch(who.api, 'estimates', { id: est.id, etag: sent.headers.get('etag')! }, { status: 'Draft' });
      expect(back.status, back.text).toBe(200);
      expect(back.body.data.status).toBe('Draft');
    }
  });
});

describe('contact linkage bodies', () => {
  it('accepts the fields at the top level of the body, as the spec lists them, on POST and PATCH', async () => {
    const contact = await createContact(api);
    const customer = await createCustomer(api);
    const res = await api.post(`/contacts/${contact.id}/linkages`, { linkable_id: customer.id, linkable_type: 'Customer', relationship_type: 'billing', primary: true });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ contact_id: contact.id, linkable_id: customer.id, linkable_type: 'Customer', relationship_type: 'billing', primary: true });
    expect(res.headers.get('location')).toBe(`/api/v2/contacts/${contact.id}/linkages/${res.body.data.id}`);
    const patched = await api.patch(`/contacts/${contact.id}/linkages/${res.body.data.id}`, { relationship_type: 'technical' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ id: res.body.data.id, relationship_type: 'technical', primary: true });
    // The envelope keeps working.
    const enveloped = await api.patch(`/contacts/${contact.id}/linkages/${res.body.data.id}`, { linkage: { relationship_type: 'billing' } });
    expect(enveloped.status, enveloped.text).toBe(200);
    expect(enveloped.body.data.relationship_type).toBe('billing');
  });

  it('applies the same rules to both shapes: missing and unknown fields, linkable fields on PATCH', async () => {
    const contact = await createContact(api);
    const customer = await createCustomer(api);
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, {}), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_id: ['is missing'], linkable_type: ['is missing'] },
      onlyErrors: true,
    });
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkable_id: customer.id, linkable_type: 'Customer', colour: 'red' }), {
      status: 422,
      code: 'validation.failed',
      errors: { colour: ['is not a permitted field'] },
      onlyErrors: true,
    });
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkable_id: customer.id, linkable_type: 'Customer', primary: 'yes' }), {
      status: 422,
      code: 'validation.failed',
      errors: { primary: true },
      onlyErrors: true,
    });
    const linkage = await link(api, contact.id, { type: 'Customer', id: customer.id });
    expectProblem(await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, { linkable_type: 'Lead' }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_type: true },
      onlyErrors: true,
    });
    expect(await linkagesOf(api, contact.id)).toEqual([linkage]);
  });

  it('refuses "linkage" beside other members as ambiguous (422 naming each other member) and changes nothing', async () => {
    const contact = await createContact(api);
    const customer = await createCustomer(api);
    const fields = { linkable_id: customer.id, linkable_type: 'Customer' };
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: fields, primary: true }), {
      status: 422,
      code: 'validation.failed',
      errors: { primary: [expect.stringContaining('beside linkage')] as unknown as string[] },
      onlyErrors: true,
    });
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: fields, ...fields }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_id: true, linkable_type: true },
      onlyErrors: true,
    });
    expect(await linkagesOf(api, contact.id)).toEqual([]);
    const linkage = await link(api, contact.id, { type: 'Customer', id: customer.id });
    expectProblem(await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, { linkage: { relationship_type: 'billing' }, relationship_type: 'technical' }), {
      status: 422,
      code: 'validation.failed',
      errors: { relationship_type: true },
      onlyErrors: true,
    });
    expect(await linkagesOf(api, contact.id)).toEqual([linkage]);
  });
});
