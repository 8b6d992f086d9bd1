import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, uniqueOrganization, updateCustomer } from '../helpers/factories/customers.ts';
import { ifMatch, weakEtag } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';

// Optimistic concurrency (weak ETags, If-Match on PATCH and DELETE, compare-and-set in one statement) and
// numbering under concurrent creates.

const t = useTestApp({ rateLimits: highRateLimits });

describe('ETag', () => {
  const { api } = useTenant(t);

  it('is a weak tag W/"<updated_at epoch ms>-<lock_version>" on create, get and update', async () => {
    const created = await createCustomer(api);
    const m = weakEtag.exec(created.etag);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBe(new Date(created.record.updated_at).getTime());
    const got = await api.get(`/customers/${created.id}`);
    expect(got.headers.get('etag')).toBe(created.etag);
    const updated = await updateCustomer(api, created, { reference: 'v2' });
    const u = weakEtag.exec(updated.etag);
    expect(u).not.toBeNull();
    expect(Number(u![1])).toBe(new Date(updated.record.updated_at).getTime());
    expect(Number(u![2])).toBeGreaterThan(Number(m![2]));
    expect((await api.get(`/customers/${created.id}`)).headers.get('etag')).toBe(updated.etag);
  });

  it('changes on every successful update, even one that sends the same values', async () => {
    const created = await createCustomer(api, { reference: 'same' });
    const first = await updateCustomer(api, created, { reference: 'same' });
    const second = await updateCustomer(api, first, { reference: 'same' });
    expect(new Set([created.etag, first.etag, second.etag]).size).toBe(3);
  });
});

describe('If-Match', () => {
  const { api } = useTenant(t);

  it('rejects a PATCH without If-Match with 428 precondition.required and changes nothing', async () => {
    const created = await createCustomer(api, { reference: 'before' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'after' } }), { status: 428, code: 'precondition.required' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'after' } }, ifMatch('')), {
      status: 428,
      code: 'precondition.required',
    });
    expect((await api.get(`/customers/${created.id}`)).body.data.reference).toBe('before');
  });

  it('rejects a DELETE without If-Match with 428 precondition.required and keeps the customer', async () => {
    const created = await createCustomer(api);
    expectProblem(await api.delete(`/customers/${created.id}`), { status: 428, code: 'precondition.required' });
    expect((await api.get(`/customers/${created.id}`)).status).toBe(200);
  });

  it('rejects a stale If-Match with 412 precondition.failed on PATCH and DELETE', async () => {
    const created = await createCustomer(api, { reference: 'v1' });
    const updated = await updateCustomer(api, created, { reference: 'v2' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'v3' } }, ifMatch(created.etag)), {
      status: 412,
      code: 'precondition.failed',
    });
    expectProblem(await api.delete(`/customers/${created.id}`, ifMatch(created.etag)), { status: 412, code: 'precondition.failed' });
    const read = await api.get(`/customers/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.reference).toBe('v2');
    expect(read.headers.get('etag')).toBe(updated.etag);
  });

  it('rejects garbage and foreign If-Match values with 412 precondition.failed', async () => {
    const created = await createCustomer(api);
    const other = await createCustomer(api);
    const [, ms, version] = weakEtag.exec(created.etag)!;
    for (const value of ['garbage', '*', '"abc"', 'W/"x-y"', `W/"${ms}-${Number(version) + 1}"`, `W/"${Number(ms) + 1}-${version}"`, other.etag]) {
      expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'x' } }, ifMatch(value)), {
        status: 412,
        code: 'precondition.failed',
      });
      expectProblem(await api.delete(`/customers/${created.id}`, ifMatch(value)), { status: 412, code: 'precondition.failed' });
    }
    expect((await api.get(`/customers/${created.id}`)).headers.get('etag')).toBe(created.etag);
  });

  it('answers in the order 428, 404, 412: a malformed If-Match on a record that does not exist is 404', async () => {
    const missing = '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23';
    for (const value of ['garbage', '*', 'W/"x-y"']) {
      expectProblem(await api.patch(`/customers/${missing}`, { customer: { reference: 'x' } }, ifMatch(value)), { status: 404, code: 'resource.not_found' });
      expectProblem(await api.delete(`/customers/${missing}`, ifMatch(value)), { status: 404, code: 'resource.not_found' });
    }
    expectProblem(await api.patch(`/customers/${missing}`, { customer: { reference: 'x' } }), { status: 428, code: 'precondition.required' });
  });

  it('checks If-Match before validating the body (a stale tag answers 412 even for an invalid body)', async () => {
    const created = await createCustomer(api);
    const updated = await updateCustomer(api, created, { reference: 'moved' });
    expect(updated.etag).not.toBe(created.etag);
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { organization: '' } }, ifMatch(created.etag)), {
      status: 412,
      code: 'precondition.failed',
    });
  });

  it('lets exactly one of several concurrent PATCHes with the same If-Match win; the others get 412', async () => {
    const created = await createCustomer(api, { reference: 'start' });
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.patch(`/customers/${created.id}`, { customer: { reference: `writer-${i}` } }, ifMatch(created.etag))),
    );
    const winners = attempts.filter((r) => r.status === 200);
    const losers = attempts.filter((r) => r.status !== 200);
    expect(winners).toHaveLength(1);
    for (const loser of losers) expectProblem(loser, { status: 412, code: 'precondition.failed' });
    const read = await api.get(`/customers/${created.id}`);
    expect(read.body.data.reference).toBe(winners[0].body.data.reference);
    expect(read.headers.get('etag')).toBe(winners[0].headers.get('etag'));
    const events = await t.database.prisma.event.count({ where: { record_id: created.id, action: 'updated' } });
    expect(events).toBe(1);
  });

  it('lets exactly one of a concurrent PATCH and DELETE with the same If-Match win', async () => {
    const created = await createCustomer(api);
    const [patched, deleted] = await Promise.all([
      api.patch(`/customers/${created.id}`, { customer: { reference: 'racing' } }, ifMatch(created.etag)),
      api.delete(`/customers/${created.id}`, ifMatch(created.etag)),
    ]);
    const patchWon = patched.status === 200;
    const deleteWon = deleted.status === 204;
    expect(patchWon !== deleteWon, `${patched.status} / ${deleted.status}`).toBe(true);
    if (patchWon) expectProblem(deleted, { status: 412, code: 'precondition.failed' });
    // The PATCH either lost the compare-and-set (412) or arrived after the delete committed (404).
    else expect([412, 404]).toContain(patched.status);
    expect((await api.get(`/customers/${created.id}`)).status).toBe(patchWon ? 200 : 404);
  });
});

describe('numbering under concurrency', () => {
  it('gives 20 concurrent creates 20 distinct consecutive numbers with no gaps', async () => {
    const { api } = await t.newTenant();
    const results = await Promise.all(Array.from({ length: 20 }, () => api.post('/customers', { customer: { organization: uniqueOrganization('Burst') } })));
    for (const res of results) expect(res.status, res.text).toBe(201);
    const numbers = results.map((r) => Number(r.body.data.number)).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await createCustomer(api)).record.number).toBe('21');
  });

  it('keeps the sequence gap-free when concurrent creates race for the same organization (one wins, the rest 422)', async () => {
    const { api } = await t.newTenant();
    expect((await createCustomer(api)).record.number).toBe('1');
    const organization = uniqueOrganization('Contested');
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/customers', { customer: { organization } })));
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    expect(created[0].body.data.number).toBe('2');
    for (const res of results.filter((r) => r.status !== 201)) {
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { organization: ['has already been taken'] }, onlyErrors: true });
    }
    expect((await createCustomer(api)).record.number).toBe('3');
  });

  it('never fails an automatically numbered create because of a client number created at the same time', async () => {
    const { api } = await t.newTenant();
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => api.post('/customers', { customer: { organization: uniqueOrganization() } })),
      ...['2', '4', '6', '8'].map((number) => api.post('/customers', { customer: { organization: uniqueOrganization(), number } })),
    ]);
    // A client value may lose to an automatic one (422 has already been taken); an automatic one never fails.
    for (const res of results.slice(0, 8)) expect(res.status, res.text).toBe(201);
    for (const res of results.slice(8)) {
      if (res.status !== 201) expectProblem(res, { status: 422, code: 'validation.failed', errors: { number: ['has already been taken'] }, onlyErrors: true });
    }
    const numbers = results.filter((r) => r.status === 201).map((r) => r.body.data.number);
    expect(new Set(numbers).size).toBe(numbers.length);
  });
});
