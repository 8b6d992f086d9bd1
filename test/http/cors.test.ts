import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';

// CORS on /api/v2 and /graphql from CORS_ORIGINS (src/http/cors.ts): browsers on an allowed origin may send the
// API's request headers and read its response headers; any other origin gets no Access-Control-* header.

const ALLOWED = 'https://app.example.com';
const t = useTestApp({ env: { CORS_ORIGINS: `${ALLOWED}, http://localhost:5173` } });
const { tenant } = useTenant(t);
const closed = useTestApp();

const REQUEST_HEADERS = ['authorization', 'content-type', 'if-match', 'idempotency-key', 'fieldline-version', 'x-request-id'];
const EXPOSED = ['ETag', 'Link', 'Location', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id'];

function preflight(base: string, path: string, origin: string, method = 'PATCH') {
  return fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': REQUEST_HEADERS.join(', ') },
  });
}

const split = (value: string | null) => (value ?? '').split(',').map((part) => part.trim().toLowerCase()).filter(Boolean);

describe('CORS', () => {
  for (const path of ['/api/v2/customers/0190c0de-0000-7000-8000-000000000001', '/graphql']) {
    it(`answers a preflight on ${path} from an allowed origin with 204, allowing the API's methods and request headers`, async () => {
      const res = await preflight(t.url, path, ALLOWED);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(split(res.headers.get('access-control-allow-methods'))).toEqual(expect.arrayContaining(['get', 'post', 'patch', 'delete']));
      expect(split(res.headers.get('access-control-allow-headers'))).toEqual(expect.arrayContaining(REQUEST_HEADERS));
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(split(res.headers.get('vary'))).toContain('origin');
    });
  }

  it('answers a preflight from an origin not in CORS_ORIGINS with 204 and no Access-Control-* header, so the browser refuses', async () => {
    const res = await preflight(t.url, '/api/v2/customers', 'https://evil.example.net');
    expect(res.status).toBe(204);
    expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('allows no origin at all by default (CORS_ORIGINS unset)', async () => {
    for (const path of ['/api/v2/customers', '/graphql']) {
      const res = await preflight(closed.url, path, ALLOWED);
      expect(res.status).toBe(204);
      expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
      const actual = await fetch(`${closed.url}${path === '/graphql' ? '/graphql' : '/api/v2/me'}`, { headers: { origin: ALLOWED } });
      expect(actual.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('lets an allowed origin read ETag, Link, Location, RateLimit-*, Retry-After and X-Request-Id on real answers', async () => {
    const created = await fetch(`${t.url}/api/v2/customers`, {
      method: 'POST',
      headers: { origin: ALLOWED, authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer: { organization: 'Cors Co' } }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(split(created.headers.get('access-control-expose-headers'))).toEqual(EXPOSED.map((name) => name.toLowerCase()));
    const gql = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { origin: ALLOWED, authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { apiVersion } }' }),
    });
    expect(gql.status).toBe(200);
    expect(gql.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('still refuses a non-preflight OPTIONS with 405 method.not_allowed', async () => {
    const res = await fetch(`${t.url}/api/v2/customers`, { method: 'OPTIONS', headers: { origin: ALLOWED } });
    expect(res.status).toBe(405);
    expect((await res.json()).code).toBe('method.not_allowed');
  });

  it('allows every origin with CORS_ORIGINS=*, without credentials', async () => {
    const open = await import('../helpers/app.ts').then(({ startTestApp }) => startTestApp({ env: { CORS_ORIGINS: '*' } }));
    try {
      const res = await preflight(open.url, '/api/v2/customers', 'https://anything.example.org', 'POST');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    } finally {
      await open.close();
    }
  });

  it('refuses to start with a CORS_ORIGINS entry that is not an origin', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    expect(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/' })).toThrow(/CORS_ORIGINS: https:\/\/app.example.com\/ is not an origin/);
    expect(() => loadConfig({ CORS_ORIGINS: 'app.example.com' })).toThrow(/is not an origin/);
  });
});
