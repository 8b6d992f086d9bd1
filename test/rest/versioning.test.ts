import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { client } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';

// The Fieldline-Version request header selects the API version; without it the key's pinned version applies.

const CURRENT = '2026-04-30';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(() => t.close());

const api = (token = tenant.token) => client(`${t.url}/api/v2`, token);

describe('Fieldline-Version', () => {
  it('accepts Fieldline-Version: 2026-04-30 and reports it as api_version on /me', async () => {
    const res = await api().get('/me', { headers: { 'Fieldline-Version': CURRENT } });
    expect(res.status).toBe(200);
    expect(res.body.data.api_version).toBe(CURRENT);
  });

  it('accepts the supported version on resource endpoints and lookups', async () => {
    const headers = { 'fieldline-version': CURRENT };
    expect((await api().get('/customers', { headers })).status).toBe(200);
    expect((await api().post('/customers', { customer: { organization: 'Versioned Co' } }, { headers })).status).toBe(201);
    expect((await api().get('/statuses?related_name=Customer', { headers })).status).toBe(200);
  });

  it.each(['2025-01-01', '2026-04-31', 'latest', 'v2', '2026-04-30; drop'])(
    'answers 400 version.invalid naming the supported versions for Fieldline-Version: %s',
    async (value) => {
      const res = await api().get('/me', { headers: { 'Fieldline-Version': value } });
      const body = expectProblem(res, 400, 'version.invalid', { instance: '/api/v2/me' });
      expect(body.detail).toContain(CURRENT);
      expect(body.detail).toContain('Fieldline-Version');
    },
  );

  it('answers 400 version.invalid on resource endpoints too, and stores nothing', async () => {
    const headers = { 'fieldline-version': '1999-12-31' };
    expectProblem(await api().get('/customers', { headers }), 400, 'version.invalid');
    expectProblem(await api().post('/customers', { customer: { organization: 'Bad Version Co' } }, { headers }), 400, 'version.invalid');
    expectProblem(await api().get('/labels?related_name=Customer', { headers }), 400, 'version.invalid');
    const list = await api().get('/customers?organization=Bad%20Version%20Co');
    expect(list.body.data).toEqual([]);
  });

  it("resolves to the key's pinned version when the header is omitted", async () => {
    const pinned = await t.app.domain.admin.createKey({ userId: tenant.userId, apiVersion: CURRENT });
    expect(pinned.api_version).toBe(CURRENT);
    const res = await api(pinned.token).get('/me');
    expect(res.status).toBe(200);
    expect(res.body.data.api_version).toBe(pinned.api_version);
    // A key created without an explicit version is pinned to the current one.
    const unpinned = await t.app.domain.admin.createKey({ userId: tenant.userId });
    expect((await api(unpinned.token).get('/me')).body.data.api_version).toBe(unpinned.api_version);
    expect(unpinned.api_version).toBe(CURRENT);
  });

  it('refuses to pin a key to an unknown version', async () => {
    await expect(t.app.domain.admin.createKey({ userId: tenant.userId, apiVersion: '2020-01-01' })).rejects.toThrow(/api-version/);
  });
});
