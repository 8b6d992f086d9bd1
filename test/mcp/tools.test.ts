import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { unique } from '../helpers/factories/records.ts';
import { callError, callOk, mcpClient, readText } from './helpers.ts';

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
let agent: Client;

beforeAll(async () => {
  agent = await mcpClient(t, tenant.token);
});
afterAll(() => agent?.close());

async function keyWithScopes(scopes: string[]): Promise<string> {
  const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: unique('Agent '), email: `${unique('a')}@example.test`, role: 'admin' });
  return (await t.app.domain.admin.createKey({ userId: user.id, scopes })).token;
}

describe('MCP over Streamable HTTP (POST /mcp, stateless)', () => {
  it('initializes with the SDK client: the server names itself and offers tools and resources', () => {
    expect(agent.getServerVersion()).toMatchObject({ name: 'fieldline' });
    expect(agent.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(agent.getInstructions()).toContain('etag');
  });

  it('refuses a request without a valid key with HTTP 401 and WWW-Authenticate: Bearer, before any message is read', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await res.json()).code).toMatch(/^auth\./);
    await expect(mcpClient(t, 'svc_not-a-key')).rejects.toThrow();
  });

  it('refuses an unknown Fieldline-Version header with version.invalid, as REST does', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tenant.token}`, 'fieldline-version': '1999-01-01' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('version.invalid');
  });

  it('answers params that do not fit the method with JSON-RPC -32602 Invalid params naming the member, not an internal error', async () => {
    const send = async (message: object) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tenant.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, ...message }),
      });
    for (const message of [{ method: 'tools/call', params: { name: 'me', arguments: [] } }, { method: 'tools/call' }, { method: 'resources/read', params: { uri: 5 } }]) {
      const res = await send(message);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body, JSON.stringify(message)).toMatchObject({ id: 3, error: { code: -32602 } });
      expect(body.error.message).toMatch(/^Invalid params for /);
    }
    const lookup = await callError(agent, 'list_statuses', { related_name: { toString: 1 } });
    expect(lookup).toMatchObject({ code: 'filter.invalid', status: 400 });
  });

  it('answers GET and DELETE with 405 (no sessions, no server-initiated stream), Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${t.url}/mcp`, { method, headers: { authorization: `Bearer ${tenant.token}`, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).code).toBe('method.not_allowed');
    }
  });

  it('carries no session: a second client, or a message without initialize, is served by any process', async () => {
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${tenant.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'me', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json();
    expect(body.result.structuredContent.data.account.id).toBe(tenant.accountId);
  });
});

describe('tools/list: the tools generated from the declarations, only those the key may call', () => {
  it('lists every standard operation, the nested ones, the actions and the hand-written lookups for an all-scope key, with annotations and descriptions', async () => {
    const { tools } = await agent.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['me', 'list_statuses', 'list_system_options', 'list_customers', 'get_customer', 'create_customer', 'update_customer', 'delete_customer', 'create_invoice', 'convert_estimate', 'receive_purchase_order', 'convert_lead']) {
      expect(names, name).toContain(name);
    }
    expect(new Set(names).size).toBe(names.length);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('get_customer')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('delete_customer')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    expect(byName.get('create_customer')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get('create_invoice')!.annotations).toMatchObject({ idempotentHint: true });
    for (const tool of tools) expect(tool.description, tool.name).toBeTruthy();
  });

  it('takes the input schemas from the OpenAPI document: the create body, the list parameters, etag and idempotency_key', async () => {
    const document = await (await fetch(`${t.url}/api/v2/openapi.json`)).json();
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const create = byName.get('create_customer')!.inputSchema as any;
    expect(create.required).toEqual(['customer']);
    // Every field of the REST create body, with its description.
    expect(Object.keys(create.properties.customer.properties).sort()).toEqual(Object.keys(document.components.schemas.CustomerCreate.properties).sort());
    expect(JSON.stringify(create)).not.toContain('$ref');
    const list = byName.get('list_customers')!.inputSchema as any;
    const restParameters = document.paths['/customers'].get.parameters.map((p: any) => (p.$ref ? p.$ref.split('/').pop() : p.name));
    expect(Object.keys(list.properties)).toEqual(expect.arrayContaining(['cursor', 'limit', 'sort', 'q']));
    expect(Object.keys(list.properties).length).toBeGreaterThanOrEqual(restParameters.length - 1);
    expect(byName.get('update_customer')!.inputSchema.required).toEqual(['id', 'etag', 'customer']);
    expect(byName.get('create_invoice')!.inputSchema.required).toEqual(['invoice', 'idempotency_key']);
  });

  it('describes the structured result of every tool by an output schema that stands alone, in JSON Schema formats only', async () => {
    const { tools } = await agent.listTools();
    const standard = new Set(['date-time', 'date', 'time', 'email', 'uri', 'uri-reference', 'uuid']);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      const text = JSON.stringify([tool.inputSchema, tool.outputSchema]);
      expect(text, tool.name).not.toContain('$ref');
      for (const [, format] of text.matchAll(/"format":"([^"]+)"/g)) expect(standard, `${tool.name}: format ${format}`).toContain(format);
    }
    expect(tools.find((tool) => tool.name === 'get_customer')!.outputSchema).toMatchObject({ required: ['data', 'etag'] });
  });

  it('answers every list tool that needs no argument with structured content its output schema accepts (the SDK client validates it)', async () => {
    await createCustomer(api, { organization: unique('Listed') });
    const { tools } = await agent.listTools();
    const lists = tools.filter((tool) => tool.annotations?.readOnlyHint && !(tool.inputSchema.required ?? []).length);
    expect(lists.length).toBeGreaterThan(20);
    for (const tool of lists) {
      const result = await callOk(agent, tool.name, {});
      expect(Array.isArray(result.data) || typeof result.data === 'object', tool.name).toBe(true);
    }
  });

  it('shows a read-only key no write tool', async () => {
    const reader = await mcpClient(t, await keyWithScopes(['customers:read', 'invoices:read']));
    try {
      const names = (await reader.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['me', 'list_customers', 'get_customer', 'list_invoices', 'get_invoice']));
      expect(names.filter((name) => /^(create|update|delete|convert|receive|invoice)_/.test(name))).toEqual([]);
      expect(names).not.toContain('list_jobs');
    } finally {
      await reader.close();
    }
  });
});

describe('tool calls: the REST rules through MCP', () => {
  it('lists, gets, updates with the etag, then refuses the stale etag with precondition.failed', async () => {
    const organization = unique('Mcp Customer');
    const made = await createCustomer(api, { organization });
    const page = await callOk(agent, 'list_customers', { q: organization, limit: 10 });
    expect(page.data.map((record: any) => record.id)).toContain(made.id);
    expect(page).toMatchObject({ has_more: false, next_cursor: null });
    const got = await callOk(agent, 'get_customer', { id: made.id });
    // The REST wire format, and the REST ETag.
    const rest = await api.get(`/customers/${made.id}`);
    expect(got.data).toEqual(rest.body.data);
    expect(got.etag).toBe(rest.headers.get('etag'));
    const updated = await callOk(agent, 'update_customer', { id: made.id, etag: got.etag, customer: { organization: `${organization} renamed` } });
    expect(updated.data.organization).toBe(`${organization} renamed`);
    expect(updated.etag).not.toBe(got.etag);
    const stale = await callError(agent, 'update_customer', { id: made.id, etag: got.etag, customer: { organization: 'again' } });
    expect(stale).toMatchObject({ code: 'precondition.failed', status: 412 });
    const missing = await callError(agent, 'delete_customer', { id: made.id });
    expect(missing.code).toBe('precondition.required');
    await callOk(agent, 'delete_customer', { id: made.id, etag: updated.etag });
    expect((await callError(agent, 'get_customer', { id: made.id })).code).toBe('resource.not_found');
  });

  it('pages a list with the signed cursors REST uses', async () => {
    const prefix = unique('Paged');
    for (let i = 0; i < 3; i++) await createCustomer(api, { organization: `${prefix} ${i}` });
    const first = await callOk(agent, 'list_customers', { q: prefix, limit: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    const second = await callOk(agent, 'list_customers', { q: prefix, limit: 2, cursor: first.next_cursor });
    expect(second.data).toHaveLength(1);
    expect(new Set([...first.data, ...second.data].map((record: any) => record.id)).size).toBe(3);
    // The same cursor over REST reads the same page.
    const rest = await api.get(`/customers?q=${encodeURIComponent(prefix)}&limit=2&cursor=${encodeURIComponent(first.next_cursor)}`);
    expect(rest.body.data.map((record: any) => record.id)).toEqual(second.data.map((record: any) => record.id));
    expect((await callError(agent, 'list_customers', { cursor: 'forged' })).code).toBe('cursor.invalid');
    expect(await callError(agent, 'list_customers', { colour: 'red' })).toMatchObject({ code: 'validation.failed', errors: { colour: ['is not a permitted field'] } });
  });

  it('filters a list by custom fields given as the documented object keyed by definition ids', async () => {
    const field = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Customer', name: unique('Region '), type: 'text' })).id;
    const north = await createCustomer(api, { organization: unique('North co'), custom_fields: { [field]: 'North' } });
    await createCustomer(api, { organization: unique('South co'), custom_fields: { [field]: 'South' } });
    const page = await callOk(agent, 'list_customers', { custom_fields: { [field]: 'North' } });
    expect(page.data.map((record: any) => record.id)).toEqual([north.id]);
    expect(await callError(agent, 'list_customers', { custom_fields: { [randomUUID()]: 'North' } })).toMatchObject({ code: 'filter.invalid', status: 400 });
    expect(await callError(agent, 'list_customers', { custom_fields: 'North' })).toMatchObject({ code: 'filter.invalid' });
  });

  it('creates an invoice once per idempotency_key (a retry replays it) and refuses one without a key (idempotency_key.required)', async () => {
    const customer = await createCustomer(api, { organization: unique('Billed') });
    const key = randomUUID();
    const first = await callOk(agent, 'create_invoice', { invoice: { customer_id: customer.id }, idempotency_key: key });
    expect(first.data).toMatchObject({ customer_id: customer.id });
    const again = await callOk(agent, 'create_invoice', { invoice: { customer_id: customer.id }, idempotency_key: key });
    expect(again.data.id).toBe(first.data.id);
    expect(again.etag).toBe(first.etag);
    const other = await callError(agent, 'create_invoice', { invoice: { customer_id: customer.id, notes: 'other' }, idempotency_key: key });
    expect(other.code).toBe('idempotency_key.in_use');
    const without = await callError(agent, 'create_invoice', { invoice: { customer_id: customer.id } });
    expect(without.code).toBe('idempotency_key.required');
    const listed = await api.get(`/invoices?customer_id=${customer.id}`);
    expect(listed.body.data).toHaveLength(1);
  });

  it('answers validation.failed with the field errors an agent can correct', async () => {
    const problem = await callError(agent, 'create_customer', { customer: { organization: 'x', colour: 'red' } });
    expect(problem).toMatchObject({ code: 'validation.failed', status: 422, errors: { colour: ['is not a permitted field'] } });
    expect(problem.doc_url).toContain('validation-failed');
    expect(problem.request_id).toBeTruthy();
  });

  it('answers a call without the scope with auth.scope_missing naming it, though tools/list did not show the tool', async () => {
    const reader = await mcpClient(t, await keyWithScopes(['customers:read']));
    try {
      const problem = await callError(reader, 'create_customer', { customer: { organization: 'Nope' } });
      expect(problem).toMatchObject({ code: 'auth.scope_missing', status: 403, required_scope: 'customers:write' });
      expect((await callError(reader, 'list_jobs')).code).toBe('auth.scope_missing');
    } finally {
      await reader.close();
    }
  });

  it("answers another tenant's id with resource.not_found, as a missing record", async () => {
    const other = await t.newTenant();
    const theirs = await createCustomer(other.api, { organization: unique('Theirs') });
    expect(await callError(agent, 'get_customer', { id: theirs.id })).toMatchObject({ code: 'resource.not_found', status: 404 });
    const read = await other.api.get(`/customers/${theirs.id}`);
    expect(await callError(agent, 'update_customer', { id: theirs.id, etag: read.headers.get('etag'), customer: { organization: 'mine' } })).toMatchObject({ code: 'resource.not_found' });
    expect((await other.api.get(`/customers/${theirs.id}`)).body.data.organization).toBe(theirs.record.organization);
  });

  it('runs a declared action through its tool (convert_lead) with the same rules', async () => {
    const lead = await api.post('/leads', { lead: { organization: unique('Lead co') } });
    expect(lead.status, lead.text).toBe(201);
    const converted = await callOk(agent, 'convert_lead', { id: lead.body.data.id });
    expect(converted.data.customer).toMatchObject({ organization: lead.body.data.organization });
    expect((await callError(agent, 'convert_lead', { id: lead.body.data.id })).status).toBeGreaterThanOrEqual(400);
  });

  it('serves the OpenAPI document, the error catalog and the guides as MCP resources', async () => {
    const { resources } = await agent.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual(['fieldline://openapi.json', 'fieldline://errors', 'fieldline://docs/paging', 'fieldline://docs/etags', 'fieldline://docs/idempotency']);
    const catalog = JSON.parse(await readText(agent, 'fieldline://errors'));
    expect(catalog).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'precondition.failed', status: 412 })]));
    const openapi = JSON.parse(await readText(agent, 'fieldline://openapi.json'));
    expect(openapi.openapi).toBe('3.1.0');
    expect(await readText(agent, 'fieldline://docs/etags')).toContain('precondition.failed');
  });
});

describe('/llms.txt', () => {
  it('is a short public index for language-model tools that names the MCP endpoint and links the documents', async () => {
    const res = await fetch(`${t.url}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/markdown');
    const text = await res.text();
    expect(text).toMatch(/^# Fieldline\n/);
    for (const link of ['(/mcp)', '(/api/v2/openapi.json)', '(/api/v2/asyncapi.json)', '(/errors)']) expect(text).toContain(link);
  });
});

describe('rate limits: each tool call counts against the bucket of the request it stands for', () => {
  const limited = useTestApp({ rateLimits: { read: 4, write: 2 } });

  it('takes reads for read tools and writes for write tools, and refuses a call over the bucket with rate_limit.exceeded', async () => {
    const { tenant: own } = await limited.newTenant();
    const client = await mcpClient(limited, own.token); // initialize: one read
    try {
      await callOk(client, 'create_customer', { customer: { organization: unique('W1') } });
      await callOk(client, 'create_customer', { customer: { organization: unique('W2') } });
      const refused = await callError(client, 'create_customer', { customer: { organization: unique('W3') } });
      expect(refused).toMatchObject({ code: 'rate_limit.exceeded', status: 429 });
      expect(refused.retry_after_seconds).toBeGreaterThan(0);
      // The write bucket is spent, not the read one: a read tool still answers.
      await callOk(client, 'list_customers', { limit: 1 });
    } finally {
      await client.close();
    }
    // The REST write bucket of the key is the one MCP spent.
    const rest = await limited.client(own.token).post('/customers', { customer: { organization: unique('W4') } });
    expect(rest.status).toBe(429);
  });
});
