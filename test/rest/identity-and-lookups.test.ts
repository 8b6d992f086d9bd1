import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// GET /me and the lookup catalogs: GET /statuses, /labels, /custom_field_definitions (query related_name).

const t = useTestApp();
const admin = () => t.app.domain.admin;

describe('GET /me', () => {
  it('returns the account, the user, the key id and scopes and the api_version, with Cache-Control: private, no-store', async () => {
    const tenant = await t.tenant({ name: 'Me Corp' });
    const key = await admin().createKey({ userId: tenant.userId, scopes: ['customers:read', 'jobs:write'] });
    const res = await t.client(key.token).get('/me');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['data']);
    const data = res.body.data;
    expect(data.account).toMatchObject({ id: tenant.accountId, name: 'Me Corp' });
    expect(data.user).toMatchObject({ id: tenant.userId });
    expect(Number.isInteger(data.user.id)).toBe(true);
    expect(data.key.id).toBe(key.id);
    expect([...data.key.scopes].sort()).toEqual(['customers:read', 'jobs:write']);
    expect(data.api_version).toBe('2026-04-30');
    // The identity body carries no environment field.
    expect(res.text).not.toMatch(/"environment"/);
  });

  it("describes the calling key's own user when the account has several", async () => {
    const tenant = await t.tenant();
    const user = await admin().createUser({ accountId: tenant.accountId, name: 'Office Olga', email: 'olga@example.com', role: 'office' });
    const key = await admin().createKey({ userId: user.id, scopes: [] });
    const res = await t.client(key.token).get('/me');
    expect(res.body.data.user).toMatchObject({ id: user.id, name: 'Office Olga' });
    expect(res.body.data.account.id).toBe(tenant.accountId);
    expect(res.body.data.key).toMatchObject({ id: key.id, scopes: [] });
  });

  it('never contains the token, its hash or any prefix of it', async () => {
    const tenant = await t.tenant();
    const key = await admin().createKey({ userId: tenant.userId });
    const res = await t.client(key.token).get('/me');
    expect(res.status).toBe(200);
    const text = res.text.toLowerCase();
    const digest = createHash('sha256').update(key.token).digest();
    const uuid = key.token.slice('svc_'.length);
    const forbidden = [
      key.token,
      'svc_', // every prefix of the token that a UI would show starts with it
      uuid,
      uuid.replace(/-/g, ''),
      // The random part of the UUID (its leading timestamp is the creation time, shared with the key id).
      uuid.slice(14),
      uuid.slice(-12),
      digest.toString('hex'),
      digest.toString('hex').slice(0, 16),
      digest.toString('base64'),
      digest.toString('base64url'),
    ];
    for (const needle of forbidden) expect(text, needle).not.toContain(needle.toLowerCase());
  });

  it('answers Cache-Control: private, no-store on its 401, 403 and 405 problems too', async () => {
    const missing = await t.client().get('/me');
    expectProblem(missing, { status: 401, code: 'auth.missing_token' });
    expect(missing.headers.get('cache-control')).toBe('private, no-store');
    const invalid = await t.client('svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556').get('/me');
    expectProblem(invalid, { status: 401, code: 'auth.invalid_token' });
    expect(invalid.headers.get('cache-control')).toBe('private, no-store');
    const closed = await t.tenant();
    await admin().updateAccount(closed.accountId, { active: false });
    const deactivated = await t.client(closed.token).get('/me/');
    expectProblem(deactivated, { status: 403, code: 'account.deactivated' });
    expect(deactivated.headers.get('cache-control')).toBe('private, no-store');
    const post = await t.client(closed.token).post('/me', {});
    expect(post.status).toBe(405);
    expect(post.headers.get('cache-control')).toBe('private, no-store');
  });
});

describe('lookups', () => {
  const { tenant } = useTenant(t);

  it('lists the default Customer statuses Active, Inactive in order, as {data, has_more: false, next_cursor: null}', async () => {
    const res = await t.client(tenant.token).get('/statuses?related_name=Customer');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.map((s: { display_name: string }) => s.display_name)).toEqual(['Active', 'Inactive']);
    for (const status of res.body.data) {
      expect(status.related_name).toBe('Customer');
      expect(status.id).toMatch(uuidV7);
    }
  });

  it('lists the statuses of every resource class when related_name is omitted', async () => {
    const res = await t.client(tenant.token).get('/statuses');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    const job = res.body.data.filter((s: { related_name: string }) => s.related_name === 'Job').map((s: { display_name: string }) => s.display_name);
    expect(job).toEqual(['Pending', 'Scheduled', 'In Progress', 'Completed', 'Cancelled']);
  });

  it('shows a status added by the administrator after the defaults, and hides it once removed', async () => {
    const own = await t.tenant();
    await admin().addLookup('status', { accountId: own.accountId, relatedName: 'Customer', name: 'Prospect' });
    const added = await t.client(own.token).get('/statuses?related_name=Customer');
    expect(added.body.data.map((s: { display_name: string }) => s.display_name)).toEqual(['Active', 'Inactive', 'Prospect']);
    await admin().removeLookup('status', { accountId: own.accountId, relatedName: 'Customer', name: 'Inactive' });
    const removed = await t.client(own.token).get('/statuses?related_name=Customer');
    expect(removed.body.data.map((s: { display_name: string }) => s.display_name)).toEqual(['Active', 'Prospect']);
  });

  it('lists labels added by the administrator for the resource class, and drops removed ones', async () => {
    const own = await t.tenant();
    const empty = await t.client(own.token).get('/labels?related_name=Customer');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ data: [], has_more: false, next_cursor: null });
    await admin().addLookup('label', { accountId: own.accountId, relatedName: 'Customer', name: 'VIP' });
    await admin().addLookup('label', { accountId: own.accountId, relatedName: 'Customer', name: 'Net 30' });
    await admin().addLookup('label', { accountId: own.accountId, relatedName: 'Job', name: 'Urgent' });
    const listed = await t.client(own.token).get('/labels?related_name=Customer');
    expect(listed.body.has_more).toBe(false);
    expect(listed.body.data.map((l: { display_name: string }) => l.display_name)).toEqual(['VIP', 'Net 30']);
    expect(listed.body.data.every((l: { related_name: string }) => l.related_name === 'Customer')).toBe(true);
    await admin().removeLookup('label', { accountId: own.accountId, relatedName: 'Customer', name: 'VIP' });
    const after = await t.client(own.token).get('/labels?related_name=Customer');
    expect(after.body.data.map((l: { display_name: string }) => l.display_name)).toEqual(['Net 30']);
    const jobs = await t.client(own.token).get('/labels?related_name=Job');
    expect(jobs.body.data.map((l: { display_name: string }) => l.display_name)).toEqual(['Urgent']);
  });

  it('lists custom field definitions added by the administrator with their type, options and required flag', async () => {
    const own = await t.tenant();
    const tier = await admin().addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Tier', type: 'select', options: ['Gold', 'Silver'], required: true });
    const since = await admin().addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Customer since', type: 'date' });
    await admin().addCustomField({ accountId: own.accountId, relatedName: 'Job', name: 'Gate code', type: 'text' });
    const res = await t.client(own.token).get('/custom_field_definitions?related_name=Customer');
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0]).toMatchObject({ id: tier.id, related_name: 'Customer', name: 'Tier', field_type: 'select', options: ['Gold', 'Silver'], required: true });
    expect(res.body.data[1]).toMatchObject({ id: since.id, name: 'Customer since', field_type: 'date', options: [], required: false });
  });

  it('drops a custom field definition once it is removed', async () => {
    const own = await t.tenant();
    await admin().addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Legacy id', type: 'text' });
    const kept = await admin().addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Region', type: 'text' });
    await admin().removeCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Legacy id' });
    const res = await t.client(own.token).get('/custom_field_definitions?related_name=Customer');
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([kept.id]);
  });

  it.each([
    ['/statuses?foo=bar', 'foo'],
    ['/labels?related_name=Customer&limit=5', 'limit'],
    ['/custom_field_definitions?related_name=Widget', 'Widget'],
    ['/statuses?related_name=customer', 'customer'],
    ['/labels?related_name=Customer&related_name=Job', 'related_name'],
    ['/statuses?related_name[in]=Customer', 'related_name[in]'],
  ])('answers 400 filter.invalid naming the offending item for %s', async (path, offending) => {
    const body = expectProblem(await t.client(tenant.token).get(path), { status: 400, code: 'filter.invalid', instance: `/api/v2${path.split('?')[0]}` });
    expect(body.detail).toContain(offending);
  });

  it("never shows another tenant's statuses, labels or custom field definitions", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await admin().addLookup('label', { accountId: a.accountId, relatedName: 'Customer', name: 'Only A' });
    await admin().addLookup('status', { accountId: a.accountId, relatedName: 'Customer', name: 'A Status' });
    const field = await admin().addCustomField({ accountId: a.accountId, relatedName: 'Customer', name: 'A Field', type: 'number' });
    const aStatuses = await t.client(a.token).get('/statuses?related_name=Customer');
    const bStatuses = await t.client(b.token).get('/statuses?related_name=Customer');
    expect(bStatuses.body.data.map((s: { display_name: string }) => s.display_name)).toEqual(['Active', 'Inactive']);
    const aIds = new Set(aStatuses.body.data.map((s: { id: string }) => s.id));
    for (const s of bStatuses.body.data) expect(aIds.has(s.id)).toBe(false);
    expect((await t.client(b.token).get('/statuses')).text).not.toContain('A Status');
    expect((await t.client(b.token).get('/labels')).body).toEqual({ data: [], has_more: false, next_cursor: null });
    const bFields = await t.client(b.token).get('/custom_field_definitions');
    expect(bFields.body).toEqual({ data: [], has_more: false, next_cursor: null });
    expect(bFields.text).not.toContain(field.id);
    expect((await t.client(a.token).get('/labels?related_name=Customer')).body.data.map((l: { display_name: string }) => l.display_name)).toEqual(['Only A']);
  });

  it('needs a valid key (401 auth.missing_token without one)', async () => {
    for (const path of ['/statuses', '/labels', '/custom_field_definitions']) {
      expectProblem(await t.client().get(`${path}?related_name=Customer`), { status: 401, code: 'auth.missing_token', instance: `/api/v2${path}` });
    }
  });
});
