import { describe, expect, it, vi } from 'vitest';
import { type Tenant, type TestApp, TestClock, useTestApp } from '../helpers/app.ts';
import { tokenPattern, unknownToken, uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// The spec's Authentication table, row by row, and the key format. (/me itself: identity-and-lookups.test.ts.)

const t = useTestApp();
const admin = () => t.app.domain.admin;

describe('authentication table', () => {
  it('answers 401 auth.missing_token when no Authorization header is sent', async () => {
    const res = await t.client(null).get('/me');
    expectProblem(res, { status: 401, code: 'auth.missing_token', instance: '/api/v2/me' });
  });

  it.each([
    ['a Basic credential', 'Basic dXNlcjpwYXNz'],
    ['"Bearer" without a token', 'Bearer'],
    ['a bare token without the Bearer scheme', 'svc_0190c0de-0000-7000-8000-000000000000'],
  ])('answers 401 auth.missing_token for %s', async (_name, header) => {
    const res = await t.client(null).get('/customers', { headers: { authorization: header } });
    expectProblem(res, { status: 401, code: 'auth.missing_token', instance: '/api/v2/customers' });
  });

  it('accepts the Bearer scheme case-insensitively (RFC 9110 auth-scheme)', async () => {
    const tenant = await t.tenant();
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await t.client(null).get('/me', { headers: { authorization: `${scheme} ${tenant.token}` } });
      expect(res.status, scheme).toBe(200);
    }
  });

  it('answers 401 auth.invalid_token for a well-formed token that matches no key', async () => {
    const token = unknownToken();
    expect(token).toMatch(tokenPattern);
    expectProblem(await t.client(token).get('/me'), { status: 401, code: 'auth.invalid_token' });
  });

  it.each([['garbage', 'not-a-key'], ['a svc_ token that is not a UUID', 'svc_1234'], ['a token with the wrong prefix', `sk_${crypto.randomUUID()}`]])(
    'answers 401 auth.invalid_token for %s',
    async (_name, token) => {
      expectProblem(await t.client(token).get('/me'), { status: 401, code: 'auth.invalid_token', instance: '/api/v2/me' });
    },
  );

  it('answers 401 auth.invalid_token for an expired key, while an unexpired one works', async () => {
    const tenant = await t.tenant();
    const expired = await admin().createKey({ userId: tenant.userId, expiresAt: new Date(Date.now() - 60_000) });
    expectProblem(await t.client(expired.token).get('/me'), { status: 401, code: 'auth.invalid_token' });
    const valid = await admin().createKey({ userId: tenant.userId, expiresAt: new Date(Date.now() + 3_600_000) });
    const me = await t.client(valid.token).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data.key.id).toBe(valid.id);
  });

  it('answers 401 auth.token_revoked for a revoked key', async () => {
    const tenant = await t.tenant();
    expect((await t.client(tenant.token).get('/me')).status).toBe(200);
    await admin().revokeKey(tenant.keyId);
    expectProblem(await t.client(tenant.token).get('/me'), { status: 401, code: 'auth.token_revoked' });
    expectProblem(await t.client(tenant.token).get('/customers'), { status: 401, code: 'auth.token_revoked' });
  });

  it('answers 401 auth.token_revoked for a rotated key and accepts the new key with the same scopes', async () => {
    const tenant = await t.tenant();
    const old = await admin().createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const rotated = await admin().rotateKey(old.id);
    expect(rotated.id).not.toBe(old.id);
    expect(rotated.token).not.toBe(old.token);
    expectProblem(await t.client(old.token).get('/me'), { status: 401, code: 'auth.token_revoked' });
    const me = await t.client(rotated.token).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data.key).toMatchObject({ id: rotated.id, scopes: ['customers:read'] });
    expect((await t.client(rotated.token).get('/customers')).status).toBe(200);
  });

  it('answers 403 auth.scope_missing with required_scope and granted_scopes when the key lacks the scope', async () => {
    const tenant = await t.tenant();
    const key = await admin().createKey({ userId: tenant.userId, scopes: ['jobs:read', 'sites:write'] });
    const body = expectProblem(await t.client(key.token).get('/customers'), { status: 403, code: 'auth.scope_missing', instance: '/api/v2/customers' });
    expect(body.required_scope).toBe('customers:read');
    expect([...body.granted_scopes].sort()).toEqual(['jobs:read', 'sites:write']);
  });

  it('lets customers:write read customers (write implies read of the same resource)', async () => {
    const tenant = await t.tenant();
    const key = await admin().createKey({ userId: tenant.userId, scopes: ['customers:write'] });
    const created = await t.client(key.token).post('/customers', { customer: { organization: 'Write Only Co' } });
    expect(created.status).toBe(201);
    expect((await t.client(key.token).get('/customers')).status).toBe(200);
    expect((await t.client(key.token).get(`/customers/${created.body.data.id}`)).status).toBe(200);
  });

  it('never lets a scope of another resource read or write customers (write implies read of its own resource only)', async () => {
    const tenant = await t.tenant();
    const key = await admin().createKey({ userId: tenant.userId, scopes: ['sites:write', 'jobs:write', 'contacts:read'] });
    const read = expectProblem(await t.client(key.token).get('/customers'), { status: 403, code: 'auth.scope_missing' });
    expect(read.required_scope).toBe('customers:read');
    const write = expectProblem(await t.client(key.token).post('/customers', { customer: { organization: 'X' } }), { status: 403, code: 'auth.scope_missing' });
    expect(write.required_scope).toBe('customers:write');
  });

  it('refuses POST, PATCH and DELETE to a customers:read key with 403 auth.scope_missing (read never implies write)', async () => {
    const tenant = await t.tenant();
    const created = await t.client(tenant.token).post('/customers', { customer: { organization: 'Read Only Target' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const etag = created.headers.get('etag')!;
    const key = await admin().createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const reader = t.client(key.token);
    expect((await reader.get(`/customers/${id}`)).status).toBe(200);
    for (const res of [
      await reader.post('/customers', { customer: { organization: 'Nope' } }),
      await reader.patch(`/customers/${id}`, { customer: { reference: 'x' } }, { headers: { 'if-match': etag } }),
      await reader.delete(`/customers/${id}`, { headers: { 'if-match': etag } }),
    ]) {
      const body = expectProblem(res, { status: 403, code: 'auth.scope_missing' });
      expect(body.required_scope).toBe('customers:write');
      expect(body.granted_scopes).toEqual(['customers:read']);
    }
    const after = await reader.get(`/customers/${id}`);
    expect(after.body.data.reference ?? null).toBeNull();
  });

  it('lets a key without any scope call /me and the lookups, but no resource endpoint', async () => {
    const tenant = await t.tenant();
    const key = await admin().createKey({ userId: tenant.userId, scopes: [] });
    const me = await t.client(key.token).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data.key.scopes).toEqual([]);
    for (const path of ['/statuses?related_name=Customer', '/labels?related_name=Customer', '/custom_field_definitions?related_name=Customer']) {
      expect((await t.client(key.token).get(path)).status, path).toBe(200);
    }
    const body = expectProblem(await t.client(key.token).get('/customers'), { status: 403, code: 'auth.scope_missing' });
    expect(body.granted_scopes).toEqual([]);
  });

  it("answers 403 account.inactive when the key's user is inactive, and works again once reactivated", async () => {
    const tenant = await t.tenant();
    const user = await admin().createUser({ accountId: tenant.accountId, name: 'Tech', email: 'tech@example.com', role: 'technician' });
    const key = await admin().createKey({ userId: user.id });
    expect((await t.client(key.token).get('/me')).status).toBe(200);
    await admin().updateUser(user.id, { active: false });
    expectProblem(await t.client(key.token).get('/me'), { status: 403, code: 'account.inactive' });
    expectProblem(await t.client(key.token).get('/customers'), { status: 403, code: 'account.inactive' });
    // The account's other users are unaffected.
    expect((await t.client(tenant.token).get('/me')).status).toBe(200);
    await admin().updateUser(user.id, { active: true });
    expect((await t.client(key.token).get('/me')).status).toBe(200);
  });

  it('answers 403 account.deactivated with the reason when the account was deactivated with one', async () => {
    const tenant = await t.tenant();
    await admin().updateAccount(tenant.accountId, { active: false, reason: 'Subscription cancelled' });
    const body = expectProblem(await t.client(tenant.token).get('/customers'), { status: 403, code: 'account.deactivated' });
    expect(body.reason).toBe('Subscription cancelled');
    expectProblem(await t.client(tenant.token).get('/me'), { status: 403, code: 'account.deactivated' });
  });

  it('answers 403 account.deactivated without a reason field when none was given', async () => {
    const tenant = await t.tenant();
    await admin().updateAccount(tenant.accountId, { active: false });
    const body = expectProblem(await t.client(tenant.token).get('/me'), { status: 403, code: 'account.deactivated' });
    expect(Object.keys(body)).not.toContain('reason');
    await admin().updateAccount(tenant.accountId, { active: true });
    expect((await t.client(tenant.token).get('/me')).status).toBe(200);
  });

  it('answers 403 auth.plan_required when the plan has no API access', async () => {
    const tenant = await t.tenant();
    await admin().updateAccount(tenant.accountId, { apiAccess: false });
    expectProblem(await t.client(tenant.token).get('/me'), { status: 403, code: 'auth.plan_required' });
    expectProblem(await t.client(tenant.token).post('/customers', { customer: { organization: 'Y' } }), { status: 403, code: 'auth.plan_required' });
  });

  it('exempts sandbox accounts from auth.plan_required', async () => {
    const tenant = await t.tenant({ sandbox: true });
    await admin().updateAccount(tenant.accountId, { apiAccess: false });
    const me = await t.client(tenant.token).get('/me');
    expect(me.status).toBe(200);
    expect(me.body.data.account.sandbox).toBe(true);
    expect((await t.client(tenant.token).get('/customers')).status).toBe(200);
  });
});

describe('key format', () => {
  /** 48-bit unix-ms timestamp and the 74 random bits (rand_a 12 bits, rand_b 62 bits) of a UUIDv7. */
  function parts(uuid: string): { ms: number; random: bigint } {
    const m = uuidV7.exec(uuid.replace(/^svc_/, ''))!;
    expect(m, uuid).not.toBeNull();
    const randA = BigInt(`0x${m[3]}`);
    const randB = (BigInt(`0x${m[4]}`) & 0x3fffn) << 48n | BigInt(`0x${m[5]}`);
    return { ms: parseInt(m[1] + m[2], 16), random: (randA << 62n) | randB };
  }

  function hamming(a: bigint, b: bigint): number {
    let x = a ^ b;
    let n = 0;
    while (x) {
      n += Number(x & 1n);
      x >>= 1n;
    }
    return n;
  }

  it('issues tokens of the form svc_<UUIDv7> (version 7, RFC 9562 variant, current timestamp)', async () => {
    const tenant = await t.tenant();
    const before = Date.now();
    const key = await admin().createKey({ userId: tenant.userId });
    const after = Date.now();
    for (const token of [tenant.token, key.token]) expect(token).toMatch(tokenPattern);
    const { ms } = parts(key.token);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('gives two keys created in the same millisecond unrelated random bits, unrelated to their key ids', async () => {
    const tenant = await t.tenant();
    // Freeze the wall clock so both keys (and their ids) are made in the same millisecond; a monotonic or
    // counter-based v7 generator would then derive one token's random bits from the other's.
    // (A moment slightly ahead of real time, so no generator's monotonic state is already past it.)
    const frozen = Date.now() + 60_000;
    vi.useFakeTimers({ toFake: ['Date'], now: frozen });
    let a, b;
    try {
      a = await admin().createKey({ userId: tenant.userId });
      b = await admin().createKey({ userId: tenant.userId });
    } finally {
      vi.useRealTimers();
    }
    const [ta, tb, ia, ib] = [a.token, b.token, a.id, b.id].map(parts);
    expect(ta.ms).toBe(tb.ms);
    expect(ta.ms).toBe(frozen);
    // Two independent 74-bit random values differ in ~37 bit positions and are ~2^73 apart. Derived values
    // give themselves away: a reused random tail shows as few differing bits (fewer than 16: p < 1e-6), a
    // counter (in the high or the low bits, as monotonic v7 generators keep one) as values closer than 2^50
    // (p < 2^-23 for independent values).
    const pairs: [string, bigint, bigint][] = [
      ['token a / token b', ta.random, tb.random],
      ['token a / id a', ta.random, ia.random],
      ['token a / id b', ta.random, ib.random],
      ['token b / id a', tb.random, ia.random],
      ['token b / id b', tb.random, ib.random],
    ];
    for (const [name, x, y] of pairs) {
      expect(hamming(x, y), `${name}: differing bits`).toBeGreaterThanOrEqual(16);
      const distance = x > y ? x - y : y - x;
      expect(distance > 1n << 50n, `${name}: numeric distance 2^${distance.toString(2).length - 1}`).toBe(true);
    }
    // No 12-hex run of one token's random part appears in the other token or in either id.
    const tail = (s: string) => s.slice(-12);
    for (const other of [b.token, a.id, b.id]) expect(other).not.toContain(tail(a.token));
    for (const other of [a.token, a.id, b.id]) expect(other).not.toContain(tail(b.token));
    // Both keys work.
    expect((await t.client(a.token).get('/me')).body.data.key.id).toBe(a.id);
    expect((await t.client(b.token).get('/me')).body.data.key.id).toBe(b.id);
  });
});

describe('with the verified-key cache on (AUTH_CACHE_TTL_MS=2000)', () => {
  const clock = new TestClock();
  const cached = useTestApp({ clock, env: { AUTH_CACHE_TTL_MS: '2000' } });

  /** Polls GET /me until it stops answering 200; returns the final response and the ms since the change committed. */
  async function untilRefused(token: string, change: () => Promise<unknown>) {
    const me = () => cached.client(token).get('/me');
    expect((await me()).status).toBe(200); // now verified and cached
    await change();
    const committed = Date.now();
    let res = await me();
    while (res.status === 200 && Date.now() - committed < 8_000) {
      await new Promise((r) => setTimeout(r, 100));
      res = await me();
    }
    return { res, elapsed: Date.now() - committed };
  }

  type Admin = TestApp['app']['domain']['admin'];
  it.each([
    ['revocation', 401, 'auth.token_revoked', (a: Admin, k: Tenant) => a.revokeKey(k.keyId)],
    ['rotation', 401, 'auth.token_revoked', (a: Admin, k: Tenant) => a.rotateKey(k.keyId)],
    ['account deactivation', 403, 'account.deactivated', (a: Admin, k: Tenant) => a.updateAccount(k.accountId, { active: false })],
    ['plan without API access', 403, 'auth.plan_required', (a: Admin, k: Tenant) => a.updateAccount(k.accountId, { apiAccess: false })],
    ['user inactivation', 403, 'account.inactive', (a: Admin, k: Tenant) => a.updateUser(k.userId, { active: false })],
  ] as const)('applies %s made by this process at once, though the key was cached', async (_name, status, code, change) => {
    const tenant = await cached.tenant();
    expect((await cached.client(tenant.token).get('/me')).status).toBe(200); // now verified and cached
    await change(cached.app.domain.admin, tenant);
    expectProblem(await cached.client(tenant.token).get('/me'), { status, code });
  });

  it.each([
    ['revocation', 401, 'auth.token_revoked', (k: Tenant) => cached.database.prisma.apiKey.update({ where: { id: k.keyId }, data: { revoked_at: new Date() } })],
    ['account deactivation', 403, 'account.deactivated', (k: Tenant) => cached.database.prisma.account.update({ where: { id: k.accountId }, data: { active: false } })],
  ] as const)('applies %s made behind the process (another process, the fieldline command) within 5 seconds', async (_name, status, code, change) => {
    const tenant = await cached.tenant();
    const { res, elapsed } = await untilRefused(tenant.token, () => change(tenant));
    expectProblem(res, { status, code });
    // An upper bound (the cache lifetime plus polling), not a speed measurement.
    expect(elapsed).toBeLessThan(5_000);
  });

  it('refuses a cached key as soon as it expires', async () => {
    const tenant = await cached.tenant();
    const key = await cached.app.domain.admin.createKey({ userId: tenant.userId, expiresAt: new Date(clock.now().getTime() + 3_600_000) });
    expect((await cached.client(key.token).get('/me')).status).toBe(200);
    clock.advance(3_600_001);
    expectProblem(await cached.client(key.token).get('/me'), { status: 401, code: 'auth.invalid_token' });
  });

  // Last in this block: it closes the database under the running app.
  it('answers 401 auth.failed when verifying the key fails unexpectedly, leaking nothing', async () => {
    const tenant = await cached.tenant();
    const unverified = await cached.app.domain.admin.createKey({ userId: tenant.userId });
    // The database goes away (on PostgreSQL it is dropped); reading any key not in the cache now fails.
    await cached.database.close();
    const res = await cached.client(unknownToken()).get('/me');
    const body = expectProblem(res, { status: 401, code: 'auth.failed', instance: '/api/v2/me' });
    expect(res.text).not.toMatch(/prisma|select |postgres|pglite|stack|\bat \S+ \(|node_modules|api_keys|token_hash/i);
    expect(body.detail === null || body.detail.length < 200).toBe(true);
    expectProblem(await cached.client(unverified.token).get('/customers'), { status: 401, code: 'auth.failed', instance: '/api/v2/customers' });
  });
});
