import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { type ApiResponse, rateLimitHeaders } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';

// Rate buckets: read (GET) and write (POST, PATCH, PUT, DELETE), per key, per source IP when unauthenticated;
// RateLimit-* headers on every response; 429 rate_limit.exceeded with a jittered Retry-After.

describe('with the default limits', () => {
  const t = useTestApp();
  const { tenant } = useTenant(t);

  it('sends RateLimit-Limit 1000 on GET and 300 on POST, PATCH and DELETE successes', async () => {
    const a = t.client(tenant.token);
    expect(rateLimitHeaders(await a.get('/me')).limit).toBe(1000);
    expect(rateLimitHeaders(await a.get('/customers')).limit).toBe(1000);
    expect(rateLimitHeaders(await a.get('/statuses?related_name=Customer')).limit).toBe(1000);
    const created = await a.post('/customers', { customer: { organization: 'Rate Co' } });
    expect(created.status).toBe(201);
    expect(rateLimitHeaders(created).limit).toBe(300);
    const id = created.body.data.id;
    const got = await a.get(`/customers/${id}`);
    expect(rateLimitHeaders(got).limit).toBe(1000);
    const patched = await a.patch(`/customers/${id}`, { customer: { reference: 'R1' } }, { headers: { 'if-match': got.headers.get('etag')! } });
    expect(patched.status).toBe(200);
    expect(rateLimitHeaders(patched).limit).toBe(300);
    const deleted = await a.delete(`/customers/${id}`, { headers: { 'if-match': patched.headers.get('etag')! } });
    expect(deleted.status).toBe(204);
    expect(rateLimitHeaders(deleted).limit).toBe(300);
  });

  it('sends the RateLimit headers on error responses (401, 403, 404, 405, 400, 415, 422, 428)', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const cases: [ApiResponse, number, string, number][] = [
      [await t.client(null).get('/customers'), 401, 'auth.missing_token', 1000],
      [await t.client('bogus').post('/customers', { customer: {} }), 401, 'auth.invalid_token', 300],
      [await t.client(key.token).get('/customers'), 403, 'auth.scope_missing', 1000],
      [await t.client(tenant.token).get('/customers/0190c0de-0000-7000-8000-000000000000'), 404, 'resource.not_found', 1000],
      [await t.client(tenant.token).get('/no-such-thing'), 404, 'route.not_found', 1000],
      [await t.client(null).get('/no-such-thing'), 404, 'route.not_found', 1000],
      [await t.client(tenant.token).request('PUT', '/customers'), 405, 'method.not_allowed', 300],
      [await t.client(tenant.token).get('/customers?limit=101'), 400, 'pagination.limit_too_large', 1000],
      [await t.client(tenant.token).request('POST', '/customers', { raw: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'request.unsupported_media_type', 300],
      [await t.client(tenant.token).post('/customers', { customer: {} }), 422, 'validation.failed', 300],
      [await t.client(tenant.token).patch('/customers/0190c0de-0000-7000-8000-000000000000', { customer: {} }), 428, 'precondition.required', 300],
    ];
    for (const [res, status, code, limit] of cases) {
      expectProblem(res, { status, code });
      expect(rateLimitHeaders(res).limit, code).toBe(limit);
    }
  });

  it('decreases RateLimit-Remaining per request, separately for the read and write buckets', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId });
    const a = t.client(key.token);
    const r1 = rateLimitHeaders(await a.get('/me'));
    const r2 = rateLimitHeaders(await a.get('/customers'));
    expect(r1.remaining).toBe(999);
    expect(r2.remaining).toBe(998);
    const w1 = rateLimitHeaders(await a.post('/customers', { customer: { organization: 'Bucket Co' } }));
    expect(w1.remaining).toBe(299);
    const w2 = rateLimitHeaders(await a.post('/customers', { customer: {} })); // a 422 still counts
    expect(w2.remaining).toBe(298);
    expect(rateLimitHeaders(await a.get('/me')).remaining).toBe(997);
    expect(r1.reset).toBeGreaterThanOrEqual(0);
  });
});

describe('with small limits (read 3, write 2)', () => {
  const t = useTestApp({ rateLimits: { read: 3, write: 2 } });
  const { tenant } = useTenant(t);
  const newKey = async () => (await t.app.domain.admin.createKey({ userId: tenant.userId })).token;

  async function exhaustReads(token: string): Promise<ApiResponse> {
    const a = t.client(token);
    for (const expected of [2, 1, 0]) {
      const res = await a.get('/me');
      expect(res.status).toBe(200);
      expect(rateLimitHeaders(res)).toMatchObject({ limit: 3, remaining: expected });
    }
    return a.get('/customers');
  }

  function expectExceeded(res: ApiResponse, limit: number, instance: string): number {
    expectProblem(res, { status: 429, code: 'rate_limit.exceeded', instance });
    const headers = rateLimitHeaders(res);
    expect(headers).toMatchObject({ limit, remaining: 0 });
    expect(headers.reset).toBeGreaterThanOrEqual(1);
    const retryAfter = res.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(headers.reset);
    return Number(retryAfter);
  }

  it('answers the 4th GET of a key with 429 rate_limit.exceeded, Retry-After >= RateLimit-Reset', async () => {
    const res = await exhaustReads(await newKey());
    expectExceeded(res, 3, '/api/v2/customers');
  });

  it('keeps buckets per key: another key of the same user is unaffected', async () => {
    const first = await newKey();
    expect((await exhaustReads(first)).status).toBe(429);
    const second = await newKey();
    const res = await t.client(second).get('/me');
    expect(res.status).toBe(200);
    expect(rateLimitHeaders(res)).toMatchObject({ limit: 3, remaining: 2 });
    expect((await t.client(first).get('/me')).status).toBe(429);
  });

  it('keeps the read and write buckets independent', async () => {
    const reader = await newKey();
    expect((await exhaustReads(reader)).status).toBe(429);
    const created = await t.client(reader).post('/customers', { customer: { organization: 'Still Writable' } });
    expect(created.status, created.text).toBe(201);
    expect(rateLimitHeaders(created)).toMatchObject({ limit: 2, remaining: 1 });

    const writer = await newKey();
    const w = t.client(writer);
    expect((await w.post('/customers', { customer: { organization: 'W1' } })).status).toBe(201);
    expect((await w.post('/customers', { customer: { organization: 'W2' } })).status).toBe(201);
    expectExceeded(await w.post('/customers', { customer: { organization: 'W3' } }), 2, '/api/v2/customers');
    expectExceeded(await w.delete('/customers/0190c0de-0000-7000-8000-000000000000'), 2, '/api/v2/customers/0190c0de-0000-7000-8000-000000000000');
    const read = await w.get('/customers?organization=W3');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual([]); // the refused create stored nothing
    expect(rateLimitHeaders(read)).toMatchObject({ limit: 3, remaining: 2 });
  });

  it('jitters Retry-After across exhausted keys', async () => {
    const values: number[] = [];
    for (let i = 0; i < 10; i++) values.push(expectExceeded(await exhaustReads(await newKey()), 3, '/api/v2/customers'));
    // Each value is RateLimit-Reset plus a random 0..5 s; ten identical values would mean no jitter.
    expect(new Set(values).size, `Retry-After values ${values.join(', ')}`).toBeGreaterThan(1);
  });

  it('limits unauthenticated requests per source IP, whatever X-Forwarded-For says, without touching key buckets or refusing a valid key from that IP', async () => {
    const key = await newKey();
    const unseen = await newKey();
    // The key has been used from this address before the flood: its token is known to be a key.
    expect((await t.client(key).get('/me')).status).toBe(200);
    const anonymous = t.client(null);
    const results = [
      await anonymous.get('/me'),
      await t.client('not-a-key').get('/customers'),
      await anonymous.get('/no-such-route'),
    ];
    expect(results.map((r) => r.status)).toEqual([401, 401, 404]);
    expect(results.map((r) => rateLimitHeaders(r).remaining)).toEqual([2, 1, 0]);
    expectExceeded(await anonymous.get('/me'), 3, '/api/v2/me');
    expectExceeded(await anonymous.get('/me', { headers: { 'x-forwarded-for': '203.0.113.9' } }), 3, '/api/v2/me');
    expectExceeded(await t.client('svc_0190c0de-0000-7000-8000-000000000000').get('/customers'), 3, '/api/v2/customers');
    const keyed = await t.client(key).get('/me');
    expect(keyed.status).toBe(200);
    expect(rateLimitHeaders(keyed).remaining).toBe(1);
    // A valid key never seen by this process is not refused for what other clients of its address did: its own bucket pays.
    const first = await t.client(unseen).get('/me');
    expect(first.status, first.text).toBe(200);
    expect(rateLimitHeaders(first).remaining).toBe(2);
    // Failures from the address stay refused, whatever token they carry.
    expectExceeded(await t.client('svc_0190c0de-0000-7000-8000-000000000001').get('/me'), 3, '/api/v2/me');
    // Unauthenticated writes have their own bucket.
    const write = await anonymous.post('/customers', { customer: {} });
    expectProblem(write, { status: 401, code: 'auth.missing_token' });
    expect(rateLimitHeaders(write)).toMatchObject({ limit: 2, remaining: 1 });
  });
});
