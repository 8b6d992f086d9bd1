import { describe, expect, it } from 'vitest';
import { limits } from '../../src/graphql/schema/cost.ts';
import { type Tenant, useTestApp } from '../helpers/app.ts';
import { codeOf, type Cost, withoutCost } from '../helpers/graphql.ts';
import { type ApiResponse, client, rateLimitHeaders } from '../helpers/http.ts';

// HTTP-level refusals of /graphql (body, media type, method, size, path, documents over the token and nesting
// limits) go through the same admission as every operation: limits.requestPoints taken from the `graphql` points
// bucket of the key (of the source IP without a valid key), RateLimit-* headers describing that bucket,
// extensions.cost in the body, and a catalog code in the project's GraphQL error shape, leaking no parser detail.
// None of them touches REST's read or write bucket.

/** What every HTTP request to /graphql takes from the graphql bucket, whatever it asks. */
const P = limits.requestPoints;
const GRAPHQL_LIMIT = 200 * P;
const READ_LIMIT = 40;
const WRITE_LIMIT = 20;
const BODY_LIMIT = 16 * 1024;
const QUERY = '{ me { apiVersion } }';

/** A request to the server at `url` (path /graphql unless given), JSON expected back. */
function send(url: string, method: string, options: { token?: string; headers?: Record<string, string>; body?: BodyInit; path?: string } = {}): Promise<ApiResponse> {
  const headers = { accept: 'application/json', ...options.headers };
  return client(url, options.token).request(method, options.path ?? '/graphql', { headers, raw: options.body });
}

const jsonPost = (body: string) => ({ headers: { 'content-type': 'application/json' }, body });

/** extensions.cost of a JSON answer; when it reports the bucket, it is the one the RateLimit-* headers describe. */
function costOf(res: ApiResponse): Cost {
  const { cost } = withoutCost(res.body);
  if (cost.throttleStatus) {
    const { limit, remaining } = rateLimitHeaders(res);
    expect(cost.throttleStatus).toMatchObject({ maximumAvailable: limit, currentlyAvailable: remaining });
  }
  return cost;
}

/**
 * One GraphQL error with exactly the catalog extensions, and nothing of the parser, the stack or yoga's codes;
 * extensions.cost beside it, with no operation cost (nothing ran).
 */
function expectCatalogError(res: ApiResponse, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.body?.data).toBeUndefined();
  expect(Object.keys(res.body ?? {}).sort()).toEqual(['errors', 'extensions']);
  expect(res.body.errors).toHaveLength(1);
  const [error] = res.body.errors;
  expect(Object.keys(error).sort()).toEqual(['extensions', 'message']);
  expect(Object.keys(error.extensions).sort()).toEqual(['code', 'docUrl', 'requestId', 'status', 'title']);
  expect(error.extensions).toMatchObject({ code, status, requestId: res.headers.get('x-request-id') });
  expect(error.extensions.docUrl).toMatch(new RegExp(`/${code.replace(/[._]/g, '-')}$`));
  expect(res.text).not.toMatch(/originalError|SyntaxError|at position|Unexpected token|stack|node_modules|\.ts\b|BAD_REQUEST/);
  expect(costOf(res)).toMatchObject({ requestedQueryCost: null, actualQueryCost: null });
}

describe('HTTP-level errors of /graphql', () => {
  const t = useTestApp({ rateLimits: { graphql: GRAPHQL_LIMIT, read: READ_LIMIT, write: WRITE_LIMIT }, env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
  let probes = 0;

  /** A key of its own, so that its buckets start full. */
  async function freshKey(): Promise<Tenant> {
    return t.tenant();
  }

  /** The key's REST buckets, seen by one REST read and one REST write (each takes one): `taken` writes were already taken. */
  async function expectRestBuckets(token: string, taken: { writes: number } = { writes: 0 }) {
    const rest = t.client(token);
    const read = await rest.get('/me');
    expect(rateLimitHeaders(read)).toMatchObject({ limit: READ_LIMIT, remaining: READ_LIMIT - 1 });
    probes += 1;
    const write = await rest.post('/customers', { customer: { organization: `REST probe ${probes}` } });
    expect(write.status, write.text).toBe(201);
    expect(rateLimitHeaders(write)).toMatchObject({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT - 1 - taken.writes });
  }

  it('answers malformed JSON with 400 request.malformed_json, taking requestPoints from the graphql bucket of the key and leaking no parser message', async () => {
    const { token } = await freshKey();
    for (const [n, body] of [`{"query": "${QUERY}"`, '{bad', ''].entries()) {
      const res = await send(t.url, 'POST', { token, ...jsonPost(body) });
      expectCatalogError(res, 400, 'request.malformed_json');
      expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P * (n + 1) });
    }
    // An operation then takes its requestPoints and its cost from the same bucket.
    const ok = await t.graphql(token)(QUERY);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.headers.get('ratelimit-remaining')).toBe(String(GRAPHQL_LIMIT - 4 * P - ok.cost.requestedQueryCost!));
    // REST's read and write buckets were not touched.
    await expectRestBuckets(token);
  });

  it('answers a JSON body that is not one object (a batch, a string) with 400 request.malformed_json', async () => {
    const { token } = await freshKey();
    for (const [n, body] of [`[{"query": "${QUERY}"}]`, '"{ me { apiVersion } }"', 'null'].entries()) {
      const res = await send(t.url, 'POST', { token, ...jsonPost(body) });
      expectCatalogError(res, 400, 'request.malformed_json');
      expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P * (n + 1) });
    }
  });

  it('answers a body whose query, operationName, variables or extensions has the wrong JSON type with 400 request.malformed_json', async () => {
    const { token } = await freshKey();
    for (const body of [
      { query: QUERY, variables: 'x' },
      { query: QUERY, variables: [1] },
      { query: QUERY, extensions: 'y' },
      { query: 5 },
      { query: QUERY, operationName: 7 },
    ]) {
      const res = await send(t.url, 'POST', { token, ...jsonPost(JSON.stringify(body)) });
      expectCatalogError(res, 400, 'request.malformed_json');
      expect(res.body.errors[0].message).toMatch(/^(query|operationName|variables|extensions) must be/);
    }
    const ok = await send(t.url, 'POST', { token, ...jsonPost(JSON.stringify({ query: QUERY, variables: null, extensions: {}, operationName: null })) });
    expect(ok.status, ok.text).toBe(200);
    expect(costOf(ok).requestedQueryCost).toBeGreaterThan(0);
  });

  it('answers malformed variables of a GET with 400 request.malformed_json from the graphql bucket', async () => {
    const { token } = await freshKey();
    const res = await send(t.url, 'GET', { token, path: `/graphql?query=${encodeURIComponent(QUERY)}&variables=${encodeURIComponent('{oops')}` });
    expectCatalogError(res, 400, 'request.malformed_json');
    expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P });
  });

  it('answers a POST body that is not JSON with 415 request.unsupported_media_type', async () => {
    const { token } = await freshKey();
    const cases: Record<string, string>[] = [
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      { 'content-type': 'application/graphql' },
      {},
    ];
    for (const [n, headers] of cases.entries()) {
      const res = await send(t.url, 'POST', { token, headers, body: JSON.stringify({ query: QUERY }) });
      expectCatalogError(res, 415, 'request.unsupported_media_type');
      expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P * (n + 1) });
    }
  });

  it('answers other methods than GET and POST with 405 method.not_allowed and Allow: GET, POST, from the graphql bucket', async () => {
    const { token } = await freshKey();
    const methods = ['PUT', 'PATCH', 'DELETE'];
    for (const [n, method] of methods.entries()) {
      const res = await send(t.url, method, { token, ...jsonPost(JSON.stringify({ query: QUERY })) });
      expectCatalogError(res, 405, 'method.not_allowed');
      expect(res.headers.get('allow')).toBe('GET, POST');
      expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P * (n + 1) });
    }
    for (const [n, method] of ['OPTIONS', 'HEAD'].entries()) {
      const res = await send(t.url, method, { token });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST');
      expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P * (methods.length + n + 1) });
    }
  });

  it("answers a browser's CORS preflight with 204 before admission (no key, no bucket), allowing no origin by default (test/http/cors.test.ts)", async () => {
    const res = await send(t.url, 'OPTIONS', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBe(204);
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });

  it('answers a mutation sent with GET with 405 method.not_allowed and Allow: POST, running nothing and taking no write', async () => {
    const tenant = await freshKey();
    const mutation = 'mutation { createCustomer(input: { organization: "Via GET" }) { etag } }';
    const res = await send(t.url, 'GET', { token: tenant.token, path: `/graphql?query=${encodeURIComponent(mutation)}` });
    expectCatalogError(res, 405, 'method.not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
    expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P });
    const listed = await t.graphql(tenant.token)('{ customers(filter: { organization: "Via GET" }) { nodes { id } } }');
    expect(listed.body.data.customers.nodes).toEqual([]);
    await expectRestBuckets(tenant.token);
  });

  it('answers a body over BODY_LIMIT_BYTES with 413 request.body_too_large, announced or streamed', async () => {
    const { token } = await freshKey();
    const big = JSON.stringify({ query: QUERY, variables: { pad: 'x'.repeat(BODY_LIMIT) } });
    const announced = await send(t.url, 'POST', { token, ...jsonPost(big) });
    expectCatalogError(announced, 413, 'request.body_too_large');
    expect(rateLimitHeaders(announced)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P });

    const chunks = [big.slice(0, 1000), big.slice(1000, 2000), big.slice(2000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await send(t.url, 'POST', { token, headers: { 'content-type': 'application/json' }, body: stream });
    expectCatalogError(streamed, 413, 'request.body_too_large');
    expect(rateLimitHeaders(streamed)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - 2 * P });
  });

  it('answers another path under /graphql with 404 route.not_found, from the graphql bucket', async () => {
    const { token } = await freshKey();
    const res = await send(t.url, 'GET', { token, path: `/graphql/extra?query=${encodeURIComponent(QUERY)}` });
    expectCatalogError(res, 404, 'route.not_found');
    expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P });
  });

  it('refuses a missing or invalid key before the problems of the body, as REST does; a wrong method comes first', async () => {
    for (const token of [undefined, 'svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556']) {
      const code = token ? 'auth.invalid_token' : 'auth.missing_token';
      for (const res of [
        await send(t.url, 'POST', { token, ...jsonPost('{bad') }),
        await send(t.url, 'POST', { token, headers: { 'content-type': 'text/plain' }, body: 'x' }),
        await send(t.url, 'POST', { token, ...jsonPost('x'.repeat(BODY_LIMIT + 1)) }),
      ]) {
        expectCatalogError(res, 401, code);
        // The source address's graphql bucket.
        expect(rateLimitHeaders(res).limit).toBe(GRAPHQL_LIMIT);
      }
      const put = await send(t.url, 'PUT', { token });
      expectCatalogError(put, 405, 'method.not_allowed');
      expect(rateLimitHeaders(put).limit).toBe(GRAPHQL_LIMIT);
    }
  });

  it('refuses a document of more than maxTokens tokens or nested deeper than maxNesting brackets with 400 before parsing it, after the key and the version', async () => {
    const { token } = await freshKey();
    const manyTokens = `{ ${'a '.repeat(limits.maxTokens)}}`;
    const deep = `{ customers(statusIn: ${'['.repeat(limits.maxNesting)}"Active"${']'.repeat(limits.maxNesting)}) { nodes { id } } }`;
    const post = (query: string, options: { token?: string; headers?: Record<string, string> } = {}) =>
      send(t.url, 'POST', { ...options, headers: { 'content-type': 'application/json', ...options.headers }, body: JSON.stringify({ query }) });

    const tooLong = await post(manyTokens, { token });
    expectCatalogError(tooLong, 400, 'graphql.too_many_tokens');
    // Only the request's points were taken: no operation was analysed, let alone run.
    expect(rateLimitHeaders(tooLong)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P });
    const tooDeep = await post(deep, { token });
    expectCatalogError(tooDeep, 400, 'graphql.depth_exceeded');
    expect(rateLimitHeaders(tooDeep)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - 2 * P });
    const tooDeepByGet = await send(t.url, 'GET', { token, path: `/graphql?query=${encodeURIComponent(deep)}` });
    expectCatalogError(tooDeepByGet, 400, 'graphql.depth_exceeded');
    expect(rateLimitHeaders(tooDeepByGet)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - 3 * P });

    // The key and the version are checked first.
    expectCatalogError(await post(manyTokens), 401, 'auth.missing_token');
    expectCatalogError(await post(deep, { token: 'svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556' }), 401, 'auth.invalid_token');
    expectCatalogError(await post(manyTokens, { token, headers: { 'fieldline-version': '1999-01-01' } }), 400, 'version.invalid');
    expectCatalogError(await post(deep, { token, headers: { 'fieldline-version': '1999-01-01' } }), 400, 'version.invalid');
  });

  it('still answers valid requests, by POST (application/json or +json) and by GET, taking requestPoints and the cost from the graphql bucket', async () => {
    const { token } = await freshKey();
    let expected = GRAPHQL_LIMIT;
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/graphql+json']) {
      const res = await send(t.url, 'POST', { token, headers: { 'content-type': type }, body: JSON.stringify({ query: QUERY }) });
      expect(res.status, res.text).toBe(200);
      expect(withoutCost(res.body).body).toEqual({ data: { me: { apiVersion: expect.any(String) } } });
      const cost = costOf(res);
      expect(cost.requestedQueryCost).toBeGreaterThan(0);
      expected -= P + cost.requestedQueryCost!;
      expect(rateLimitHeaders(res)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: expected });
    }
    const viaGet = await send(t.url, 'GET', { token, path: `/graphql?query=${encodeURIComponent(QUERY)}` });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.data.me.apiVersion).toEqual(expect.any(String));
    expected -= P + costOf(viaGet).requestedQueryCost!;
    expect(rateLimitHeaders(viaGet)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: expected });
    const mutation = await t.graphql(token)('mutation { createCustomer(input: { organization: "Transport Co" }) { etag } }');
    expect(mutation.body.errors).toBeUndefined();
    // The headers still describe the graphql bucket; the mutation field also took one REST write.
    expected -= P + mutation.cost.requestedQueryCost!;
    expect(rateLimitHeaders(mutation)).toMatchObject({ limit: GRAPHQL_LIMIT, remaining: expected });
    await expectRestBuckets(token, { writes: 1 });
  });

  it('serves GraphiQL to a browser without a key, with the RateLimit headers of the source IP\'s graphql bucket', async () => {
    const res = await send(t.url, 'GET', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('Fieldline GraphQL');
    expect(rateLimitHeaders(res).limit).toBe(GRAPHQL_LIMIT);
    const again = await send(t.url, 'GET', { headers: { accept: 'text/html' } });
    expect(rateLimitHeaders(again).remaining).toBe(rateLimitHeaders(res).remaining - P);
  });
});

describe('an unauthenticated flood of bad requests', () => {
  const t = useTestApp({ rateLimits: { graphql: 3 * P } });

  it("is limited by source address in the graphql bucket, whatever the method or body, and answers 429 rate_limit.exceeded; REST's buckets are not touched", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await send(t.url, 'POST', jsonPost('{bad'))).status);
    const refused = await send(t.url, 'POST', jsonPost('{bad'));
    statuses.push(refused.status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expectCatalogError(refused, 429, 'rate_limit.exceeded');
    expect(rateLimitHeaders(refused)).toMatchObject({ limit: 3 * P, remaining: 0 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Every other request to /graphql from the address comes out of the same bucket: unreadable bodies, other
    // methods, queries.
    expect((await send(t.url, 'POST', { headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(429);
    expect((await send(t.url, 'PUT')).status).toBe(429);
    const query = await t.graphql()(QUERY);
    expect(query.status).toBe(429);
    expect(codeOf(query)).toBe('rate_limit.exceeded');
    // REST's read and write buckets of the address are its own: still answered (401, no key).
    const rest = t.client();
    expect((await rest.get('/me')).status).toBe(401);
    expect((await rest.post('/customers', { customer: { organization: 'Anonymous' } })).status).toBe(401);
  });
});
