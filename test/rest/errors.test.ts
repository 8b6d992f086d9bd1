import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import type { ApiResponse } from '../helpers/http.ts';
import { isUuid } from '../helpers/ids.ts';
import { CODE_PATTERN, expectProblem } from '../helpers/problem.ts';

// The problem+json envelope, X-Request-Id, and the codes for requests the kernel refuses before any service runs.

const t = useTestApp();
const { tenant, api } = useTenant(t);

describe('X-Request-Id', () => {
  it('echoes an acceptable X-Request-Id on success and uses it as request_id of problems', async () => {
    const ok = await api.get('/me', { headers: { 'x-request-id': 'client-req.42:abc_DEF' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('client-req.42:abc_DEF');
    const failed = await api.get('/customers/does-not-exist', { headers: { 'x-request-id': 'trace-0001' } });
    expect(failed.headers.get('x-request-id')).toBe('trace-0001');
    expect(expectProblem(failed, { status: 404, code: 'resource.not_found' }).request_id).toBe('trace-0001');
  });

  it('generates a UUID request id when none is sent, different per request', async () => {
    const a = await api.get('/me');
    const b = await t.client(null).get('/me');
    const ids = [a.headers.get('x-request-id'), b.headers.get('x-request-id')];
    for (const id of ids) expect(isUuid(id), String(id)).toBe(true);
    expect(ids[0]).not.toBe(ids[1]);
    expect(expectProblem(b, { status: 401, code: 'auth.missing_token' }).request_id).toBe(ids[1]);
  });

  it.each([
    ['with spaces and angle brackets', 'has space <script>'],
    ['longer than 128 characters', 'a'.repeat(129)],
    ['with a tab character', 'abc\tdef'],
  ])('replaces an X-Request-Id %s with a generated UUID', async (_name, value) => {
    const res = await t.client(null).get('/nowhere', { headers: { 'x-request-id': value } });
    const id = res.headers.get('x-request-id');
    expect(id).not.toBe(value);
    expect(isUuid(id), String(id)).toBe(true);
    expect(expectProblem(res, { status: 404, code: 'route.not_found' }).request_id).toBe(id);
  });
});

describe('request bodies', () => {
  it('answers 400 request.malformed_json to a POST whose JSON does not parse', async () => {
    const res = await api.request('POST', '/customers', { raw: '{"customer": {"organization": "Acme"', headers: { 'content-type': 'application/json' } });
    expectProblem(res, { status: 400, code: 'request.malformed_json', instance: '/api/v2/customers' });
  });

  it('answers 400 request.malformed_json to a PATCH whose JSON does not parse', async () => {
    const { id, etag } = await createCustomer(api, { organization: 'Malformed Patch Co' });
    const res = await api.request('PATCH', `/customers/${id}`, { raw: "{customer: {'reference': 1}}", headers: { 'content-type': 'application/json', 'if-match': etag } });
    expectProblem(res, { status: 400, code: 'request.malformed_json', instance: `/api/v2/customers/${id}` });
  });

  it.each(['POST', 'PATCH'])('answers 415 request.unsupported_media_type to a %s with Content-Type text/plain', async (method) => {
    const { id, etag } = await createCustomer(api, { organization: `Media Type ${method}` });
    const path = method === 'POST' ? '/customers' : `/customers/${id}`;
    const res = await api.request(method, path, {
      raw: JSON.stringify({ customer: { organization: 'Plain Text' } }),
      headers: { 'content-type': 'text/plain', 'if-match': etag },
    });
    expectProblem(res, { status: 415, code: 'request.unsupported_media_type', instance: `/api/v2${path}` });
  });

  it('answers 415 request.unsupported_media_type to a form-encoded POST and stores nothing', async () => {
    const res = await api.request('POST', '/customers', { raw: 'customer[organization]=Form', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectProblem(res, { status: 415, code: 'request.unsupported_media_type' });
    const list = await api.get('/customers?organization=Form');
    expect(list.body.data).toEqual([]);
  });

  it('answers 400 request.malformed_json, not 500, to a body whose Content-Encoding does not decode', async () => {
    const res = await fetch(`${t.url}/api/v2/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: JSON.stringify({ customer: { organization: 'Not Gzipped' } }),
    });
    const text = await res.text();
    expectProblem({ status: res.status, headers: res.headers, body: JSON.parse(text), text }, { status: 400, code: 'request.malformed_json', instance: '/api/v2/customers' });
  });

  it('reads a gzip-encoded JSON body and answers 415 to an unknown Content-Encoding', async () => {
    const send = (encoding: string, body: Uint8Array<ArrayBuffer>) =>
      fetch(`${t.url}/api/v2/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json', 'content-encoding': encoding },
        body,
      });
    const json = JSON.stringify({ customer: { organization: 'Gzipped Co' } });
    expect((await send('gzip', new Uint8Array(gzipSync(json)))).status).toBe(201);
    const refused = await send('compress', new TextEncoder().encode(json));
    const text = await refused.text();
    expectProblem({ status: refused.status, headers: refused.headers, body: JSON.parse(text), text }, { status: 415, code: 'request.unsupported_media_type' });
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await api.request('POST', '/customers', {
      raw: JSON.stringify({ customer: { organization: 'Charset Co' } }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(res.status, res.text).toBe(201);
  });

  it('answers 413 request.body_too_large to a body over the default 1 MiB limit', async () => {
    const body = { customer: { organization: 'Huge', description: 'x'.repeat(1_048_576) } };
    const res = await api.post('/customers', body);
    expectProblem(res, { status: 413, code: 'request.body_too_large', instance: '/api/v2/customers' });
  });
});

describe('routing', () => {
  it.each([
    ['/nope'],
    ['/customers/0190c0de-0000-7000-8000-000000000000/unknown'],
    ['/v1/customers'],
  ])('answers 404 route.not_found as problem+json for the unmatched path %s', async (path) => {
    const res = await api.get(path);
    expectProblem(res, { status: 404, code: 'route.not_found', instance: `/api/v2${path}` });
  });

  it('answers 404 route.not_found for an unmatched path without a token, not 401', async () => {
    const res = await t.client(null).post('/no/such/endpoint', { x: 1 });
    expectProblem(res, { status: 404, code: 'route.not_found', instance: '/api/v2/no/such/endpoint' });
  });

  it.each([
    ['PUT', '/customers', ['GET', 'POST']],
    ['DELETE', '/customers', ['GET', 'POST']],
    ['PUT', '/customers/0190c0de-0000-7000-8000-000000000000', ['GET', 'PATCH', 'DELETE']],
    ['POST', '/me', ['GET']],
    ['DELETE', '/statuses', ['GET']],
    ['POST', '/custom_field_definitions', ['GET']],
  ])('answers 405 method.not_allowed with Allow to %s %s', async (method, path, allowed) => {
    const res = await api.request(method, path);
    expectProblem(res, { status: 405, code: 'method.not_allowed', instance: `/api/v2${path}` });
    const allow = (res.headers.get('allow') ?? '').split(',').map((m) => m.trim()).filter(Boolean);
    expect(allow.sort()).toEqual([...allowed].sort());
  });
});

describe('resource.not_found', () => {
  it('answers 404 resource.not_found to GET of a well-formed id that does not exist', async () => {
    const id = '0190c0de-0000-7000-8000-000000000000';
    expectProblem(await api.get(`/customers/${id}`), { status: 404, code: 'resource.not_found', instance: `/api/v2/customers/${id}` });
  });

  it.each(['not-a-uuid', '12345', "1' OR '1'='1"])('answers 404 resource.not_found to GET of the malformed id %s', async (id) => {
    const path = `/customers/${encodeURIComponent(id)}`;
    expectProblem(await api.get(path), { status: 404, code: 'resource.not_found', instance: `/api/v2${path}` });
  });

  it.each(['GET', 'PATCH', 'DELETE'])('answers 404 resource.not_found, not 500, to %s of an id that is not valid percent-encoding', async (method) => {
    const res = await api.request(method, '/customers/%E0%A4%A', { headers: { 'if-match': 'W/"1-0"' } });
    expectProblem(res, { status: 404, code: 'resource.not_found', instance: '/api/v2/customers/%E0%A4%A' });
  });

  it('answers 404 resource.not_found to GET of a deleted customer', async () => {
    const { id, etag } = await createCustomer(api, { organization: 'Soon Gone' });
    expect((await api.delete(`/customers/${id}`, { headers: { 'if-match': etag } })).status).toBe(204);
    expectProblem(await api.get(`/customers/${id}`), { status: 404, code: 'resource.not_found' });
  });

  it("answers the same 404 resource.not_found to GET, PATCH and DELETE of another tenant's customer, and leaves it untouched", async () => {
    const owner = await t.tenant();
    const { id, etag } = await createCustomer(t.client(owner.token), { organization: 'Not Yours Ltd' });
    const path = `/customers/${id}`;
    const responses = [
      await api.get(path),
      await api.patch(path, { customer: { reference: 'stolen' } }, { headers: { 'if-match': etag } }),
      await api.delete(path, { headers: { 'if-match': etag } }),
    ];
    const strip = (res: ApiResponse, instance?: string) => {
      const { request_id: _ignored, ...rest } = expectProblem(res, { status: 404, code: 'resource.not_found', instance });
      return rest;
    };
    const [get, patch, del] = responses.map((res) => strip(res, `/api/v2${path}`));
    expect(patch).toEqual(get);
    expect(del).toEqual(get);
    // Indistinguishable from a record that never existed (apart from instance and request_id).
    const missing = '0190c0de-0000-7000-8000-00000000beef';
    const { instance: _i, ...neverExisted } = strip(await api.get(`/customers/${missing}`));
    const { instance: _j, ...foreign } = get;
    expect(foreign).toEqual(neverExisted);
    const mine = await t.client(owner.token).get(path);
    expect(mine.status).toBe(200);
    expect(mine.body.data.reference ?? null).toBeNull();
    expect(mine.headers.get('etag')).toBe(etag);
  });
});

describe('every problem', () => {
  it('has the full envelope, a <domain>.<verb_or_state> code and the path without query string as instance', async () => {
    const id = '0190c0de-0000-7000-8000-000000000000';
    const samples: [ApiResponse, string, string][] = [
      [await t.client(null).get('/customers'), '/api/v2/customers', 'auth.missing_token'],
      [await t.client('garbage').get('/customers?limit=5'), '/api/v2/customers', 'auth.invalid_token'],
      [await api.get('/customers?limit=500'), '/api/v2/customers', 'pagination.limit_too_large'],
      [await api.get('/customers?sort=bogus'), '/api/v2/customers', 'sort.invalid'],
      [await api.get('/customers?colour=red'), '/api/v2/customers', 'filter.invalid'],
      [await api.get('/customers?cursor=abc'), '/api/v2/customers', 'cursor.invalid'],
      [await api.post('/customers', { customer: {} }), '/api/v2/customers', 'validation.failed'],
      [await api.post('/customers', { customer: 'x' }), '/api/v2/customers', 'validation.failed'],
      [await api.patch(`/customers/${id}`, { customer: {} }), `/api/v2/customers/${id}`, 'precondition.required'],
      [await api.get('/customers', { headers: { 'fieldline-version': '1999-01-01' } }), '/api/v2/customers', 'version.invalid'],
      [await api.request('OPTIONS', '/me'), '/api/v2/me', 'method.not_allowed'],
    ];
    for (const [res, instance, code] of samples) {
      const body = expectProblem(res, { status: res.status, code, instance });
      expect(body.code).toMatch(CODE_PATTERN);
      expect(res.status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('with BODY_LIMIT_BYTES=2048 and the verified-key cache on', () => {
  const logLines: Record<string, any>[] = [];
  const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  const small = useTestApp({ env: { BODY_LIMIT_BYTES: '2048', AUTH_CACHE_TTL_MS: '5000' }, logger });
  const { tenant: smallTenant, api: smallApi } = useTenant(small);

  it('answers 413 request.body_too_large to a POST over the configured limit and accepts one under it', async () => {
    const over = await smallApi.post('/customers', { customer: { organization: 'Big', description: 'x'.repeat(2100) } });
    expectProblem(over, { status: 413, code: 'request.body_too_large', instance: '/api/v2/customers' });
    expect((await smallApi.get('/customers?organization=Big')).body.data).toEqual([]);
    const under = await smallApi.post('/customers', { customer: { organization: 'Small', description: 'x'.repeat(1500) } });
    expect(under.status, under.text).toBe(201);
  });

  it('answers 413 request.body_too_large to a PATCH over the configured limit', async () => {
    const created = await smallApi.post('/customers', { customer: { organization: 'Patched Big' } });
    const path = `/customers/${created.body.data.id}`;
    const res = await smallApi.patch(path, { customer: { description: 'y'.repeat(4096) } }, { headers: { 'if-match': created.headers.get('etag')! } });
    expectProblem(res, { status: 413, code: 'request.body_too_large', instance: `/api/v2${path}` });
  });

  it('logs every request with its request_id, and never the token or the Authorization header', async () => {
    const unknown = 'svc_0190c0de-0000-7000-8000-0000000000aa';
    expect((await smallApi.get('/me', { headers: { 'x-request-id': 'log-check-1' } })).status).toBe(200);
    await small.client(unknown).get('/customers', { headers: { 'x-request-id': 'log-check-2' } });
    await vi.waitFor(() => {
      const ids = logLines.filter((l) => l.msg === 'request').map((l) => l.request_id);
      expect(ids).toEqual(expect.arrayContaining(['log-check-1', 'log-check-2']));
    });
    const line = logLines.find((l) => l.request_id === 'log-check-1' && l.msg === 'request')!;
    expect(line).toMatchObject({ method: 'GET', path: '/api/v2/me', status: 200 });
    expect(logLines.find((l) => l.request_id === 'log-check-2' && l.msg === 'request')).toMatchObject({ status: 401 });
    const all = JSON.stringify(logLines);
    expect(all).not.toContain(smallTenant.token);
    expect(all).not.toContain(smallTenant.token.slice(4));
    expect(all).not.toContain(unknown.slice(4));
    expect(all.toLowerCase()).not.toContain('bearer');
    expect(all.toLowerCase()).not.toContain('authorization');
  });

  // Last in this block: it closes the database under the running app. The cached key lets the request pass
  // authentication, so the failure happens inside the service.
  it('answers 500 internal.error that leaks no SQL, stack or driver detail when the database fails mid-request', async () => {
    expect((await smallApi.get('/me')).status).toBe(200);
    await small.database.close();
    const res = await smallApi.get('/customers?organization=Acme', { headers: { 'x-request-id': 'boom-1' } });
    const body = expectProblem(res, { status: 500, code: 'internal.error', instance: '/api/v2/customers' });
    expect(body.request_id).toBe('boom-1');
    expect(res.text).not.toMatch(/prisma|pglite|postgres|select |from |where |customers\.|sql|stack|\bat \S+ \(|node_modules|\.ts\b|ECONN|database/i);
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'doc_url', 'instance', 'request_id', 'status', 'title', 'type']);
    const write = await smallApi.post('/customers', { customer: { organization: 'During outage' } });
    expectProblem(write, { status: 500, code: 'internal.error' });
    expect(write.text).not.toMatch(/prisma|insert|stack|During outage/i);
    // The failure is logged at error level under the request id, by kind only (its message may hold SQL or data).
    const logged = logLines.filter((l) => l.level >= 50);
    expect(logged.map((l) => l.request_id)).toContain('boom-1');
    expect(JSON.stringify(logged)).not.toMatch(/select |insert |During outage/i);
  });
});
