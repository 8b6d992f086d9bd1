import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { useTenant, useTestApp, type TestApp } from '../helpers/app.ts';
import { withoutCost } from '../helpers/graphql.ts';
import { testRedisUrl, useRedisInstances } from '../helpers/redis.ts';

// Persisted operations (src/graphql/transport/persisted.ts): automatic persisted queries as Apollo Client, urql and Relay
// tooling speak them, over POST and GET, and the allowlist mode of GRAPHQL_PERSISTED_OPERATIONS.

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, any> }[] };
}

async function answer(res: Response): Promise<Answer> {
  const json = await res.json();
  return { status: res.status, headers: res.headers, body: withoutCost(json).body };
}

function post(t: TestApp, token: string | undefined, body: Record<string, unknown>): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(`${t.url}/graphql`, { method: 'POST', headers, body: JSON.stringify(body) }).then(answer);
}

function get(t: TestApp, token: string | undefined, params: Record<string, unknown>): Promise<Answer> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(`${t.url}/graphql?${search}`, { headers }).then(answer);
}

function expectCode(res: Answer, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body)).toBe(code);
}

describe('automatic persisted queries', () => {
  const t = useTestApp();
  const { tenant, api } = useTenant(t);
  const query = `query Me${randomBytes(3).toString('hex')} { me { apiVersion account { name } } }`;

  it('answers PersistedQueryNotFound for an unknown hash, then registers the query and runs it by hash (POST and GET)', async () => {
    const miss = await post(t, tenant.token, { extensions: persisted(query) });
    expect(miss.status).toBe(404);
    expect(miss.body.errors).toHaveLength(1);
    expect(miss.body.errors![0].message).toBe('PersistedQueryNotFound');
    expect(miss.body.errors![0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');

    const register = await post(t, tenant.token, { query, extensions: persisted(query) });
    expect(register.status, JSON.stringify(register.body)).toBe(200);
    expect(register.body.data.me.account.name).toBeTruthy();

    const byPost = await post(t, tenant.token, { extensions: persisted(query) });
    expect(byPost.status).toBe(200);
    expect(byPost.body).toEqual(register.body);

    const byGet = await get(t, tenant.token, { extensions: persisted(query) });
    expect(byGet.status, JSON.stringify(byGet.body)).toBe(200);
    expect(byGet.body).toEqual(register.body);

    // The GraphQL-over-HTTP form: documentId sha256:<hash>.
    const byId = await get(t, tenant.token, { documentId: `sha256:${sha256(query)}` });
    expect(byId.body).toEqual(register.body);
  });

  it('refuses a hash that is not the SHA-256 of the query, storing nothing', async () => {
    const other = '{ me { apiVersion } }  # other';
    const mismatch = await post(t, tenant.token, { query: other, extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ me { key { id } } }') } } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors![0].extensions?.code).toBe('PERSISTED_QUERY_MISMATCH');
    expect(mismatch.body.errors![0].message).toMatch(/not the SHA-256 of the query/);
    const after = await post(t, tenant.token, { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ me { key { id } } }') } } });
    expect(after.body.errors![0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const malformed = await post(t, tenant.token, { extensions: { persistedQuery: { version: 2, sha256Hash: 'x' } } });
    expectCode(malformed, 400, 'request.malformed_json');
  });

  it('registers nothing for a request that is not admitted', async () => {
    const anonymous = '{ me { key { scopes } } }';
    const refused = await post(t, undefined, { query: anonymous, extensions: persisted(anonymous) });
    expectCode(refused, 401, 'auth.missing_token');
    const lookup = await post(t, tenant.token, { extensions: persisted(anonymous) });
    expect(lookup.body.errors![0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('runs a stored document through every limit on each run (cost by its variables) and refuses a stored mutation sent with GET', async () => {
    const deep = 'query Deep($n: Int!) { customers(first: $n) { nodes { sites(first: $n) { nodes { customer { sites(first: $n) { nodes { id } } } } } } } }';
    const small = await post(t, tenant.token, { query: deep, variables: { n: 1 }, extensions: persisted(deep) });
    expect(small.status, JSON.stringify(small.body)).toBe(200);
    const costly = await post(t, tenant.token, { variables: { n: 100 }, extensions: persisted(deep) });
    expectCode(costly, 400, 'graphql.cost_exceeded');

    const mutation = `mutation { createLead(input: { firstName: "Persisted ${randomBytes(3).toString('hex')}" }) { lead { id } } }`;
    const created = await post(t, tenant.token, { query: mutation, extensions: persisted(mutation) });
    expect(created.body.data.createLead.lead.id).toBeTruthy();
    const before = (await api.get('/leads?limit=100')).body.data.length;
    const viaGet = await get(t, tenant.token, { extensions: persisted(mutation) });
    expectCode(viaGet, 405, 'method.not_allowed');
    expect(viaGet.headers.get('allow')).toBe('POST');
    expect((await api.get('/leads?limit=100')).body.data.length).toBe(before);
    // By POST the stored mutation runs.
    const again = await post(t, tenant.token, { extensions: persisted(mutation) });
    expect(again.body.data.createLead.lead.id).toBeTruthy();
  });

  it('never stores a document over the token limit (admission refuses it first)', async () => {
    const huge = `{ ${Array.from({ length: 2600 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const refused = await post(t, tenant.token, { query: huge, extensions: persisted(huge) });
    expectCode(refused, 400, 'graphql.too_many_tokens');
    const lookup = await post(t, tenant.token, { extensions: persisted(huge) });
    expect(lookup.body.errors![0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

describe('allowlist mode (GRAPHQL_PERSISTED_OPERATIONS)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fl-persisted-'));
  const allowed = 'query AllowedMe { me { apiVersion } }';
  const allowedMutation = 'mutation AllowedLead($name: String) { createLead(input: { firstName: $name }) { lead { id } } }';
  const manifest = join(dir, 'manifest.json');
  // Apollo's persisted query manifest format; ids are opaque (here: sha256 of the body, as Apollo's generator makes them).
  writeFileSync(
    manifest,
    JSON.stringify({
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [
        { id: sha256(allowed), body: allowed, name: 'AllowedMe', type: 'query' },
        { id: 'lead-1', body: allowedMutation, name: 'AllowedLead', type: 'mutation' },
      ],
    }),
  );
  const t = useTestApp({ env: { GRAPHQL_PERSISTED_OPERATIONS: manifest } });
  const { tenant } = useTenant(t);

  it("runs the manifest's operations by id, and refuses any other document with graphql.operation_not_allowed", async () => {
    const byHash = await post(t, tenant.token, { extensions: persisted(allowed) });
    expect(byHash.status, JSON.stringify(byHash.body)).toBe(200);
    expect(byHash.body.data.me.apiVersion).toBeTruthy();
    const byGet = await get(t, tenant.token, { extensions: persisted(allowed) });
    expect(byGet.body).toEqual(byHash.body);
    const inFull = await post(t, tenant.token, { query: allowed });
    expect(inFull.body).toEqual(byHash.body);
    const byDocumentId = await post(t, tenant.token, { documentId: 'lead-1', variables: { name: 'Allowlisted' } });
    expect(byDocumentId.body.data.createLead.lead.id, JSON.stringify(byDocumentId.body)).toBeTruthy();

    const other = '{ me { key { id } } }';
    expectCode(await post(t, tenant.token, { query: other }), 400, 'graphql.operation_not_allowed');
    expectCode(await post(t, tenant.token, { query: other, extensions: persisted(other) }), 400, 'graphql.operation_not_allowed');
    // No registration: the hash stays unknown.
    expectCode(await post(t, tenant.token, { extensions: persisted(other) }), 400, 'graphql.operation_not_allowed');
    expectCode(await get(t, tenant.token, { query: other }), 400, 'graphql.operation_not_allowed');
    // Introspection is refused unless the manifest holds it.
    expectCode(await post(t, tenant.token, { query: '{ __schema { types { name } } }' }), 400, 'graphql.operation_not_allowed');
    // Admission still comes first.
    expectCode(await post(t, undefined, { extensions: persisted(allowed) }), 401, 'auth.missing_token');
    // A manifest mutation by id with GET is still 405.
    expectCode(await get(t, tenant.token, { documentId: 'lead-1' }), 405, 'method.not_allowed');
  });

  it('refuses a document outside the manifest over WebSocket too', async () => {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: any[] = [];
    const next = () =>
      new Promise<any>((resolve) => {
        const poll = () => (messages.length ? resolve(messages.shift()) : setTimeout(poll, 5));
        poll();
      });
    ws.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${tenant.token}` } }));
    expect((await next()).type).toBe('connection_ack');
    ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: '{ me { key { id } } }' } }));
    const refused = await next();
    expect(refused.type).toBe('error');
    expect(refused.payload[0].extensions.code).toBe('graphql.operation_not_allowed');
    ws.send(JSON.stringify({ id: '2', type: 'subscribe', payload: { query: allowed } }));
    const ran = await next();
    expect(ran.type, JSON.stringify(ran)).toBe('next');
    expect(ran.payload.data.me.apiVersion).toBeTruthy();
    ws.close();
  });

  it('fails startup on a missing or malformed manifest, naming the problem', async () => {
    const cases: [string, RegExp][] = [
      [join(dir, 'absent.json'), /GRAPHQL_PERSISTED_OPERATIONS: cannot read the persisted operations manifest .*absent\.json: ENOENT/],
      [write('bad.json', '{ not json'), /is not valid JSON/],
      [write('array.json', '["{ me { apiVersion } }"]'), /must be a JSON object/],
      [write('syntax.json', JSON.stringify({ a: '{ me { ' })), /does not parse \("a"\)/],
      [write('apollo.json', JSON.stringify({ operations: [{ body: '{ me { apiVersion } }' }] })), /operations\[0\] without a string "id"/],
    ];
    // main.ts loads the configuration first thing; startTestApp would open a database before it.
    for (const [path, message] of cases) expect(() => loadConfig({ GRAPHQL_PERSISTED_OPERATIONS: path })).toThrow(message);
    expect(loadConfig({ GRAPHQL_PERSISTED_OPERATIONS: manifest }).GRAPHQL_PERSISTED_OPERATIONS?.manifest.byId.size).toBe(2);
  });

  function write(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }
});

// Two API processes behind a load balancer share registered queries through Redis (TEST_REDIS_URL, as
// test/rest/rate-limit-redis.test.ts).
describe.skipIf(!testRedisUrl)('automatic persisted queries shared through Redis', () => {
  const { apps, redises } = useRedisInstances();

  it('runs on one instance a query registered on the other', async () => {
    const created = await apps[0].app.domain.admin.createAccount({ name: 'Shared APQ' });
    const query = `query Shared${randomBytes(3).toString('hex')} { me { account { name } } }`;
    expect((await post(apps[1], created.key.token, { extensions: persisted(query) })).body.errors![0].extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await post(apps[0], created.key.token, { query, extensions: persisted(query) });
    expect(registered.body.data.me.account.name).toBe('Shared APQ');
    const elsewhere = await get(apps[1], created.key.token, { extensions: persisted(query) });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body).toEqual(registered.body);
    expect(await redises[0].ttl(`fl_apq:${sha256(query)}`)).toBeGreaterThan(86_000);
  });
});
