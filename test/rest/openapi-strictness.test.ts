import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { topics } from '../../src/events/topics.ts';
import { bodyKeyOf, restPath, serves } from '../../src/kernel/resource.ts';
import { highRateLimits, startTestApp, type TestApp } from '../helpers/app.ts';
import { createCustomer, uniqueOrganization } from '../helpers/factories/customers.ts';
import { createItem } from '../helpers/factories/catalog.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { createRecord, freshKey, ifMatch, unique } from '../helpers/factories/records.ts';
import { client, type Client } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// The OpenAPI document states what the server refuses for a request's shape (issue 31): every keyword below is
// read from the served document, where it must be, and for each one a request breaking it is sent to the server,
// which refuses it. So a generated client or a property-based tester finds no request the schema allows and the
// server refuses for its shape, and a keyword the server does not enforce cannot creep in: each test also checks
// that the document has no such keyword beyond those it probes.

let t: TestApp;
let api: Client;
let doc: any;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, rateLimits: { ...highRateLimits, webhook_ingest: 100_000 } });
  const tenant = await t.tenant();
  api = client(`${t.url}/api/v2`, tenant.token);
  doc = (await client(`${t.url}/api/v2`).get('/openapi.json')).body;
  receiver = await startReceiver({ kind: 'echo' });
});
afterAll(async () => {
  await t.close();
  await receiver?.close();
});

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
const deref = (node: any): any => (node?.$ref ? deref(node.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc)) : node);
const schema = (name: string) => doc.components.schemas[name];
const property = (component: string, name: string) => deref(schema(component).properties[name]);
const parameter = (name: string) => doc.components.parameters[name];
const operations = () => Object.entries<any>(doc.paths).flatMap(([path, item]) => methods.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })));
/** The component schemas request bodies use (what a request may carry), found from the operations' bodies. */
function requestComponents(): string[] {
  const found = new Set<string>();
  const visit = (node: any) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node.$ref === 'string') {
      const name = /^#\/components\/schemas\/([^/]+)/.exec(node.$ref)?.[1];
      if (name && !found.has(name)) {
        found.add(name);
        visit(schema(name));
      }
      return;
    }
    Object.values(node).forEach(visit);
  };
  for (const { op } of operations()) visit(op.requestBody?.content?.['application/json']?.schema);
  return [...found].sort();
}
/** Every property of a request component that carries `keyword`: "Component.property" -> its value. */
function requestProperties(keyword: string, where = (_value: unknown) => true): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const name of requestComponents()) {
    for (const [member, node] of Object.entries<any>(schema(name).properties ?? {})) {
      if (!node.$ref && keyword in node && where(node[keyword])) found[`${name}.${member}`] = node[keyword];
    }
  }
  return found;
}
/** The definitions of the resources that serve a create, by the class name of their create body. */
const creatable = Object.fromEntries(resources.filter((def) => serves(def, 'create')).map((def) => [`${def.className}Create`, def]));

/** An endpoint verified at the echo receiver, subscribed to customer.created. */
async function endpoint(): Promise<{ id: string; etag: string }> {
  const res = await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: ['customer.created'] } });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id, etag: res.headers.get('etag')! };
}

describe('headers and cursors', () => {
  it('If-Match: minLength 1 and the pattern of our ETags; empty is 428, any other value 412 on a record and 404 on none', async () => {
    const ifMatchSchema = deref(parameter('IfMatch').schema);
    expect(ifMatchSchema).toMatchObject({ type: 'string', minLength: 1, pattern: expect.any(String) });
    const pattern = new RegExp(ifMatchSchema.pattern, 'u');
    const customer = await createCustomer(api);
    expect(customer.etag).toMatch(pattern);
    expect(customer.etag.slice(2)).toMatch(pattern);
    expectProblem(await api.patch(`/customers/${customer.id}`, { customer: { reference: 'x' } }, ifMatch('')), { status: 428, code: 'precondition.required' });
    expectProblem(await api.delete(`/customers/${customer.id}`, ifMatch('')), { status: 428, code: 'precondition.required' });
    for (const value of ['abc', '*', 'W/"1"', '"12-x"']) {
      expect(value).not.toMatch(pattern);
      expectProblem(await api.patch(`/customers/${customer.id}`, { customer: { reference: 'x' } }, ifMatch(value)), { status: 412, code: 'precondition.failed' });
      expectProblem(await api.patch(`/customers/${randomUUID()}`, { customer: { reference: 'x' } }, ifMatch(value)), { status: 404, code: 'resource.not_found' });
    }
  });

  it('cursor: minLength 1 and the form of every cursor, on the resource lists and the change feed; empty or another form is 400 cursor.invalid', async () => {
    const cursorSchema = deref(parameter('Cursor').schema);
    expect(cursorSchema).toMatchObject({ type: 'string', minLength: 1, pattern: expect.any(String) });
    const feedCursor = doc.paths['/events'].get.parameters.map(deref).find((p: any) => p.name === 'cursor').schema;
    expect(feedCursor).toMatchObject({ minLength: 1, pattern: cursorSchema.pattern });
    const pattern = new RegExp(cursorSchema.pattern, 'u');
    for (let i = 0; i < 2; i++) await createCustomer(api);
    const page = await api.get('/customers?limit=1');
    expect(page.body.next_cursor).toMatch(pattern);
    for (const cursor of ['', 'abc', 'a.b.c', '.abc', 'abc.']) {
      expect(cursor).not.toMatch(pattern);
      for (const list of ['/customers', '/events']) {
        expectProblem(await api.get(`${list}?cursor=${encodeURIComponent(cursor)}`), { status: 400, code: 'cursor.invalid' });
      }
    }
  });

  it('X-Request-Id states no pattern (no value is refused): an accepted value is echoed, any other is replaced by a generated id', async () => {
    const requestId = parameter('RequestId');
    expect(deref(requestId.schema)).toEqual({ type: 'string' });
    const accepted = /`(\^[^`]+\$)`/.exec(requestId.description)?.[1];
    expect(accepted, requestId.description).toBeDefined();
    expect(requestId.description).toContain('never refused');
    const pattern = new RegExp(accepted!, 'u');
    const echoed = await api.get('/me', { headers: { 'x-request-id': 'sync-run.42:a_b' } });
    expect(echoed.status).toBe(200);
    expect(echoed.headers.get('x-request-id')).toBe('sync-run.42:a_b');
    for (const value of ['has space', 'a'.repeat(129), '<script>', 'ünïcode']) {
      expect(value).not.toMatch(pattern);
      const res = await api.get('/me', { headers: { 'x-request-id': value } });
      expect(res.status, value).toBe(200);
      expect(res.headers.get('x-request-id')).not.toBe(value);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
    // A refused request says the same id in its problem.
    const problem = await api.get(`/customers/${randomUUID()}`, { headers: { 'x-request-id': 'has space' } });
    expect(problem.body.request_id).toBe(problem.headers.get('x-request-id'));
  });
});

describe('the change feed', () => {
  it('topic is an enum of the catalog the feed checks, which holds every available topic; another name is 400 filter.invalid', async () => {
    const parameters = doc.paths['/events'].get.parameters.map(deref);
    const topic = parameters.find((p: any) => p.name === 'topic').schema;
    expect(topic.enum).toEqual(topics().map((entry) => entry.name));
    const available = (await api.get('/webhooks/available_topics')).body.data.map((entry: { name: string }) => entry.name);
    expect(available.length).toBeGreaterThan(0);
    expect(topic.enum).toEqual(expect.arrayContaining(available));
    for (const name of [available[0], topic.enum.at(-1)]) expect((await api.get(`/events?topic=${name}`)).status, name).toBe(200);
    for (const name of ['customer.exploded', '', 'Customer.Created']) {
      expect(topic.enum).not.toContain(name);
      expectProblem(await api.get(`/events?topic=${encodeURIComponent(name)}`), { status: 400, code: 'filter.invalid' });
    }
    const resource = parameters.find((p: any) => p.name === 'resource').schema;
    expect(resource.enum).toEqual([...new Set(topics().map((entry) => entry.recordName))]);
    expect((await api.get(`/events?resource=${resource.enum[0]}`)).status).toBe(200);
    expectProblem(await api.get('/events?resource=nothing'), { status: 400, code: 'filter.invalid' });
  });

  it('topic[in] and resource[in] are comma-separated lists of those names; any other entry is 400 filter.invalid', async () => {
    const parameters = doc.paths['/events'].get.parameters.map(deref);
    const topicIn = new RegExp(parameters.find((p: any) => p.name === 'topic[in]').schema.pattern, 'u');
    const resourceIn = new RegExp(parameters.find((p: any) => p.name === 'resource[in]').schema.pattern, 'u');
    expect('customer.created,job.updated').toMatch(topicIn);
    expect((await api.get('/events?topic[in]=customer.created,job.updated')).status).toBe(200);
    for (const list of ['customer.created,', 'customer.created, job.updated', 'customer.created,nope.x', '']) {
      expect(list).not.toMatch(topicIn);
      expectProblem(await api.get(`/events?topic[in]=${encodeURIComponent(list)}`), { status: 400, code: 'filter.invalid' });
    }
    expect('customer,job').toMatch(resourceIn);
    expect((await api.get('/events?resource[in]=customer,job')).status).toBe(200);
    expect('customer,nothing').not.toMatch(resourceIn);
    expectProblem(await api.get('/events?resource[in]=customer,nothing'), { status: 400, code: 'filter.invalid' });
  });
});

describe('request bodies', () => {
  it('required text is non-blank (pattern \\S) where the server refuses blanks: "" and whitespace answer 422 "can\'t be blank" on every create', async () => {
    const blankRefusing = requestProperties('pattern', (value) => value === '\\S');
    expect(Object.keys(blankRefusing).length).toBeGreaterThan(5);
    expect(blankRefusing).toHaveProperty(['CustomerCreate.number']);
    expect(property('CustomerCreate', 'organization')).toMatchObject({ type: 'string', pattern: '\\S' });
    expect(property('CustomerUpdate', 'organization')).toMatchObject({ pattern: '\\S' });
    let probed = 0;
    for (const [at, _pattern] of Object.entries(blankRefusing)) {
      const [component, field] = at.split('.');
      const def = creatable[component];
      if (!def) continue;
      const number = field === 'number' && def.conventions.number;
      for (const blank of ['', ' \t\n ']) {
        const res = await api.post(`/${restPath(def)}`, { [bodyKeyOf(def)]: { [field]: blank } }, freshKey());
        expectProblem(res, { status: 422, code: 'validation.failed', errors: { [field]: number ? true : ["can't be blank"] } });
      }
      probed += 1;
    }
    expect(probed).toBeGreaterThan(5);
    // On update too, and in a child entry.
    const customer = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${customer.id}`, { customer: { organization: '  ' } }, ifMatch(customer.etag)), { status: 422, code: 'validation.failed', errors: { organization: ["can't be blank"] }, onlyErrors: true });
    expect(property('ContactPhoneNumberCreate', 'number')).toMatchObject({ pattern: '\\S' });
    expectProblem(await api.post('/contacts', { contact: { first_name: 'Blank', phone_numbers: [{ number: ' ' }] } }), { status: 422, code: 'validation.failed', errors: { 'phone_numbers.0.number': ["can't be blank"] }, onlyErrors: true });
  });

  it('a decimal whose range starts at 0 or above has no minus sign in its pattern, and a negative value is 422 on every create', async () => {
    const decimals: [string, { pattern: string; minimum: number }][] = [];
    for (const name of requestComponents()) {
      for (const [member, node] of Object.entries<any>(schema(name).properties ?? {})) {
        const branches = deref(node).anyOf?.map(deref) ?? [];
        const text = branches.find((b: any) => b.type === 'string' && b.pattern);
        const number = branches.find((b: any) => b.type === 'number');
        if (!node.$ref && text && number) decimals.push([`${name}.${member}`, { pattern: text.pattern, minimum: number.minimum }]);
      }
    }
    expect(decimals.length).toBeGreaterThan(5);
    for (const [at, { pattern, minimum }] of decimals) expect(pattern.includes('-'), at).toBe(minimum < 0);
    expect(decimals.some(([, { minimum }]) => minimum < 0)).toBe(true);
    let probed = 0;
    for (const [at, { pattern, minimum }] of decimals) {
      const [component, field] = at.split('.');
      const def = creatable[component];
      if (!def || minimum < 0) continue;
      expect('-1').not.toMatch(new RegExp(pattern, 'u'));
      const res = await api.post(`/${restPath(def)}`, { [bodyKeyOf(def)]: { [field]: '-1' } }, freshKey());
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { [field]: true } });
      probed += 1;
    }
    expect(probed).toBeGreaterThan(3);
    // A child entry's decimal: a transfer line's quantity.
    expect(property('InventoryTransferTransferLineCreate', 'quantity').anyOf.map(deref)[0].pattern).not.toContain('-');
  });

  it('lists the server refuses empty have minItems 1, and exactly those: topics, transfer lines, replay event_ids', async () => {
    expect(requestProperties('minItems')).toEqual({
      'InventoryTransferCreate.lines': 1,
      'ReplayWebhookEndpointFields.event_ids': 1,
      'WebhookEndpointCreate.topics': 1,
    });
    // topics: none, or only blank ones, is validation.no_topics (a non-blank entry is required: contains).
    expect(property('WebhookEndpointCreate', 'topics').contains).toEqual({ type: 'string', pattern: '\\S' });
    expect(schema('WebhookEndpointUpdate').properties.topics).toEqual({ $ref: '#/components/schemas/WebhookEndpointCreate/properties/topics' });
    for (const sent of [[], [' ', '']]) {
      expectProblem(await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: sent } }), { status: 422, code: 'validation.no_topics' });
    }
    const subscribed = await endpoint();
    expectProblem(await api.patch(`/webhooks/endpoints/${subscribed.id}`, { endpoint: { topics: [] } }, ifMatch(subscribed.etag)), { status: 422, code: 'validation.no_topics' });
    // lines: required on create and never empty.
    expect(schema('InventoryTransferCreate').required).toContain('lines');
    const from = await createRecord(api, 'stock_locations', 'stock_location', { name: unique('From '), kind: 'warehouse' });
    const to = await createRecord(api, 'stock_locations', 'stock_location', { name: unique('To '), kind: 'warehouse' });
    for (const lines of [[], undefined]) {
      expectProblem(await api.post('/inventory_transfers', { inventory_transfer: { from_location_id: from.id, to_location_id: to.id, lines } }, freshKey()), {
        status: 422,
        code: 'validation.failed',
        errors: { lines: ['must name at least one item'] },
        onlyErrors: true,
      });
    }
    // event_ids: [] is refused.
    expectProblem(await api.post(`/webhooks/endpoints/${subscribed.id}/replay`, { replay: { event_ids: [] } }), { status: 422, code: 'validation.failed', errors: { event_ids: true } });
  });

  it('fields that go together are dependentRequired, and exactly those: a contact\'s linkable_id and linkable_type', async () => {
    const found = Object.fromEntries(requestComponents().flatMap((name) => (schema(name).dependentRequired ? [[name, schema(name).dependentRequired]] : [])));
    expect(found).toEqual({ ContactCreate: { linkable_id: ['linkable_type'], linkable_type: ['linkable_id'] } });
    const customer = await createCustomer(api);
    expectProblem(await api.post('/contacts', { contact: { first_name: 'Half', linkable_id: customer.id } }), { status: 422, code: 'validation.failed', errors: { linkable_type: true }, onlyErrors: true });
    expectProblem(await api.post('/contacts', { contact: { first_name: 'Half', linkable_type: 'Customer' } }), { status: 422, code: 'validation.failed', errors: { linkable_id: true }, onlyErrors: true });
    // The linkage endpoint requires both anyway.
    expect(schema('CreateContactLinkageFields').required).toEqual(expect.arrayContaining(['linkable_id', 'linkable_type']));
  });

  it('a replay gives event_ids or since, never both: if/then/else, and the server refuses each way of breaking it', async () => {
    const replay = schema('ReplayWebhookEndpointFields');
    expect(replay).toMatchObject({
      if: { required: ['event_ids'], properties: { event_ids: { not: { type: 'null' } } } },
      then: { properties: { since: { type: 'null' }, until: { type: 'null' } } },
      else: { required: ['since'], properties: { since: { not: { type: 'null' } } } },
    });
    expect(requestComponents().filter((name) => schema(name).if)).toEqual(['ReplayWebhookEndpointFields']);
    const target = await endpoint();
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const body of [{ event_ids: [randomUUID()], since }, { event_ids: [randomUUID()], until: since }, {}, { until: since }, { since: null }]) {
      expectProblem(await api.post(`/webhooks/endpoints/${target.id}/replay`, { replay: body }), { status: 422, code: 'validation.failed' });
    }
    // What the schema allows is accepted: each way alone, null as not given.
    for (const body of [{ since }, { since, event_ids: null }, { event_ids: [randomUUID()], since: null }]) {
      const res = await api.post(`/webhooks/endpoints/${target.id}/replay`, { replay: body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(200);
    }
  });

  it('every request body object refuses unknown members (additionalProperties false), except the empty bodies the server does not read', () => {
    const open: string[] = [];
    for (const { path, method, op } of operations()) {
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (!body) continue;
      const top = deref(body);
      for (const shape of (top.anyOf ?? [top]).map(deref)) {
        if (shape.additionalProperties !== false) open.push(`${method.toUpperCase()} ${path}`);
        for (const member of Object.values<any>(shape.properties ?? {}).map(deref)) {
          if (member.type === 'object' && member.properties && member.additionalProperties !== false) open.push(`${method.toUpperCase()} ${path} member`);
        }
      }
    }
    expect(open.sort()).toEqual(['POST /webhooks/endpoints/{id}/rotate_secret', 'POST /webhooks/endpoints/{id}/test', 'POST /webhooks/endpoints/{id}/verify']);
    for (const name of ['VerifyWebhookEndpointRequest', 'TestWebhookEndpointRequest', 'RotateWebhookEndpointSecretRequest']) expect(schema(name).description).toContain('not read');
    for (const name of ['CustomerCreateRequest', 'CustomerUpdateRequest', 'ConvertLeadRequest', 'ReplayWebhookEndpointRequest', 'ConvertEstimateRequest']) expect(schema(name).additionalProperties, name).toBe(false);
  });

  it('refuses a member beside the body key of an action as the schema says: fields, overrides and empty bodies', async () => {
    const target = await endpoint();
    const since = new Date(Date.now() - 60_000).toISOString();
    expectProblem(await api.post(`/webhooks/endpoints/${target.id}/replay`, { replay: { since }, extra: 1 }), { status: 422, code: 'validation.failed', errors: { extra: ['is not a permitted field'] }, onlyErrors: true });
    expectProblem(await api.post(`/webhooks/endpoints/${target.id}/replay`, { replay: { since, extra: 1 } }), { status: 422, code: 'validation.failed', errors: { extra: true } });
    const lead = await createLead(api, { first_name: 'Stray', last_name: unique('Member') });
    expectProblem(await api.post(`/leads/${lead.id}/convert`, { customer: {}, extra: 1 }), { status: 422, code: 'validation.failed', errors: { extra: ['is not a permitted field'] }, onlyErrors: true });
    expect((await api.get(`/leads/${lead.id}`)).body.data.converted_customer_id ?? null).toBeNull();
    expectProblem(await api.post(`/estimates/${randomUUID()}/convert`, { extra: 1 }), { status: 422, code: 'validation.failed', errors: { body: true } });
    // The empty bodies the server does not read: a member is accepted, as their schema says.
    const verified = await api.post(`/webhooks/endpoints/${target.id}/verify`, { extra: 1 });
    expect(verified.status, verified.text).toBe(200);
    // A create and an update of a resource: the wrapper is strict (customers.test.ts has the body-shape rule).
    const item = await createItem(api);
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization() }, item_id: item.id }), { status: 422, code: 'validation.failed', errors: { item_id: ['is not a permitted field'] }, onlyErrors: true });
  });
});
