import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, useTenant, useTestApp } from '../helpers/app.ts';
import { cliOn } from '../helpers/cli.ts';
import { codeOf } from '../helpers/graphql.ts';
import { expectProblem } from '../helpers/problem.ts';

// The Fieldline-Version request header selects the API version; without it the key's pinned version applies.

const CURRENT = '2026-04-30';
/** An older version the second app accepts through API_VERSIONS. */
const OLDER = '2026-01-15';

const t = useTestApp();
const { tenant, api } = useTenant(t);
/** An app that also accepts OLDER (API_VERSIONS=OLDER,CURRENT). */
const older = useTestApp({ env: { API_VERSIONS: `${OLDER},${CURRENT}` } });
const { tenant: olderTenant } = useTenant(older);

describe('Fieldline-Version', () => {
  it('accepts Fieldline-Version: 2026-04-30 and reports it as api_version on /me', async () => {
    const res = await api.get('/me', { headers: { 'Fieldline-Version': CURRENT } });
    expect(res.status).toBe(200);
    expect(res.body.data.api_version).toBe(CURRENT);
  });

  it('accepts the supported version on resource endpoints and lookups', async () => {
    const headers = { 'fieldline-version': CURRENT };
    expect((await api.get('/customers', { headers })).status).toBe(200);
    expect((await api.post('/customers', { customer: { organization: 'Versioned Co' } }, { headers })).status).toBe(201);
    expect((await api.get('/statuses?related_name=Customer', { headers })).status).toBe(200);
  });

  it.each(['2025-01-01', '2026-04-31', 'latest', 'v2', '2026-04-30; drop'])(
    'answers 400 version.invalid naming the supported versions for Fieldline-Version: %s',
    async (value) => {
      const res = await api.get('/me', { headers: { 'Fieldline-Version': value } });
      const body = expectProblem(res, { status: 400, code: 'version.invalid', instance: '/api/v2/me' });
      expect(body.detail).toContain(CURRENT);
      expect(body.detail).toContain('Fieldline-Version');
    },
  );

  it('answers 400 version.invalid on resource endpoints too, and stores nothing', async () => {
    const headers = { 'fieldline-version': '1999-12-31' };
    expectProblem(await api.get('/customers', { headers }), { status: 400, code: 'version.invalid' });
    expectProblem(await api.post('/customers', { customer: { organization: 'Bad Version Co' } }, { headers }), { status: 400, code: 'version.invalid' });
    expectProblem(await api.get('/labels?related_name=Customer', { headers }), { status: 400, code: 'version.invalid' });
    const list = await api.get('/customers?organization=Bad%20Version%20Co');
    expect(list.body.data).toEqual([]);
  });

  it('pins a key created without an explicit version to the current one', async () => {
    const unpinned = await t.app.domain.admin.createKey({ userId: tenant.userId });
    expect(unpinned.api_version).toBe(CURRENT);
    expect((await t.client(unpinned.token).get('/me')).body.data.api_version).toBe(CURRENT);
  });

  it('refuses to pin a key to an unknown version', async () => {
    await expect(t.app.domain.admin.createKey({ userId: tenant.userId, apiVersion: '2020-01-01' })).rejects.toThrow(/api-version/);
  });
});

describe('API_VERSIONS: the versions a server accepts', () => {
  it("resolves to the key's pinned (older, supported) version when the header is omitted, on REST and GraphQL", async () => {
    const pinned = await older.app.domain.admin.createKey({ userId: olderTenant.userId, apiVersion: OLDER });
    expect(pinned.api_version).toBe(OLDER);
    const res = await older.client(pinned.token).get('/me');
    expect(res.status).toBe(200);
    expect(res.body.data.api_version).toBe(OLDER);
    const gql = await older.graphql(pinned.token)('{ me { apiVersion } }');
    expect(gql.body.data.me.apiVersion).toBe(OLDER);
    // A key pinned to the current version still resolves to it.
    expect((await older.client(olderTenant.token).get('/me')).body.data.api_version).toBe(CURRENT);
  });

  it('lets Fieldline-Version override the pinned version, either way', async () => {
    const pinned = await older.app.domain.admin.createKey({ userId: olderTenant.userId, apiVersion: OLDER });
    const up = await older.client(pinned.token).get('/me', { headers: { 'Fieldline-Version': CURRENT } });
    expect(up.body.data.api_version).toBe(CURRENT);
    const down = await older.client(olderTenant.token).get('/me', { headers: { 'Fieldline-Version': OLDER } });
    expect(down.body.data.api_version).toBe(OLDER);
  });

  it('is the list of versions the OpenAPI document gives for Fieldline-Version', async () => {
    for (const [app, expected] of [[t, [CURRENT]], [older, [OLDER, CURRENT]]] as const) {
      const doc = (await fetch(`${app.url}/api/v2/openapi.json`).then((r) => r.json())) as any;
      const header = Object.values(doc.components.parameters ?? {}).find((p: any) => p.name === 'Fieldline-Version') as any;
      const schema = header.schema.$ref ? doc.components.schemas[header.schema.$ref.split('/').pop()] : header.schema;
      expect(schema.enum).toEqual(expected);
      expect(doc.info.description).toContain(`supported: ${expected.join(', ')}`);
    }
  });

  it('refuses the older version on a server that does not list it, in the header and as a pin', async () => {
    expectProblem(await api.get('/me', { headers: { 'Fieldline-Version': OLDER } }), { status: 400, code: 'version.invalid' });
    await expect(t.app.domain.admin.createKey({ userId: tenant.userId, apiVersion: OLDER })).rejects.toThrow(/--api-version must be one of 2026-04-30$/);
  });

  it('answers 400 version.invalid naming the pin for a key pinned to a version the server no longer supports, unless the header names a supported one', async () => {
    const pinned = await older.app.domain.admin.createKey({ userId: olderTenant.userId, apiVersion: OLDER });
    // The same database served with the default API_VERSIONS: OLDER has been retired.
    const retired = await startTestApp({ database: older.database });
    try {
      const res = await retired.client(pinned.token).get('/me');
      const body = expectProblem(res, { status: 400, code: 'version.invalid', instance: '/api/v2/me' });
      expect(body.detail).toContain(`pinned to API version ${OLDER}`);
      expect(body.detail).toContain(CURRENT);
      expectProblem(await retired.client(pinned.token).get('/customers'), { status: 400, code: 'version.invalid' });
      expect(codeOf(await retired.graphql(pinned.token)('{ me { apiVersion } }'))).toBe('version.invalid');
      const chosen = await retired.client(pinned.token).get('/me', { headers: { 'Fieldline-Version': CURRENT } });
      expect(chosen.status).toBe(200);
      expect(chosen.body.data.api_version).toBe(CURRENT);
    } finally {
      await retired.close();
    }
  });

  it('fieldline key create --api-version validates against API_VERSIONS of its environment', async () => {
    const run = (env: NodeJS.ProcessEnv) => cliOn(older.database, env)('key', 'create', '--user', String(olderTenant.userId), '--api-version', OLDER, '--json');
    const accepted = await run({ API_VERSIONS: `${CURRENT},${OLDER}` });
    expect(accepted.code).toBe(0);
    expect(accepted.json.key.api_version).toBe(OLDER);
    expect((await older.client(accepted.json.key.token).get('/me')).body.data.api_version).toBe(OLDER);
    const refused = await run({});
    expect(refused.code).toBe(2);
    expect(refused.json.error.message).toBe(`--api-version must be one of ${CURRENT}; got "${OLDER}"`);
  });

  it.each([
    ['a date later than the current version', '2026-04-30,2099-01-01', /later than the current version/],
    ['a list without the current version', '2026-01-15', /must include the current version/],
    ['a value that is not a date', '2026-04-30,latest', /not a version date/],
  ])('refuses API_VERSIONS with %s', (_name, value, message) => {
    expect(() => loadConfig({ API_VERSIONS: value })).toThrow(message);
  });
});
