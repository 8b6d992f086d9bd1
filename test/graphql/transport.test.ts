import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { codeOf, graphqlClient } from './client.ts';

// HTTP-level refusals of /graphql (body, media type, method, size) go through the same admission as every
// operation: one request taken from the bucket of the key (of the source IP without a key), RateLimit-*
// headers, and a catalog code in the project's GraphQL error shape, leaking no parser detail.

const READ_LIMIT = 40;
const WRITE_LIMIT = 20;
const BODY_LIMIT = 2048;
const QUERY = '{ me { apiVersion } }';

interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

async function send(url: string, method: string, options: { token?: string; headers?: Record<string, string>; body?: BodyInit; path?: string } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const init: RequestInit & { duplex?: 'half' } = { method, headers, body: options.body };
  if (options.body instanceof ReadableStream) init.duplex = 'half';
  const res = await fetch(`${url}${options.path ?? '/graphql'}`, init);
  const text = await res.text();
  let body: any = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, text, body };
}

const jsonPost = (body: string) => ({ headers: { 'content-type': 'application/json' }, body });

/** The RateLimit-* headers, which every response of /graphql must carry. */
function rateOf(res: RawResponse) {
  const raw = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((name) => res.headers.get(name));
  for (const value of raw) expect(value, `${res.status} ${res.text.slice(0, 200)}`).toMatch(/^\d+$/);
  const [limit, remaining, reset] = raw.map(Number);
  return { limit, remaining, reset };
}

/** One GraphQL error with exactly the catalog extensions, and nothing of the parser, the stack or yoga's codes. */
function expectCatalogError(res: RawResponse, status: number, code: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(res.body?.data).toBeUndefined();
  expect(res.body?.errors).toHaveLength(1);
  const [error] = res.body.errors;
  expect(Object.keys(error).sort()).toEqual(['extensions', 'message']);
  expect(Object.keys(error.extensions).sort()).toEqual(['code', 'docUrl', 'requestId', 'status', 'title']);
  expect(error.extensions).toMatchObject({ code, status, requestId: res.headers.get('x-request-id') });
  expect(error.extensions.docUrl).toMatch(new RegExp(`/${code.replace(/[._]/g, '-')}$`));
  expect(res.text).not.toMatch(/originalError|SyntaxError|at position|Unexpected token|stack|node_modules|\.ts\b|BAD_REQUEST/);
}

describe('HTTP-level errors of /graphql', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { read: READ_LIMIT, write: WRITE_LIMIT }, env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) } });
  });
  afterAll(() => t.close());

  /** A key of its own, so that its buckets start full. */
  async function freshKey(): Promise<Tenant> {
    return t.tenant();
  }

  it('answers malformed JSON with 400 request.malformed_json, taking from the write bucket and leaking no parser message', async () => {
    const { token } = await freshKey();
    for (const [n, body] of [`{"query": "${QUERY}"`, '{bad', ''].entries()) {
      const res = await send(t.url, 'POST', { token, ...jsonPost(body) });
      expectCatalogError(res, 400, 'request.malformed_json');
      expect(rateOf(res)).toMatchObject({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT - 1 - n });
    }
    // The read bucket was not touched.
    const ok = await graphqlClient(t.url, token)(QUERY);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.headers.get('ratelimit-remaining')).toBe(String(READ_LIMIT - 1));
  });

  it('answers a JSON body that is not one object (a batch, a string) with 400 request.malformed_json', async () => {
    const { token } = await freshKey();
    for (const body of [`[{"query": "${QUERY}"}]`, '"{ me { apiVersion } }"', 'null']) {
      const res = await send(t.url, 'POST', { token, ...jsonPost(body) });
      expectCatalogError(res, 400, 'request.malformed_json');
      expect(rateOf(res).limit).toBe(WRITE_LIMIT);
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
  });

  it('answers malformed variables of a GET with 400 request.malformed_json from the read bucket', async () => {
    const { token } = await freshKey();
    const res = await send(t.url, 'GET', { token, path: `/graphql?query=${encodeURIComponent(QUERY)}&variables=${encodeURIComponent('{oops')}` });
    expectCatalogError(res, 400, 'request.malformed_json');
    expect(rateOf(res)).toMatchObject({ limit: READ_LIMIT, remaining: READ_LIMIT - 1 });
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
      expect(rateOf(res)).toMatchObject({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT - 1 - n });
    }
  });

  it('answers other methods than GET and POST with 405 method.not_allowed and Allow: GET, POST', async () => {
    const { token } = await freshKey();
    for (const [n, method] of ['PUT', 'PATCH', 'DELETE'].entries()) {
      const res = await send(t.url, method, { token, ...jsonPost(JSON.stringify({ query: QUERY })) });
      expectCatalogError(res, 405, 'method.not_allowed');
      expect(res.headers.get('allow')).toBe('GET, POST');
      expect(rateOf(res)).toMatchObject({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT - 1 - n });
    }
    for (const method of ['OPTIONS', 'HEAD']) {
      const res = await send(t.url, method, { token });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST');
      expect(rateOf(res).limit).toBe(READ_LIMIT);
    }
  });

  it("lets a browser's CORS preflight through without a key (yoga's CORS answer), from the read bucket of the source IP", async () => {
    const res = await send(t.url, 'OPTIONS', {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((res.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toContain('authorization');
    expect(rateOf(res).limit).toBe(READ_LIMIT);
  });

  it('answers a mutation sent with GET with 405 method.not_allowed and Allow: POST, running nothing', async () => {
    const tenant = await freshKey();
    const mutation = 'mutation { createCustomer(input: { organization: "Via GET" }) { etag } }';
    const res = await send(t.url, 'GET', { token: tenant.token, path: `/graphql?query=${encodeURIComponent(mutation)}` });
    expectCatalogError(res, 405, 'method.not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
    expect(rateOf(res).limit).toBe(WRITE_LIMIT);
    const listed = await graphqlClient(t.url, tenant.token)('{ customers(organization: "Via GET") { nodes { id } } }');
    expect(listed.body.data.customers.nodes).toEqual([]);
  });

  it('answers a body over BODY_LIMIT_BYTES with 413 request.body_too_large, announced or streamed', async () => {
    const { token } = await freshKey();
    const big = JSON.stringify({ query: QUERY, variables: { pad: 'x'.repeat(BODY_LIMIT) } });
    const announced = await send(t.url, 'POST', { token, ...jsonPost(big) });
    expectCatalogError(announced, 413, 'request.body_too_large');
    expect(rateOf(announced)).toMatchObject({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT - 1 });

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
    expect(rateOf(streamed)).toMatchObject({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT - 2 });
  });

  it('answers another path under /graphql with 404 route.not_found', async () => {
    const { token } = await freshKey();
    const res = await send(t.url, 'GET', { token, path: `/graphql/extra?query=${encodeURIComponent(QUERY)}` });
    expectCatalogError(res, 404, 'route.not_found');
    expect(rateOf(res).limit).toBe(READ_LIMIT);
  });

  it('refuses a missing or invalid key before the problems of the body, as REST does; a wrong method comes first', async () => {
    for (const token of [undefined, 'svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556']) {
      const code = token ? 'auth.invalid_token' : 'auth.missing_token';
      expectCatalogError(await send(t.url, 'POST', { token, ...jsonPost('{bad') }), 401, code);
      expectCatalogError(await send(t.url, 'POST', { token, headers: { 'content-type': 'text/plain' }, body: 'x' }), 401, code);
      expectCatalogError(await send(t.url, 'POST', { token, ...jsonPost('x'.repeat(BODY_LIMIT + 1)) }), 401, code);
      const put = await send(t.url, 'PUT', { token });
      expectCatalogError(put, 405, 'method.not_allowed');
      rateOf(put);
    }
  });

  it('still answers valid requests, by POST (application/json or +json) and by GET', async () => {
    const { token } = await freshKey();
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/graphql+json']) {
      const res = await send(t.url, 'POST', { token, headers: { 'content-type': type }, body: JSON.stringify({ query: QUERY }) });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ data: { me: { apiVersion: expect.any(String) } } });
      expect(rateOf(res).limit).toBe(READ_LIMIT);
    }
    const viaGet = await send(t.url, 'GET', { token, path: `/graphql?query=${encodeURIComponent(QUERY)}` });
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.data.me.apiVersion).toEqual(expect.any(String));
    expect(rateOf(viaGet)).toMatchObject({ limit: READ_LIMIT, remaining: READ_LIMIT - 4 });
    const mutation = await graphqlClient(t.url, token)('mutation { createCustomer(input: { organization: "Transport Co" }) { etag } }');
    expect(mutation.body.errors).toBeUndefined();
    expect(mutation.headers.get('ratelimit-limit')).toBe(String(WRITE_LIMIT));
  });

  it('serves GraphiQL to a browser without a key, with the RateLimit headers', async () => {
    const res = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('Fieldline GraphQL');
    expect(res.headers.get('ratelimit-limit')).toBe(String(READ_LIMIT));
  });
});

describe('an unauthenticated flood of bad requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimits: { read: 3, write: 3 } });
  });
  afterAll(() => t.close());

  it('is limited by source address in the write bucket, like any POST, and answers 429 rate_limit.exceeded', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await send(t.url, 'POST', jsonPost('{bad'))).status);
    const refused = await send(t.url, 'POST', jsonPost('{bad'));
    statuses.push(refused.status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expectCatalogError(refused, 429, 'rate_limit.exceeded');
    expect(rateOf(refused)).toMatchObject({ limit: 3, remaining: 0 });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other unreadable bodies come out of the same bucket.
    expect((await send(t.url, 'POST', { headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(429);
    expect((await send(t.url, 'PUT')).status).toBe(429);
    // Queries are read-bucket requests: still answered (401, no key).
    expect(codeOf(await graphqlClient(t.url)(QUERY))).toBe('auth.missing_token');
  });
});
