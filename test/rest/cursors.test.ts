import { createHmac, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/kernel/cursor.ts';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import type { Client } from '../helpers/http.ts';
import { cursorOf } from '../helpers/list-pages.ts';
import { expectProblem } from '../helpers/problem.ts';

// Rules 2 and 3 of the spec's "Rules for lists" and the cursor limits: HMAC-signed opaque cursors bound to the
// list and to its filters, q and custom_fields; 24-hour lifetime; rotatable signing keys whose retirement
// invalidates their cursors.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
let checkbox: string;
let records: { id: string; organization: string }[] = [];

const DAY_MS = 24 * 60 * 60 * 1000;

const { tenant, api } = useTenant(t);
beforeAll(async () => {
  checkbox = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Customer', name: 'Priority', type: 'checkbox' })).id;
  for (let i = 0; i < 12; i++) {
    const created = await createCustomer(api, { organization: `Cursor Co ${String(i).padStart(2, '0')}`, custom_fields: { [checkbox]: i % 2 === 0 } });
    if (i % 3 === 0) await updateCustomer(api, created, { status: 'Inactive' });
    records.push({ id: created.id, organization: created.record.organization });
  }
});

/** GET /customers with the query given as pairs (so a test controls exactly which parameters are sent). */
function list(params: Record<string, string>, as: Client = api) {
  return as.get(`/customers?${new URLSearchParams(params).toString()}`);
}

async function firstCursor(params: Record<string, string> = {}): Promise<string> {
  const res = await list({ limit: '3', ...params });
  expect(res.status, res.text).toBe(200);
  return cursorOf(res);
}

function flip(text: string, index: number): string {
  return `${text.slice(0, index)}${text[index] === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;
}

function sign(payload: string, secret: string): string {
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url')}`;
}

const decodePayload = (cursor: string) => JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString('utf8'));
const encodePayload = (payload: object) => Buffer.from(JSON.stringify(payload)).toString('base64url');

describe('a valid cursor', () => {
  it('continues the list where the previous page stopped', async () => {
    const first = await list({ limit: '3', sort: 'organization' });
    const second = await list({ limit: '3', cursor: cursorOf(first) });
    expect(second.status).toBe(200);
    expect(second.body.data.map((c: any) => c.organization)).toEqual(['Cursor Co 03', 'Cursor Co 04', 'Cursor Co 05']);
  });

  it('accepts the same parameters in a different order', async () => {
    const cursor = await firstCursor({ status: 'Active', q: 'cursor' });
    const res = await api.get(`/customers?cursor=${encodeURIComponent(cursor)}&q=cursor&limit=3&status=Active`);
    expect(res.status, res.text).toBe(200);
  });
});

describe('cursor.invalid', () => {
  it('answers 400 cursor.invalid for a cursor with a flipped character in its payload or its signature', async () => {
    const cursor = await firstCursor();
    const dot = cursor.indexOf('.');
    for (const index of [0, Math.floor(dot / 2), dot - 2, dot + 1, dot + 10, cursor.length - 10]) {
      const tampered = flip(cursor, index);
      expect(tampered).not.toBe(cursor);
      expectProblem(await list({ limit: '3', cursor: tampered }), { status: 400, code: 'cursor.invalid' });
    }
  });

  it('answers 400 cursor.invalid for an edited payload that keeps the old signature', async () => {
    const cursor = await firstCursor();
    const payload = decodePayload(cursor);
    for (const change of [{ id: records[0].id }, { t: Date.now() + DAY_MS }, { f: fingerprint([['status', 'Gold']]) }, { d: payload.d === 'asc' ? 'desc' : 'asc' }]) {
      const edited = `${encodePayload({ ...payload, ...change })}.${cursor.split('.')[1]}`;
      expectProblem(await list({ limit: '3', cursor: edited }), { status: 400, code: 'cursor.invalid' });
    }
  });

  it('answers 400 cursor.invalid for a truncated or padded cursor', async () => {
    const cursor = await firstCursor();
    const [payload, signature] = cursor.split('.');
    for (const broken of [cursor.slice(0, -1), cursor.slice(0, -6), cursor.slice(0, Math.floor(cursor.length / 2)), payload, `${payload}.`, `.${signature}`, `${cursor}AAAA`, `${cursor}.x`]) {
      expectProblem(await list({ limit: '3', cursor: broken }), { status: 400, code: 'cursor.invalid' });
    }
  });

  it('answers 400 cursor.invalid for garbage', async () => {
    for (const garbage of ['', 'abc', 'a.b', '...', 'eyJ9.eyJ9', '%%%', 'null', Buffer.from('{"k":1}').toString('base64url') + '.AAAA']) {
      expectProblem(await list({ limit: '3', cursor: garbage }), { status: 400, code: 'cursor.invalid' });
    }
  });

  it("answers 400 cursor.invalid for a cursor signed with another deployment's key", async () => {
    const cursor = await firstCursor();
    const [payload] = cursor.split('.');
    expectProblem(await list({ limit: '3', cursor: sign(payload, randomBytes(32).toString('base64url')) }), { status: 400, code: 'cursor.invalid' });
    const foreignKid = encodePayload({ ...decodePayload(cursor), k: 'kforeign000' });
    expectProblem(await list({ limit: '3', cursor: sign(foreignKid, randomBytes(32).toString('base64url')) }), { status: 400, code: 'cursor.invalid' });
  });

  it('answers 400 cursor.invalid for a genuinely signed cursor of another list endpoint', async () => {
    const foreign = await t.app.domain.cursors.encode({ r: 'sites', a: tenant.accountId, s: 'created_at', d: 'desc', v: Date.now(), id: records[0].id, f: fingerprint([]) });
    expectProblem(await list({ cursor: foreign }), { status: 400, code: 'cursor.invalid' });
    const control = await t.app.domain.cursors.encode({ r: 'customers', a: tenant.accountId, s: 'created_at', d: 'desc', v: Date.now(), id: records[0].id, f: fingerprint([]) });
    expect((await list({ cursor: control })).status).toBe(200);
  });

  it('answers 400 cursor.invalid for a signed cursor whose sort field or position this list cannot use', async () => {
    for (const payload of [
      { s: 'reference', d: 'asc', v: 'x', id: records[0].id },
      { s: 'created_at', d: 'desc', v: 'not a time', id: records[0].id },
      { s: 'created_at', d: 'desc', v: Date.now(), id: 'not-a-uuid' },
    ] as const) {
      const cursor = await t.app.domain.cursors.encode({ r: 'customers', a: tenant.accountId, f: fingerprint([]), ...payload });
      expectProblem(await list({ cursor }), { status: 400, code: 'cursor.invalid' });
    }
  });

  it("answers 400 cursor.invalid for another tenant's cursor (a cursor is bound to the account it was issued to)", async () => {
    const { api: otherApi } = await t.newTenant();
    await createCustomer(otherApi, { organization: 'Zeta Other Tenant' });
    const cursor = await firstCursor({ sort: 'organization' });
    expectProblem(await list({ limit: '100', cursor }, otherApi), { status: 400, code: 'cursor.invalid' });
  });

  it('answers 400 cursor.invalid for a signed cursor with a null position or an unknown direction', async () => {
    for (const payload of [
      { s: 'organization', d: 'asc', v: null, id: records[0].id },
      { s: 'created_at', d: 'sideways', v: Date.now(), id: records[0].id },
    ] as const) {
      const cursor = await t.app.domain.cursors.encode({ r: 'customers', a: tenant.accountId, f: fingerprint([]), ...(payload as any) });
      expectProblem(await list({ cursor }), { status: 400, code: 'cursor.invalid' });
    }
  });
});

describe('cursor.invalid_filters', () => {
  const changes: [string, Record<string, string>, Record<string, string>][] = [
    ['a changed filter', { status: 'Active' }, { status: 'Inactive' }],
    ['a dropped filter', { status: 'Active' }, {}],
    ['an added filter', {}, { status: 'Active' }],
    ['a filter moved to [in]', { status: 'Active' }, { 'status[in]': 'Active' }],
    ['an added created_at range', {}, { 'created_at[gte]': '2020-01-01' }],
    ['a changed q', { q: 'cursor' }, { q: 'cursor co' }],
    ['a dropped q', { q: 'cursor' }, {}],
    ['an added q', {}, { q: 'cursor' }],
  ];
  it.each(changes)('answers 400 cursor.invalid_filters for %s on a continuation page', async (_name, first, next) => {
    const cursor = await firstCursor(first);
    expectProblem(await list({ limit: '3', ...next, cursor }), { status: 400, code: 'cursor.invalid_filters' });
  });

  it('answers 400 cursor.invalid_filters when custom_fields filters change, are added or are dropped', async () => {
    const key = `custom_fields[${checkbox}]`;
    const cursor = await firstCursor({ [key]: 'true' });
    expect((await list({ limit: '3', [key]: 'true', cursor })).status).toBe(200);
    expectProblem(await list({ limit: '3', [key]: 'false', cursor }), { status: 400, code: 'cursor.invalid_filters' });
    expectProblem(await list({ limit: '3', cursor }), { status: 400, code: 'cursor.invalid_filters' });
    const plain = await firstCursor();
    expectProblem(await list({ limit: '3', [key]: 'true', cursor: plain }), { status: 400, code: 'cursor.invalid_filters' });
  });

  it('allows changing only limit (and ignores a changed sort)', async () => {
    const cursor = await firstCursor({ status: 'Active' });
    expect((await list({ limit: '50', status: 'Active', cursor })).status).toBe(200);
    expect((await list({ status: 'Active', cursor })).status).toBe(200);
    expect((await list({ status: 'Active', sort: 'number', cursor })).status).toBe(200);
  });
});

describe('cursor.expired', () => {
  it('accepts a cursor just under 24 hours old and answers 400 cursor.expired once it is older than 24 hours', async () => {
    const cursor = await firstCursor();
    clock.advance(DAY_MS - 60_000);
    expect((await list({ limit: '3', cursor })).status).toBe(200);
    clock.advance(60_000 + 1_000);
    expectProblem(await list({ limit: '3', cursor }), { status: 400, code: 'cursor.expired' });
    const fresh = await firstCursor();
    expect((await list({ limit: '3', cursor: fresh })).status).toBe(200);
  });

  it('answers cursor.expired 24 h + 1 s after issue even for a continuation with the same filters', async () => {
    const cursor = await firstCursor({ status: 'Active', q: 'cursor' });
    clock.advance(DAY_MS + 1_000);
    expectProblem(await list({ limit: '3', status: 'Active', q: 'cursor', cursor }), { status: 400, code: 'cursor.expired' });
  });
});

describe('signing key rotation', () => {
  it('keeps old cursors working after a rotation, and invalidates them once the old key is retired', async () => {
    const oldCursor = await firstCursor({ sort: 'organization' });
    const oldKid = decodePayload(oldCursor).k;
    const newKid = await t.app.domain.signingKeys.rotate();
    expect(newKid).not.toBe(oldKid);
    const stillWorks = await list({ limit: '3', cursor: oldCursor });
    expect(stillWorks.status, stillWorks.text).toBe(200);
    expect(stillWorks.body.data.map((c: any) => c.organization)).toEqual(['Cursor Co 03', 'Cursor Co 04', 'Cursor Co 05']);
    const newCursor = await firstCursor({ sort: 'organization' });
    expect(decodePayload(newCursor).k).toBe(newKid);
    expect((await list({ limit: '3', cursor: newCursor })).status).toBe(200);

    expect(await t.app.domain.signingKeys.retire(oldKid)).toBe(true);
    expectProblem(await list({ limit: '3', cursor: oldCursor }), { status: 400, code: 'cursor.invalid' });
    expect((await list({ limit: '3', cursor: newCursor })).status).toBe(200);
    expect((await list({ limit: '3', cursor: await firstCursor() })).status).toBe(200);
  });

  it('invalidates every earlier cursor when rotating with retirePrevious', async () => {
    const before = await firstCursor();
    expect((await list({ limit: '3', cursor: before })).status).toBe(200);
    await t.app.domain.signingKeys.rotate({ retirePrevious: true });
    expectProblem(await list({ limit: '3', cursor: before }), { status: 400, code: 'cursor.invalid' });
    const after = await firstCursor();
    expect((await list({ limit: '3', cursor: after })).status).toBe(200);
  });
});
