import { describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { deleteRecord, ifMatch, readRecord, weakEtag } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';

// Notes over REST: listed and created under a parent record (/customers/{id}/notes ...), read, changed and deleted
// at /notes/{id}; the parent's read scope to read, notes:write as well to write; only the author or an admin may
// change or delete one; the parent's ETag does not move.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

const addNote = async (parent: string, note: Record<string, unknown>) => {
  const res = await api.post(`${parent}/notes`, { note });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, etag: res.headers.get('etag')!, record: res.body.data };
};

describe('notes', () => {
  it('creates a note on a customer with Location and ETag, its body exactly as written, its author the key\'s user', async () => {
    const customer = await createCustomer(api);
    const res = await api.post(`/customers/${customer.id}/notes`, { note: { body: '  Call *before* noon\n' } });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v2/notes/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    expect(res.body.data).toMatchObject({ body: '  Call *before* noon\n', pinned: false, notable_type: 'Customer', notable_id: customer.id, author_id: tenant.userId });
    expect((await api.get(`/notes/${res.body.data.id}`)).body).toEqual({ data: res.body.data });
  });

  it('leaves the parent\'s ETag as it was when a note is added, changed or deleted', async () => {
    const customer = await createCustomer(api);
    const note = await addNote(`/customers/${customer.id}`, { body: 'x' });
    await api.patch(`/notes/${note.id}`, { note: { pinned: true } }, ifMatch(note.etag));
    expect((await readRecord(api, 'customers', customer.id)).etag).toBe(customer.etag);
  });

  it('refuses a blank or too long body, and a parent that is absent, deleted or another tenant\'s', async () => {
    const customer = await createCustomer(api);
    expectProblem(await api.post(`/customers/${customer.id}/notes`, { note: { body: ' \n ' } }), { status: 422, code: 'validation.failed', errors: { body: ["can't be blank"] } });
    expectProblem(await api.post(`/customers/${customer.id}/notes`, { note: { body: 'x'.repeat(10_001) } }), { status: 422, code: 'validation.failed', errors: { body: true } });
    const theirs = await t.newTenant();
    const foreign = await createCustomer(theirs.api);
    expectProblem(await api.post(`/customers/${foreign.id}/notes`, { note: { body: 'x' } }), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get(`/customers/${foreign.id}/notes`), { status: 404, code: 'resource.not_found' });
    const theirNote = await theirs.api.post(`/customers/${foreign.id}/notes`, { note: { body: 'secret' } });
    expectProblem(await api.get(`/notes/${theirNote.body.data.id}`), { status: 404, code: 'resource.not_found' });
    const gone = await createCustomer(api);
    const orphan = await addNote(`/customers/${gone.id}`, { body: 'x' });
    await deleteRecord(api, 'customers', gone.id);
    expectProblem(await api.get(`/customers/${gone.id}/notes`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get(`/notes/${orphan.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get('/notes'), { status: 404, code: 'route.not_found' });
  });

  it('lists a parent\'s notes newest first, filtered by pinned, with a cursor bound to the parent', async () => {
    const a = await createCustomer(api);
    const b = await createCustomer(api);
    const first = await addNote(`/customers/${a.id}`, { body: 'one' });
    const second = await addNote(`/customers/${a.id}`, { body: 'two', pinned: true });
    await addNote(`/customers/${b.id}`, { body: 'other' });
    const page = await api.get(`/customers/${a.id}/notes?limit=1`);
    expect(page.body.data.map((n: any) => n.id)).toEqual([second.id]);
    const next = await api.get(`/customers/${a.id}/notes?limit=1&cursor=${page.body.next_cursor}`);
    expect(next.body.data.map((n: any) => n.id)).toEqual([first.id]);
    expectProblem(await api.get(`/customers/${b.id}/notes?limit=1&cursor=${page.body.next_cursor}`), { status: 400, code: 'cursor.invalid_filters' });
    expect((await api.get(`/customers/${a.id}/notes?pinned=true`)).body.data.map((n: any) => n.id)).toEqual([second.id]);
    expect((await api.get(`/customers/${a.id}/notes?sort=created_at`)).body.data.map((n: any) => n.id)).toEqual([first.id, second.id]);
    expectProblem(await api.get(`/customers/${a.id}/notes?limit=101`), { status: 400, code: 'pagination.limit_too_large' });
    expectProblem(await api.get(`/customers/${a.id}/notes?author_id=1`), { status: 400, code: 'filter.invalid' });
    expectProblem(await api.get(`/customers/${a.id}/notes?cursor=garbage`), { status: 400, code: 'cursor.invalid' });
  });

  it('filters a parent\'s notes by a created_at range', async () => {
    const customer = await createCustomer(api);
    const early = await addNote(`/customers/${customer.id}`, { body: 'early' });
    clock.advance(60_000);
    const late = await addNote(`/customers/${customer.id}`, { body: 'late' });
    const since = encodeURIComponent(late.record.created_at);
    expect((await api.get(`/customers/${customer.id}/notes?created_at[gte]=${since}`)).body.data.map((n: any) => n.id)).toEqual([late.id]);
    expect((await api.get(`/customers/${customer.id}/notes?created_at[lt]=${since}`)).body.data.map((n: any) => n.id)).toEqual([early.id]);
    expectProblem(await api.get(`/customers/${customer.id}/notes?created_at[gte]=soon`), { status: 400, code: 'filter.invalid' });
  });

  it('answers cursor.expired for a cursor of a parent\'s notes older than 24 hours', async () => {
    const customer = await createCustomer(api);
    await addNote(`/customers/${customer.id}`, { body: 'one' });
    await addNote(`/customers/${customer.id}`, { body: 'two' });
    const cursor = (await api.get(`/customers/${customer.id}/notes?limit=1`)).body.next_cursor;
    expect((await api.get(`/customers/${customer.id}/notes?limit=1&cursor=${cursor}`)).status).toBe(200);
    clock.advance(24 * 60 * 60 * 1000 + 1_000);
    expectProblem(await api.get(`/customers/${customer.id}/notes?limit=1&cursor=${cursor}`), { status: 400, code: 'cursor.expired' });
  });

  it('refuses a blank body on PATCH with 422 and leaves the note as it was', async () => {
    const customer = await createCustomer(api);
    const note = await addNote(`/customers/${customer.id}`, { body: 'kept' });
    expectProblem(await api.patch(`/notes/${note.id}`, { note: { body: '' } }, ifMatch(note.etag)), { status: 422, code: 'validation.failed', errors: { body: ["can't be blank"] } });
    expectProblem(await api.patch(`/notes/${note.id}`, { note: { notable_id: customer.id } }, ifMatch(note.etag)), { status: 422, code: 'validation.failed', errors: { notable_id: true } });
    expect((await api.get(`/notes/${note.id}`)).body.data).toEqual(note.record);
  });

  it('reads with the parent\'s read scope and writes with notes:write as well (404 before 403 on /notes/{id})', async () => {
    const customer = await createCustomer(api);
    const note = await addNote(`/customers/${customer.id}`, { body: 'x' });
    const reader = await userClient(t, tenant, 'admin', undefined, ['customers:read']);
    expect((await reader.api.get(`/customers/${customer.id}/notes`)).status).toBe(200);
    expect((await reader.api.get(`/notes/${note.id}`)).status).toBe(200);
    expectProblem(await reader.api.post(`/customers/${customer.id}/notes`, { note: { body: 'x' } }), { status: 403, code: 'auth.scope_missing' });
    const jobsOnly = await userClient(t, tenant, 'admin', undefined, ['jobs:read', 'notes:write']);
    const missing = expectProblem(await jobsOnly.api.get(`/notes/${note.id}`), { status: 403, code: 'auth.scope_missing' });
    expect(missing.required_scope).toBe('customers:read');
    expectProblem(await jobsOnly.api.get(`/customers/${customer.id}/notes`), { status: 403, code: 'auth.scope_missing' });
    expectProblem(await jobsOnly.api.get('/notes/01a2380e-9b9c-778c-926d-0503ce0d7cbc'), { status: 404, code: 'resource.not_found' });
    // Writing needs notes:write and the parent's read scope, on the nested route and on /notes/{id}.
    const parentMissing = expectProblem(await jobsOnly.api.post(`/customers/${customer.id}/notes`, { note: { body: 'x' } }), { status: 403, code: 'auth.scope_missing' });
    expect(parentMissing.required_scope).toBe('customers:read');
    expectProblem(await jobsOnly.api.patch(`/notes/${note.id}`, { note: { body: 'y' } }, ifMatch(note.etag)), { status: 403, code: 'auth.scope_missing' });
    expectProblem(await reader.api.patch(`/notes/${note.id}`, { note: { body: 'y' } }, ifMatch(note.etag)), { status: 403, code: 'auth.scope_missing' });
    const writer = await userClient(t, tenant, 'admin', undefined, ['customers:read', 'notes:write']);
    expect((await writer.api.post(`/customers/${customer.id}/notes`, { note: { body: 'x' } })).status).toBe(201);
    expect((await writer.api.patch(`/notes/${note.id}`, { note: { body: 'y' } }, ifMatch(note.etag))).status).toBe(200);
  });

  it('lets only the author or an admin change or delete a note', async () => {
    const customer = await createCustomer(api);
    const tech = await userClient(t, tenant, 'technician');
    const other = await userClient(t, tenant, 'office');
    const res = await tech.api.post(`/customers/${customer.id}/notes`, { note: { body: 'mine' } });
    const etag = res.headers.get('etag')!;
    expectProblem(await other.api.patch(`/notes/${res.body.data.id}`, { note: { body: 'theirs' } }, ifMatch(etag)), { status: 403, code: 'auth.permission_denied', detail: 'Only the author' });
    expectProblem(await other.api.delete(`/notes/${res.body.data.id}`, ifMatch(etag)), { status: 403, code: 'auth.permission_denied' });
    const changed = await tech.api.patch(`/notes/${res.body.data.id}`, { note: { body: 'mine, changed' } }, ifMatch(etag));
    expect(changed.status, changed.text).toBe(200);
    expectProblem(await api.delete(`/notes/${res.body.data.id}`, ifMatch(etag)), { status: 412, code: 'precondition.failed' });
    expectProblem(await api.delete(`/notes/${res.body.data.id}`), { status: 428, code: 'precondition.required' });
    expect((await api.delete(`/notes/${res.body.data.id}`, ifMatch(changed.headers.get('etag')!))).status).toBe(204);
  });

  it('emits note.created, note.updated and note.deleted carrying the parent, on the feed of a key that reads the parent only', async () => {
    const customer = await createCustomer(api);
    const note = await addNote(`/customers/${customer.id}`, { body: 'x' });
    const pinned = await api.patch(`/notes/${note.id}`, { note: { pinned: true } }, ifMatch(note.etag));
    expect((await api.delete(`/notes/${note.id}`, ifMatch(pinned.headers.get('etag')!))).status).toBe(204);
    const events = await t.database.prisma.event.findMany({ where: { record_id: note.id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => e.topic)).toEqual(['note.created', 'note.updated', 'note.deleted']);
    const reader = await userClient(t, tenant, 'admin', undefined, ['customers:read']);
    const feed = await reader.api.get(`/events?record_id=${note.id}`);
    expect(feed.body.data.map((e: any) => [e.type, e.data.object.notable_type, e.data.object.notable_id])).toEqual([
      ['note.created', 'Customer', customer.id],
      ['note.updated', 'Customer', customer.id],
      ['note.deleted', 'Customer', customer.id],
    ]);
    expect((await reader.api.get(`/events?topic=note.created&record_id=${note.id}`)).body.data).toHaveLength(1);
    // No event of the parent: a note is not part of it.
    expect(await t.database.prisma.event.count({ where: { record_id: customer.id, topic: 'customer.updated' } })).toBe(0);
    const jobsOnly = await userClient(t, tenant, 'admin', undefined, ['jobs:read']);
    expect((await jobsOnly.api.get(`/events?record_id=${note.id}`)).body.data).toEqual([]);
  });
});
