import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { expectProblem } from '../helpers/problem.ts';

// The spec's "Idempotency on financial creates", rules 1-5, on POST /invoices, and what docs/decisions.md decides
// where the spec is silent (key syntax, scope, canonical body, another path).

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { api, tenant } = useTenant(t);
let customerId: string;
beforeAll(async () => {
  customerId = (await createCustomer(api)).id;
});

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

describe('idempotency keys on financial creates', () => {
  it('rule 1: a POST without Idempotency-Key is refused with 400 idempotency_key.required, and nothing is created', async () => {
    const before = (await api.get(`/invoices?customer_id=${customerId}`)).body.data.length;
    expectProblem(await api.post('/invoices', { invoice: { customer_id: customerId } }), { status: 400, code: 'idempotency_key.required' });
    expect((await api.get(`/invoices?customer_id=${customerId}`)).body.data.length).toBe(before);
  });

  it('rule 2: the same key and body replay the stored 201 byte for byte, with ETag, Location and Idempotent-Replayed: true', async () => {
    const key = randomUUID();
    const first = await api.post('/invoices', { invoice: { customer_id: customerId, reference: 'R-1' } }, withKey(key));
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api.post('/invoices', { invoice: { reference: 'R-1', customer_id: customerId } }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const listed = (await api.get(`/invoices?customer_id=${customerId}`)).body.data.filter((i: any) => i.reference === 'R-1');
    expect(listed).toHaveLength(1);
  });

  it('rule 4: the same key with a different body answers 409 idempotency_key.in_use without Retry-After', async () => {
    const key = randomUUID();
    expect((await api.post('/invoices', { invoice: { customer_id: customerId } }, withKey(key))).status).toBe(201);
    const res = await api.post('/invoices', { invoice: { customer_id: customerId, reference: 'other' } }, withKey(key));
    expectProblem(res, { status: 409, code: 'idempotency_key.in_use' });
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('rule 5: a failed request is not stored: the same key with a corrected body creates the record', async () => {
    const key = randomUUID();
    expectProblem(await api.post('/invoices', { invoice: { customer_id: customerId, due_date: 'soon' } }, withKey(key)), { status: 422, code: 'validation.failed', errors: { due_date: true } });
    const fixed = await api.post('/invoices', { invoice: { customer_id: customerId, due_date: '2027-01-01', invoice_date: '2026-12-01' } }, withKey(key));
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.body.data).toMatchObject({ due_date: '2027-01-01', invoice_date: '2026-12-01' });
  });

  it('rule 3 under load: 50 concurrent POSTs with one key and one body create exactly one record; every answer is the 201 or 409 with Retry-After: 2', async () => {
    const key = randomUUID();
    const body = { invoice: { customer_id: customerId, reference: `load-${key}` } };
    const answers = await Promise.all(Array.from({ length: 50 }, () => api.post('/invoices', body, withKey(key))));
    const created = answers.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.text)).size).toBe(1);
    for (const res of answers.filter((r) => r.status !== 201)) {
      expectProblem(res, { status: 409, code: 'idempotency_key.in_use' });
      expect(res.headers.get('retry-after')).toBe('2');
    }
    const listed = (await api.get(`/invoices?q=${encodeURIComponent(`load-${key}`)}`)).body.data;
    expect(listed).toHaveLength(1);
    const replay = await api.post('/invoices', body, withKey(key));
    expect(replay.text).toBe(created[0].text);
  });

  it('replays a key stored before keys kept records (the answer REST stored then, byte for byte) until it expires', async () => {
    const key = randomUUID();
    const first = await api.post('/invoices', { invoice: { customer_id: customerId, reference: `legacy-${key}` } }, withKey(key));
    expect(first.status).toBe(201);
    // The stored form before 2026-11-28: the answer as sent (status, the headers that matter, the body) and the record's id.
    const legacy = { status: 201, headers: { ETag: first.headers.get('etag'), Location: first.headers.get('location') }, body: first.text, recordId: first.body.data.id };
    await t.app.domain.prisma.$executeRawUnsafe(`UPDATE idempotency_keys SET response = $1::jsonb WHERE key = $2`, JSON.stringify(legacy), key);
    const again = await api.post('/invoices', { invoice: { customer_id: customerId, reference: `legacy-${key}` } }, withKey(key));
    expect([again.status, again.text, again.headers.get('etag'), again.headers.get('idempotent-replayed')]).toEqual([201, first.text, first.headers.get('etag'), 'true']);
  });

  it('refuses a malformed key with 400 idempotency_key.invalid: empty, with a space, over 255 characters', async () => {
    for (const key of ['has space', 'x'.repeat(256), 'é']) {
      expectProblem(await api.post('/invoices', { invoice: { customer_id: customerId } }, withKey(key)), { status: 400, code: 'idempotency_key.invalid' });
    }
    expect((await api.post('/invoices', { invoice: { customer_id: customerId } }, withKey('x'.repeat(255)))).status).toBe(201);
  });

  it('answers a key for 24 hours only: after that the same key makes a new record', async () => {
    const key = randomUUID();
    const body = { invoice: { customer_id: customerId, reference: `day-${key}` } };
    const first = await api.post('/invoices', body, withKey(key));
    expect(first.status).toBe(201);
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    try {
      const later = await api.post('/invoices', body, withKey(key));
      expect(later.status, later.text).toBe(201);
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(later.body.data.id).not.toBe(first.body.data.id);
    } finally {
      clock.advance(-(24 * 60 * 60 * 1000 + 1000));
    }
  });

  it('keeps keys per API key: another key of the account may use the same value for another body', async () => {
    const key = randomUUID();
    expect((await api.post('/invoices', { invoice: { customer_id: customerId } }, withKey(key))).status).toBe(201);
    const other = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['invoices:write'] });
    const res = await t.client(other.token).post('/invoices', { invoice: { customer_id: customerId, reference: 'other key' } }, withKey(key));
    expect(res.status, res.text).toBe(201);
  });

  it('refuses a key used by REST for a GraphQL mutation (another operation) with idempotency_key.in_use naming the first request', async () => {
    const key = randomUUID();
    expect((await api.post('/invoices/', { invoice: { customer_id: customerId } }, withKey(key))).status).toBe(201);
    // The trailing slash names the same endpoint: a replay, not another path.
    expect((await api.post('/invoices', { invoice: { customer_id: customerId } }, withKey(key))).headers.get('idempotent-replayed')).toBe('true');
    const res = await t.graphql(tenant.token)('mutation($key: String!, $c: ID!) { createInvoice(idempotencyKey: $key, input: { customerId: $c }) { invoice { id } } }', { key, c: customerId });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('idempotency_key.in_use');
    expect(res.body.errors?.[0]?.message ?? '').toMatch(/POST \/api\/v2\/invoices/);
  });
});
