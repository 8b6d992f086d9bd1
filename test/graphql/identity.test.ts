import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { camelRecord, codeOf, expectNotInEnum, graphqlModules } from '../helpers/graphql.ts';

const t = useTestApp();
const { tenant } = useTenant(t, { name: 'Graph Co' });

const ME = `{ me { account { id name sandbox modules { addressRequired system } currency timeZone paymentTermsDays } user { id name email role } key { id scopes expiresAt createdAt } apiVersion } }`;

describe('me', () => {
  it('answers the content of GET /api/v2/me in camelCase', async () => {
    const gql = t.graphql(tenant.token);
    const res = await gql(ME);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const rest = (await t.client(tenant.token).get('/me')).body.data;
    expect(res.body.data.me).toEqual({
      account: camelRecord({ ...rest.account, modules: graphqlModules(rest.account.modules) }),
      user: camelRecord(rest.user),
      key: { id: rest.key.id, scopes: rest.key.scopes, expiresAt: rest.key.expires_at, createdAt: rest.key.created_at },
      apiVersion: rest.api_version,
    });
    expect(res.body.data.me.user.id).toBe(tenant.userId);
    expect(JSON.stringify(res.body)).not.toContain(tenant.token);
  });

  it('is answered for a key without any scope', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: [] });
    const res = await t.graphql(key.token)('{ me { key { id scopes } } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.me.key).toEqual({ id: key.id, scopes: [] });
  });

  it('resolves apiVersion from the Fieldline-Version header and refuses an unknown one with 400 version.invalid', async () => {
    const gql = t.graphql(tenant.token);
    const ok = await gql('{ me { apiVersion } }', undefined, { headers: { 'fieldline-version': '2026-04-30' } });
    expect(ok.body.data.me.apiVersion).toBe('2026-04-30');
    const bad = await gql('{ me { apiVersion } }', undefined, { headers: { 'fieldline-version': '1999-01-01' } });
    expect(bad.status).toBe(400);
    expect(codeOf(bad)).toBe('version.invalid');
    expect(bad.body.data).toBeUndefined();
  });
});

describe('authentication of the whole request', () => {
  it('answers HTTP 401 auth.missing_token without an Authorization header', async () => {
    const res = await t.graphql()('{ me { apiVersion } }');
    expect(res.status).toBe(401);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'auth.missing_token', status: 401 });
  });

  it('answers HTTP 401 auth.invalid_token for an unknown key, before looking at the fields', async () => {
    const res = await t.graphql('svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556')('{ me { apiVersion } customers { nodes { id } } }');
    expect(res.status).toBe(401);
    expect(codeOf(res)).toBe('auth.invalid_token');
  });

  it('answers auth.token_revoked for a revoked key and account.deactivated with its reason', async () => {
    const other = await t.tenant();
    await t.app.domain.admin.revokeKey(other.keyId);
    const revoked = await t.graphql(other.token)('{ me { apiVersion } }');
    expect(revoked.status).toBe(401);
    expect(codeOf(revoked)).toBe('auth.token_revoked');

    const closed = await t.tenant();
    await t.app.domain.admin.updateAccount(closed.accountId, { active: false, reason: 'unpaid invoices' });
    const deactivated = await t.graphql(closed.token)('{ me { apiVersion } }');
    expect(deactivated.status).toBe(403);
    expect(deactivated.body.errors![0].extensions).toMatchObject({ code: 'account.deactivated', reason: 'unpaid invoices' });
  });

  it("answers 403 account.inactive when the key's user is inactive, and works again once reactivated", async () => {
    const own = await t.tenant();
    const user = await t.app.domain.admin.createUser({ accountId: own.accountId, name: 'Tech', email: 'tech@example.com', role: 'technician' });
    const key = await t.app.domain.admin.createKey({ userId: user.id });
    const gql = t.graphql(key.token);
    expect((await gql('{ me { apiVersion } }')).status).toBe(200);
    await t.app.domain.admin.updateUser(user.id, { active: false });
    for (const res of [await gql('{ me { apiVersion } }'), await gql('mutation { createCustomer(input: { organization: "Inactive" }) { etag } }')]) {
      expect(res.status).toBe(403);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'account.inactive', status: 403 });
    }
    // The account's other keys are unaffected.
    expect((await t.graphql(own.token)('{ me { apiVersion } }')).status).toBe(200);
    await t.app.domain.admin.updateUser(user.id, { active: true });
    expect((await gql('{ me { apiVersion } }')).body.errors).toBeUndefined();
  });

  it('answers 403 auth.plan_required when the plan has no API access, queries and mutations alike', async () => {
    const own = await t.tenant();
    await t.app.domain.admin.updateAccount(own.accountId, { apiAccess: false });
    const gql = t.graphql(own.token);
    for (const res of [await gql('{ me { apiVersion } }'), await gql('mutation { createCustomer(input: { organization: "No plan" }) { etag } }')]) {
      expect(res.status).toBe(403);
      expect(res.body.data).toBeUndefined();
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'auth.plan_required', status: 403 });
    }
  });

  it('exempts sandbox accounts from auth.plan_required', async () => {
    const sandbox = await t.tenant({ sandbox: true });
    await t.app.domain.admin.updateAccount(sandbox.accountId, { apiAccess: false });
    const gql = t.graphql(sandbox.token);
    const me = await gql('{ me { account { sandbox } } customers { nodes { id } } }');
    expect(me.status).toBe(200);
    expect(me.body.errors).toBeUndefined();
    expect(me.body.data.me.account.sandbox).toBe(true);
    const created = await gql('mutation { createCustomer(input: { organization: "Sandbox Co" }) { etag } }');
    expect(created.body.errors).toBeUndefined();
  });

  it('puts the request id in extensions and echoes X-Request-Id', async () => {
    const res = await t.graphql()('{ me { apiVersion } }', undefined, { headers: { 'x-request-id': 'gql-req-42' } });
    expect(res.headers.get('x-request-id')).toBe('gql-req-42');
    expect(res.body.errors![0].extensions!.requestId).toBe('gql-req-42');
  });

  it('carries the RateLimit headers of the graphql points bucket (100,000 a minute by default) on answers and on refusals', async () => {
    const answered = await t.graphql(tenant.token)('{ me { apiVersion } }');
    const refused = await t.graphql()('{ me { apiVersion } }');
    expect(refused.status).toBe(401);
    for (const res of [answered, refused]) {
      expect(Number(res.headers.get('ratelimit-limit'))).toBe(100_000);
      expect(res.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(100_000);
      expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    }
    // The answer reports the same bucket in extensions.cost.
    expect(answered.cost.throttleStatus).toMatchObject({
      maximumAvailable: 100_000,
      currentlyAvailable: Number(answered.headers.get('ratelimit-remaining')),
      resetSeconds: Number(answered.headers.get('ratelimit-reset')),
    });
    expect(refused.cost).toMatchObject({ requestedQueryCost: null, actualQueryCost: null });
  });

  it('serves GraphiQL to a browser without a key', async () => {
    const res = await fetch(`${t.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('Fieldline GraphQL');
  });

  it('refuses a body over the size limit with 413 request.body_too_large', async () => {
    const res = await t.graphql(tenant.token)('{ me { apiVersion } }', { pad: 'x'.repeat(t.config.BODY_LIMIT_BYTES) });
    expect(res.status).toBe(413);
    expect(codeOf(res)).toBe('request.body_too_large');
  });
});

describe('lookups', () => {
  it('lists statuses, labels and custom field definitions as the REST lookups do', async () => {
    const own = await t.tenant();
    await t.app.domain.admin.addLookup('label', { accountId: own.accountId, relatedName: 'Customer', name: 'VIP' });
    await t.app.domain.admin.addLookup('label', { accountId: own.accountId, relatedName: 'Job', name: 'Urgent' });
    await t.app.domain.admin.addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Tier', type: 'select', options: ['Gold', 'Silver'], required: true });
    const gql = t.graphql(own.token);
    const res = await gql(`{
      statuses(relatedName: CUSTOMER) { id relatedName displayName position createdAt updatedAt }
      labels { relatedName displayName }
      customerLabels: labels(relatedName: CUSTOMER) { displayName }
      customFieldDefinitions(relatedName: CUSTOMER) { id relatedName name fieldType options required position }
    }`);
    expect(res.body.errors).toBeUndefined();
    const rest = t.client(own.token);
    const statuses = (await rest.get('/statuses?related_name=Customer')).body.data;
    expect(res.body.data.statuses).toEqual(camelRecord(statuses));
    expect(res.body.data.statuses[0].relatedName).toBe('CUSTOMER');
    expect(res.body.data.statuses.map((s: any) => s.displayName)).toEqual(['Active', 'Inactive']);
    expect(res.body.data.labels).toEqual([
      { relatedName: 'CUSTOMER', displayName: 'VIP' },
      { relatedName: 'JOB', displayName: 'Urgent' },
    ]);
    expect(res.body.data.customerLabels).toEqual([{ displayName: 'VIP' }]);
    expect(res.body.data.customFieldDefinitions).toEqual([
      expect.objectContaining({ relatedName: 'CUSTOMER', name: 'Tier', fieldType: 'SELECT', options: ['Gold', 'Silver'], required: true, position: 0 }),
    ]);
  });

  it('refuses an unknown relatedName before running: it is the ResourceClass enum', async () => {
    const gql = t.graphql(tenant.token);
    expectNotInEnum(await gql('{ statuses(relatedName: SPACESHIP) { id } labels { id } }'), 'ResourceClass', 'SPACESHIP');
    expectNotInEnum(await gql('query($r: ResourceClass) { statuses(relatedName: $r) { id } }', { r: 'Customer' }), 'ResourceClass', 'Customer');
  });
});

describe('when the database fails under the running app (verified-key cache on)', () => {
  const broken = useTestApp({ env: { AUTH_CACHE_TTL_MS: '5000' } });
  let token: string;
  beforeAll(async () => {
    token = (await broken.tenant()).token;
  });

  const LEAKS = /prisma|pglite|postgres|select |from |where |sql|stack|\bat \S+ \(|node_modules|\.ts\b|ECONN|database|api_keys|token_hash|originalError/i;

  // Closes the database: the cached key passes authentication, so the service fails (internal.error), and a
  // key that is not cached cannot be verified (auth.failed).
  it('answers internal.error for the failing field and 401 auth.failed for a key it cannot verify, leaking nothing', async () => {
    const gql = broken.graphql(token);
    expect((await gql('{ me { apiVersion } }')).status).toBe(200); // now verified and cached
    await broken.database.close();

    const failed = await gql('{ customers(filter: { organization: "Acme" }) { nodes { id } } }', undefined, { headers: { 'x-request-id': 'gql-boom-1' } });
    expect(failed.body.data).toEqual({ customers: null });
    expect(failed.body.errors).toHaveLength(1);
    expect(failed.body.errors![0].path).toEqual(['customers']);
    expect(failed.body.errors![0].extensions).toMatchObject({ code: 'internal.error', status: 500, requestId: 'gql-boom-1' });
    expect(JSON.stringify(failed.body)).not.toMatch(LEAKS);
    const write = await gql('mutation { createCustomer(input: { organization: "During outage" }) { etag } }');
    expect(write.body.errors![0].extensions).toMatchObject({ code: 'internal.error', status: 500 });
    expect(JSON.stringify(write.body)).not.toMatch(LEAKS);
    expect(JSON.stringify(write.body)).not.toContain('During outage');

    const unverified = await broken.graphql('svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556')('{ me { apiVersion } }');
    expect(unverified.status).toBe(401);
    expect(unverified.body.data).toBeUndefined();
    expect(unverified.body.errors![0].extensions).toMatchObject({ code: 'auth.failed', status: 401 });
    expect(JSON.stringify(unverified.body)).not.toMatch(LEAKS);
  });
});
