import WebSocket from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { codeOf, type Gql, type GraphqlResponse, withoutCost } from '../helpers/graphql.ts';
import { StatementLog } from '../helpers/statements.ts';

// The GraphQL abuse corpus: each hostile request gets its 4xx answer (or close code) before anything
// runs, and the server answers the next request. "Before anything runs" is checked from the SQL statements the
// app issues (startTestApp onQuery): a refused operation issues none beyond its authentication.

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery, env: { AUTH_CACHE_TTL_MS: '5000' } });
const { tenant, gql, api: rest } = useTenant(t);
let customerId: string;
beforeAll(async () => {
  const customer = await rest.post('/customers', { customer: { organization: 'Nested Ltd' } });
  customerId = customer.body.data.id;
  for (let i = 0; i < 3; i += 1) {
    await rest.post('/sites', { site: { siteable_id: customerId, siteable_type: 'Customer', site_name: `Site ${i}`, street: `${i} Main St`, city: 'Springfield', state: 'IL' } });
  }
});

/** A request's answer and the SQL it issued; the key is cached (AUTH_CACHE_TTL_MS), so a refusal issues none. */
async function measured(send: () => Promise<GraphqlResponse>, warm: Gql = gql) {
  await warm('{ __typename }'); // warms the key cache
  return statements.during(send);
}

async function expectRefused(send: () => Promise<GraphqlResponse>, status: number, codes: string[], warm: Gql = gql) {
  const { res, sql } = await measured(send, warm);
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  expect(codes).toContain(codeOf(res));
  expect(res.body.data ?? null).toBeNull();
  expect(sql, 'a refused operation runs nothing').toEqual([]);
  expect(res.cost.requestedQueryCost).toBeNull();
  expect(res.cost.throttleStatus?.maximumAvailable).toBeGreaterThan(0);
  // The server is up and answers the next request.
  const next = await gql('{ me { apiVersion } }');
  expect(next.status).toBe(200);
  expect(next.body.data?.me.apiVersion).toBeTruthy();
  return res;
}

function nestedSites(levels: number): string {
  let selection = 'id';
  for (let i = 0; i < levels; i += 1) selection = (levels - 1 - i) % 2 === 0 ? `sites { nodes { ${selection} } }` : `customer { ${selection} }`;
  return `query { customer(id: "${'$'}{ID}") { ${selection} } }`;
}

describe('GraphQL abuse corpus', () => {
  it('refuses a selection nested 20 levels deep (customer { sites { nodes { customer { sites ... } } } }) with 400 graphql.depth_exceeded, from a key holding only customers:read and sites:read', async () => {
    const narrow = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read', 'sites:read'] });
    const narrowGql = t.graphql(narrow.token);
    const query = nestedSites(20).replace('${ID}', customerId);
    await expectRefused(() => narrowGql(query), 400, ['graphql.depth_exceeded'], narrowGql);
    // Five levels pass the limits and are served (its estimate counts the lists it may return).
    const five = await narrowGql(nestedSites(5).replace('${ID}', customerId));
    expect(five.status).toBe(200);
    expect(five.body.data.customer.sites.nodes).toHaveLength(3);
    expect(five.cost.requestedQueryCost).toBeGreaterThan(five.cost.actualQueryCost!);
  });

  it('refuses the fragment doubling bomb (two aliases per level, 1 KB) before running it', async () => {
    const levels = 20;
    const fragments = ['fragment L0 on Customer { id organization }'];
    for (let i = 1; i <= levels; i += 1) fragments.push(`fragment L${i} on Customer { a: sites { nodes { customer { ...L${i - 1} } } } b: sites { nodes { customer { ...L${i - 1} } } } }`);
    const query = `query Bomb { customer(id: "${customerId}") { ...L${levels} } }\n${fragments.join('\n')}`;
    expect(query.length).toBeLessThan(2500);
    await expectRefused(() => gql(query), 400, ['graphql.too_many_aliases', 'graphql.cost_exceeded', 'graphql.depth_exceeded']);
    // Without aliases the same shape is refused by its cost: every connection level multiplies (four levels, 15
    // deep with their nodes, within the depth limit).
    const plain = ['fragment P0 on Customer { id }'];
    for (let i = 1; i <= 4; i += 1) plain.push(`fragment P${i} on Customer { sites { nodes { customer { ...P${i - 1} } } } }`);
    const costly = `query { customers(first: 100) { nodes { ...P4 } } }\n${plain.join('\n')}`;
    await expectRefused(() => gql(costly), 400, ['graphql.cost_exceeded']);
  });

  it('refuses 1,000 aliased customers(first: 100) fields in one request', async () => {
    const query = `{ ${Array.from({ length: 1000 }, (_, i) => `c${i}: customers(first: 100) { nodes { id } }`).join(' ')} }`;
    await expectRefused(() => gql(query), 400, ['graphql.too_many_aliases', 'graphql.cost_exceeded', 'graphql.too_many_tokens']);
    // Fifty of them are a fair request that costs what it asks for: 50 pages of up to 100 records.
    const fifty = await gql(`{ ${Array.from({ length: 50 }, (_, i) => `c${i}: customers(first: 100) { nodes { id } }`).join(' ')} }`);
    expect(fifty.status).toBe(200);
    expect(fifty.cost.requestedQueryCost).toBe(50 * 101);
  });

  it('costs the operation named by operationName, not another operation of the same document', async () => {
    const heavy = 'query Heavy { customers(first: 100) { nodes { sites { nodes { customer { sites { nodes { customer { sites { nodes { id } } } } } } } } } } }';
    const document = `${heavy}\nquery Light { customers(first: 2) { nodes { id } pageInfo { hasNextPage } } }`;
    const light = await gql(document, {}, { operationName: 'Light' });
    expect(light.status).toBe(200);
    expect(light.cost.requestedQueryCost).toBe(1 + 2); // the page and its records; pageInfo is part of the page
    expect(light.cost.actualQueryCost).toBeLessThanOrEqual(light.cost.requestedQueryCost!);
    await expectRefused(() => gql(document, {}, { operationName: 'Heavy' }), 400, ['graphql.cost_exceeded']);
    // Variables that do not coerce are the request error execution gives them, never an internal error.
    const bad = await gql('query Page($n: Int) { customers(first: $n) { nodes { id } } }', { n: 'many' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.message).toMatch(/\$n/);
  });

  it('refuses 200 aliased createLead mutations whole, creating no lead, and charges each accepted mutation field one REST write', async () => {
    const before = (await rest.get('/leads?limit=100')).body.data.length;
    const mutation = (n: number) => `mutation { ${Array.from({ length: n }, (_, i) => `m${i}: createLead(input: { firstName: "Flood ${i}" }) { lead { id } }`).join(' ')} }`;
    await expectRefused(() => gql(mutation(200)), 400, ['graphql.too_many_aliases']);
    expect((await rest.get('/leads?limit=100')).body.data.length).toBe(before);
    const writesBefore = Number((await rest.post('/customers', { customer: { organization: 'Write probe 1' } })).headers.get('ratelimit-remaining'));
    const five = await gql(mutation(5));
    expect(five.body.errors).toBeUndefined();
    const writesAfter = Number((await rest.post('/customers', { customer: { organization: 'Write probe 2' } })).headers.get('ratelimit-remaining'));
    expect(writesBefore - writesAfter).toBe(5 + 1);
  });

  it('refuses an argument nested 10,000 lists deep with 400 graphql.depth_exceeded, never internal.error', async () => {
    const query = `{ customers(filter: { statusIn: ${'['.repeat(10_000)}"Active"${']'.repeat(10_000)} }) { nodes { id } } }`;
    await expectRefused(() => gql(query), 400, ['graphql.depth_exceeded', 'graphql.too_many_tokens']);
  });

  it('refuses a selection 2,000 levels deep with a 400 catalog code, never internal.error', async () => {
    const query = `{ ${'me { '.repeat(2000)}apiVersion${' }'.repeat(2000)} }`;
    await expectRefused(() => gql(query), 400, ['graphql.depth_exceeded', 'graphql.too_many_tokens']);
  });

  it('refuses a document of more than 5,000 tokens with 400 graphql.too_many_tokens', async () => {
    const query = `{ me { ${'apiVersion '.repeat(6000)} } }`;
    await expectRefused(() => gql(query), 400, ['graphql.too_many_tokens']);
  });

  it('refuses variables nested 10,000 levels deep with a 400 catalog code, never internal.error', async () => {
    // Written by hand: JSON.stringify itself cannot nest that deep.
    const body = `{"query":"query($v: JSON) { me { apiVersion } }","variables":{"v":${'['.repeat(10_000)}"x"${']'.repeat(10_000)}}}`;
    const send = async (): Promise<GraphqlResponse> => {
      const res = await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.token}` }, body });
      return { status: res.status, headers: res.headers, ...withoutCost(await res.json()) };
    };
    const { res } = await measured(send);
    expect(res.status).toBe(400);
    expect(codeOf(res)).toBe('request.too_deep');
    expect((await gql('{ me { apiVersion } }')).status).toBe(200);
  });
});

describe('a realistic app query', () => {
  it('serves a dispatch board of 1,000 jobs with customer, site, contact, assignees and lines within the limits', async () => {
    const { tenant: own, gql: ownGql } = await t.newTenant();
    // 1,000 jobs seeded in SQL for speed (the API's own writes are covered elsewhere): 100 customers, each with a
    // site and a contact, every job with its customer's site and contact, one assignee and two lines.
    const account = own.accountId;
    const sql = (text: string, ...values: unknown[]) => t.database.raw.$queryRawUnsafe(text, ...values);
    await sql(
      `INSERT INTO customers (id, account_id, number, organization, status, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, g::text, 'Board Customer ' || g, 'Active', now(), now() FROM generate_series(1, 100) g`,
      account,
    );
    await sql(
      `INSERT INTO sites (id, account_id, siteable_type, siteable_id, customer_id, site_name, street, city, state, zip_code, position, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'Customer', c.id, c.id, 'Site of ' || c.organization, c.number || ' Main St', 'Springfield', 'IL', '62701', 0, now(), now()
       FROM customers c WHERE c.account_id = $1::uuid`,
      account,
    );
    await sql(
      `INSERT INTO contacts (id, account_id, first_name, last_name, mobile, linkable_type, linkable_id, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'Pat', 'Contact ' || c.number, '+1 555 ' || c.number, 'Customer', c.id, now(), now()
       FROM customers c WHERE c.account_id = $1::uuid`,
      account,
    );
    await sql(
      `INSERT INTO jobs (id, account_id, number, status, customer_id, site_id, contact_id, title, scheduled_start, scheduled_end, amount, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, g::text, 'Scheduled', c.id, s.id, ct.id, 'Service visit ' || g,
              timestamptz '2031-05-05T00:00:00Z' + g * interval '5 minutes', timestamptz '2031-05-05T02:00:00Z' + g * interval '5 minutes', 51, now(), now()
       FROM generate_series(0, 999) g
       JOIN customers c ON c.account_id = $1::uuid AND c.number = ((g % 100) + 1)::text
       JOIN sites s ON s.customer_id = c.id
       JOIN contacts ct ON ct.linkable_id = c.id`,
      account,
    );
    await sql(
      `INSERT INTO job_assignments (id, account_id, job_id, user_id, position, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, j.id, $2::bigint, 0, now(), now() FROM jobs j WHERE j.account_id = $1::uuid`,
      account,
      own.userId,
    );
    await sql(
      `INSERT INTO lineitems (id, account_id, job_id, position, description, quantity, unit_price, discount, taxable, labor_visible,
                              discount_amount, tax_amount, line_total, tax_applied, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, j.id, k, 'Line ' || k, 1, 25.5, 0, false, true, 0, 0, 25.5, false, now(), now()
       FROM jobs j CROSS JOIN generate_series(0, 1) k WHERE j.account_id = $1::uuid`,
      account,
    );
    const board = await ownGql(`{ dispatchBoard(from: "2031-05-01T00:00:00Z", to: "2031-05-10T00:00:00Z", limit: 1000) { hasMore jobs {
      id number status title scheduledStart scheduledEnd amount
      customer { id organization } site { id siteName street city state zipCode } contact { id firstName lastName mobile }
      assignees { nodes { id name email role } }
      lineitems { nodes { id description quantity unitPrice lineTotal item { id name } taxRate { id rate } } } } } }`);
    expect(board.status).toBe(200);
    expect(board.body.errors).toBeUndefined();
    expect(board.body.data.dispatchBoard.jobs).toHaveLength(1000);
    expect(board.body.data.dispatchBoard.jobs[999].lineitems.nodes).toHaveLength(2);
    expect(board.cost.requestedQueryCost).toBeLessThanOrEqual(50_000);
    expect(board.cost.actualQueryCost).toBeGreaterThanOrEqual(5000);
    expect(board.cost.actualQueryCost).toBeLessThanOrEqual(board.cost.requestedQueryCost!);
  }, 60_000);
});

// Last: the flood below exhausts the test address's bucket, which then refuses every token it must look up.
describe('GraphQL over WebSocket under abuse', () => {
  const wsUrl = () => `${t.url.replace('http', 'ws')}/graphql`;

  /** Opens a socket, sends `messages`, and resolves with its close code and reason. */
  function closeOf(messages: (string | Buffer)[], timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
      const timer = setTimeout(() => {
        socket.terminate();
        reject(new Error('the socket was not closed by the server'));
      }, timeoutMs);
      socket.on('open', () => {
        for (const message of messages) socket.send(message);
      });
      socket.on('error', () => {});
      socket.on('close', (code, reason) => {
        clearTimeout(timer);
        resolve({ code, reason: reason.toString() });
      });
    });
  }

  it('closes a socket whose message exceeds BODY_LIMIT_BYTES (30 MB connection_init) with 1009, before reading it as JSON', async () => {
    const huge = JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${tenant.token}`, padding: 'x'.repeat(30 * 1024 * 1024) } });
    expect(await closeOf([huge])).toMatchObject({ code: 1009 });
    expect((await gql('{ me { apiVersion } }')).status).toBe(200);
  });

  it('closes a socket that sends no connection_init within 3 seconds with 4408', async () => {
    expect(await closeOf([])).toMatchObject({ code: 4408 });
  });

  it('holds at most 20 open sockets per key: the 21st is closed with 4429 websocket.too_many_connections, and a closed socket frees its place', async () => {
    const init = JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${tenant.token}` } });
    const open = (): Promise<WebSocket> =>
      new Promise((resolve, reject) => {
        const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
        socket.on('open', () => socket.send(init));
        socket.on('message', (data) => (JSON.parse(data.toString()).type === 'connection_ack' ? resolve(socket) : undefined));
        socket.on('close', (code, reason) => reject(new Error(`${code} ${reason.toString()}`)));
        socket.on('error', () => {});
      });
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 20; i += 1) sockets.push(await open());
    await expect(open()).rejects.toThrow('4429 websocket.too_many_connections');
    await new Promise<void>((resolve) => {
      sockets[0].once('close', () => resolve());
      sockets[0].close();
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await open();
    for (const socket of [...sockets.slice(1), again]) socket.close();
  });

  it('answers 1,100 connection attempts with random tokens from one address with 4401, then 4429 rate_limit.exceeded once the address has spent its points', async () => {
    const randomToken = () => `svc_${crypto.randomUUID().replace(/^(.{14})./, '$17')}`;
    const codes: number[] = [];
    for (let batch = 0; batch < 1100; batch += 50) {
      const closes = await Promise.all(
        Array.from({ length: 50 }, () => closeOf([JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${randomToken()}` } })])),
      );
      codes.push(...closes.map((c) => c.code));
    }
    // The address's graphql bucket holds 100,000 points and each attempt takes 100 (a little less was left: the
    // first request of each new key in this file looked its token up from the same address).
    const refused = codes.filter((c) => c === 4401).length;
    expect(refused).toBeGreaterThan(950);
    expect(refused).toBeLessThanOrEqual(1000);
    expect(codes.filter((c) => c === 4429)).toHaveLength(1100 - refused);
    expect(codes.slice(-50).every((c) => c === 4429)).toBe(true);
  }, 60_000);
});


describe('the result bound and the result meter', () => {
  it('refuses before anything runs, with 400 graphql.result_too_large, an operation whose answer could hold over 64 Mi characters: 99 aliased pages of 100 customers with two 20,000-character texts', async () => {
    const aliases = Array.from({ length: 99 }, (_, i) => `a${i}: customers(first: 100) { nodes { description customerNotes } }`).join(' ');
    const res = await expectRefused(() => gql(`{ ${aliases} }`), 400, ['graphql.result_too_large']);
    expect(res.body.errors![0].message).toBe(
      "The answer could hold 396000000 characters (each field's longest value times the pages asked for); an operation that could hold more than 67108864 does not run. Ask for smaller pages (first, limit) or fewer long text fields.",
    );
    // Through fragments the bound is the same; one such page (4 million characters at most) is served.
    await expectRefused(() => gql(`{ ${Array.from({ length: 99 }, (_, i) => `a${i}: customers(first: 100) { ...Texts }`).join(' ')} } fragment Texts on CustomerConnection { nodes { description customerNotes } }`), 400, ['graphql.result_too_large']);
    const one = await gql('{ customers(first: 100) { nodes { description customerNotes } } }');
    expect(one.status).toBe(200);
  });


  it('refuses with 400 graphql.result_too_large a result that grows past 16M characters, counting every alias of a record field', async () => {
    const { api, gql: big } = await t.newTenant();
    const text = 'x'.repeat(20_000);
    for (let i = 0; i < 10; i += 1) {
      expect((await api.post('/customers', { customer: { organization: `Wordy ${i}`, description: text, customer_notes: text } })).status).toBe(201);
    }
    // 10 customers x 98 aliased selections of 20,000 characters: about 20M characters, at a cost of 11 points.
    const aliases = Array.from({ length: 49 }, (_, i) => `a${i}: description b${i}: customerNotes`).join(' ');
    const res = await big(`{ customers(first: 10) { nodes { id ${aliases} } } }`);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(codeOf(res)).toBe('graphql.result_too_large');
    expect(res.body.data ?? null).toBeNull();
    // The same records, selected once each, are served.
    const small = await big('{ customers(first: 10) { nodes { id description customerNotes } } }');
    expect(small.status).toBe(200);
    expect(small.body.data.customers.nodes).toHaveLength(10);
  });
});

describe('variables', () => {
  it('refuses with 413 request.body_too_large, before parsing it, a body of more than 10,000 values: 50,000 variables', async () => {
    const variables = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`v${i}`, i]));
    const { res, sql } = await measured(() => gql('{ me { apiVersion } }', variables));
    expect(sql, 'nothing runs').toEqual([]);
    expect(res.status).toBe(413);
    expect(codeOf(res)).toBe('request.body_too_large');
    expect(res.body.errors![0].message).toBe('The JSON holds more than 10000 values (object members and array entries).');
    // Commas inside strings are not values: one variable of 20,000 commas is parsed (and refused as undeclared).
    const commas = await gql('{ me { apiVersion } }', { text: ','.repeat(20_000) });
    expect(codeOf(commas)).toBe('graphql.variable_undeclared');
    // REST counts the same way.
    const restRes = await rest.post('/customers', { customer: { organization: 'Too Many Values', custom_fields: Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`k${i}`, 'x'])) } });
    expect(restRes.status).toBe(413);
    expect(restRes.body.code).toBe('request.body_too_large');
  });

  it('refuses with 400 graphql.variable_undeclared, before anything runs, variables no operation of the document declares (5,000 of them here)', async () => {
    const variables = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`v${i}`, i]));
    const res = await expectRefused(() => gql('{ me { apiVersion } }', variables), 400, ['graphql.variable_undeclared']);
    expect(res.body.errors![0].message).toBe('The variables give $v0, which no operation of the document declares.');
    // One undeclared beside the declared ones is refused the same way, and names itself.
    const one = await gql('query ($first: Int) { customers(first: $first) { nodes { id } } }', { first: 1, frist: 2 });
    expect(one.status).toBe(400);
    expect(codeOf(one)).toBe('graphql.variable_undeclared');
    expect(one.body.errors![0].message).toContain('$frist');
  });

  it('takes the variables of every operation of the document, as GraphiQL sends them, whichever operation runs', async () => {
    const document = 'query One ($first: Int) { customers(first: $first) { nodes { id } } } query Two ($id: ID!) { customer(id: $id) { id } }';
    const res = await gql(document, { first: 1, id: customerId }, { operationName: 'Two' });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.data.customer.id).toBe(customerId);
  });

  it('refuses whole, with one error, custom fields with more keys than the resource has definitions (9,000 keys in a createCustomer), and writes nothing', async () => {
    const customFields = Object.fromEntries(Array.from({ length: 9_000 }, (_, i) => [`k${i}`, 'x']));
    const { res, sql } = await measured(() => gql('mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } userErrors { field message code } } }', { input: { organization: 'Nine Thousand Keys', customFields } }));
    expect(res.status).toBe(200);
    const payload = res.body.data.createCustomer;
    expect(payload.customer).toBeNull();
    expect(payload.userErrors).toEqual([{ field: ['input', 'customFields'], message: 'customFields has 9000 keys; at most 0 (one per custom field definition of this resource)', code: 'validation.failed' }]);
    expect(sql.filter((statement) => /^\s*INSERT/i.test(statement)), 'nothing is written').toEqual([]);
    // REST answers the same error.
    const restRes = await rest.post('/customers', { customer: { organization: 'Nine Thousand Keys', custom_fields: customFields } });
    expect(restRes.status).toBe(422);
    expect(restRes.body.errors).toEqual({ custom_fields: ['has 9000 keys; at most 0 (one per custom field definition of this resource)'] });
  });

  it('names 50 invalid fields at most, and says how many there were, for a body with 60 unknown fields', async () => {
    const fields = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'x']));
    const res = await rest.post('/customers', { customer: { organization: 'Sixty Unknown Fields', ...fields } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toHaveLength(50);
    expect(res.body.detail).toMatch(/^60 fields are invalid; the first 50 are named: k0, k1, /);
  });
});

describe('introspection and fragments under the cost limits', () => {
  it('prices __schema at 10,000 points: one dump is served and reports it, 99 aliased dumps are refused with 400 graphql.cost_exceeded before anything runs', async () => {
    const one = await gql('{ __schema { types { name fields { name } } } }');
    expect(one.status).toBe(200);
    expect(one.body.data.__schema.types.length).toBeGreaterThan(50);
    expect(one.cost.requestedQueryCost).toBeGreaterThanOrEqual(10_000);
    const aliases = Array.from({ length: 99 }, (_, i) => `s${i}: __schema { types { name fields { name } } }`).join(' ');
    await expectRefused(() => gql(`{ ${aliases} }`), 400, ['graphql.cost_exceeded']);
    // Spread through fragments, the dumps count the same.
    await expectRefused(() => gql(`{ ...A ...A ...A ...A ...A ...A } fragment A on Query { __schema { queryType { name } } }`), 400, ['graphql.cost_exceeded']);
  });

  it('counts a mutation fragment bomb (2^24 spreads of createCustomer) without expanding it, and refuses it with 400 graphql.cost_exceeded before anything runs', async () => {
    let fragments = 'fragment M0 on Mutation { createCustomer(input: { organization: "Bomb" }) { customer { id } } }\n';
    for (let i = 1; i <= 24; i += 1) fragments += `fragment M${i} on Mutation { ...M${i - 1} ...M${i - 1} }\n`;
    const res = await expectRefused(() => gql(`mutation { ...M24 }\n${fragments}`), 400, ['graphql.cost_exceeded', 'graphql.too_many_aliases']);
    expect(res.body.errors![0].message).toMatch(/^The operation costs \d+ points/);
  });
});
