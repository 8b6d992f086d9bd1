import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createItem } from '../helpers/factories/catalog.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { idsOf, patch, readRecord, unique, updateRecord } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { createSystem } from '../helpers/factories/systems.ts';
import { followPages } from '../helpers/list-pages.ts';
import { expectProblem } from '../helpers/problem.ts';

// Jobs over REST: every field of the spec's Job table, the conventions (number, status, labels, custom fields),
// list filters (status = / [in], created_at, updated_at, scheduled_start ranges), assignments, the schedule rule
// and free-text search over the job's own and related text.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(api);
});

describe('jobs: fields', () => {
  it('persists and returns every field of the Job table, reference included', async () => {
    const contact = await createContact(api);
    const system = await createSystem(api, place.site.id, { system_type: 'Boiler' });
    const fields = {
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      system_id: system.id,
      title: 'Annual service',
      scope_of_work: 'Service the boiler\nand check valves',
      work_description: 'Internal: bring ladder',
      customer_notes: 'Dog in yard',
      reference: 'PO-7781',
      job_type: 'Maintenance',
      priority: 'High',
      due_date: '2026-03-15',
      scheduled_start: '2026-03-10T08:00:00.000Z',
      scheduled_end: '2026-03-10T10:30:00.000Z',
    };
    const res = await api.post('/jobs', { job: fields });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v2/jobs/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(/^W\/"\d+-\d+"$/);
    expect(res.body.data).toMatchObject({ ...fields, status: 'Pending', labels: [], custom_fields: {}, lineitems: [], assignments: [], amount: '0.00', estimate_id: null });
    const got = await readRecord(api, 'jobs', res.body.data.id);
    expect(got.record).toEqual(res.body.data);
    expect(got.etag).toBe(res.headers.get('etag'));

    const changed = {
      title: 'Changed',
      scope_of_work: 'New scope',
      work_description: 'New internal',
      customer_notes: 'No dog',
      reference: 'PO-9',
      job_type: 'Repair',
      priority: 'Low',
      due_date: '2026-04-01',
    };
    const up = await patch(api, 'jobs', got, changed);
    expect(up.status, up.text).toBe(200);
    expect(up.body.data).toMatchObject(changed);
    expect((await readRecord(api, 'jobs', got.id)).record).toMatchObject(changed);
    const cleared = await patch(api, 'jobs', { id: got.id, etag: up.headers.get('etag')! }, { reference: null, due_date: null, contact_id: null });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body.data).toMatchObject({ reference: null, due_date: null, contact_id: null });
  });

  it('rejects an unparseable due_date with 422 naming the field', async () => {
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, due_date: '2026-13-45' } }), { status: 422, code: 'validation.failed', errors: { due_date: true } });
  });

  it('assigns sequential numbers, keeps a supplied number and refuses a duplicate or a change', async () => {
    const a = await createJob(api, { site_id: place.site.id });
    const b = await createJob(api, { site_id: place.site.id });
    expect(Number(b.record.number)).toBe(Number(a.record.number) + 1);
    const n = unique('J-');
    const c = await createJob(api, { site_id: place.site.id, number: n });
    expect(c.record.number).toBe(n);
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, number: n } }), { status: 422, code: 'validation.failed', errors: { number: true } });
    expectProblem(await patch(api, 'jobs', c, { number: unique('J-') }), { status: 422, code: 'number.immutable' });
  });

  it('refuses status on create, accepts any configured status on update, and answers 422 status.transition_invalid naming an unknown one', async () => {
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, status: 'Scheduled' } }), { status: 422, code: 'validation.failed', errors: { status: true } });
    let job = await createJob(api, { site_id: place.site.id });
    for (const status of ['Completed', 'Pending', 'Pending', 'In Progress']) {
      const res = await patch(api, 'jobs', job, { status });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.status).toBe(status);
      job = { ...job, etag: res.headers.get('etag')! };
    }
    expectProblem(await patch(api, 'jobs', job, { status: 'completed' }), { status: 422, code: 'status.transition_invalid', detail: 'completed' });
    expect((await readRecord(api, 'jobs', job.id)).record.status).toBe('In Progress');
  });

  it('replaces labels with configured Job labels and refuses unknown ones', async () => {
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Job', name: 'Urgent' });
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Job', name: 'Warranty' });
    const job = await createJob(api, { site_id: place.site.id, labels: ['Urgent'] });
    expect(job.record.labels).toEqual(['Urgent']);
    const up = await patch(api, 'jobs', job, { labels: ['Warranty'] });
    expect(up.body.data.labels).toEqual(['Warranty']);
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, labels: ['Nope'] } }), { status: 422, code: 'validation.failed', errors: { labels: true } });
  });

  it('enforces required custom fields on create and on update', async () => {
    const { tenant: other, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const def = await t.app.domain.admin.addCustomField({ accountId: other.accountId, relatedName: 'Job', name: 'Permit', type: 'text', required: true });
    expectProblem(await oapi.post('/jobs', { job: { site_id: p.site.id } }), { status: 422, code: 'validation.failed', errors: { [`custom_fields.${def.id}`]: true } });
    const job = await createJob(oapi, { site_id: p.site.id, custom_fields: { [def.id]: 'P-1' } });
    expect(job.record.custom_fields).toEqual({ [def.id]: 'P-1' });
    expectProblem(await patch(oapi, 'jobs', job, { custom_fields: { [def.id]: null } }), {
      status: 422,
      code: 'validation.failed',
      errors: { [`custom_fields.${def.id}`]: true },
    });
    const ok = await patch(oapi, 'jobs', job, { title: 'kept' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.custom_fields).toEqual({ [def.id]: 'P-1' });
  });
});

describe('jobs: schedule and assignments', () => {
  it('stores scheduled_start/end and refuses a scheduled_end before scheduled_start (also against the stored start)', async () => {
    expectProblem(
      await api.post('/jobs', { job: { site_id: place.site.id, scheduled_start: '2026-05-01T10:00:00Z', scheduled_end: '2026-05-01T09:59:59Z' } }),
      { status: 422, code: 'validation.failed', errors: { scheduled_end: true } },
    );
    const job = await createJob(api, { site_id: place.site.id, scheduled_start: '2026-05-01T10:00:00Z', scheduled_end: '2026-05-01T10:00:00Z' });
    expectProblem(await patch(api, 'jobs', job, { scheduled_end: '2026-05-01T08:00:00Z' }), { status: 422, code: 'validation.failed', errors: { scheduled_end: true } });
  });

  it('assigns users of the account, replaces assignments as a snapshot and refuses another tenant\'s user with 422', async () => {
    const tech = await userClient(t, tenant, 'technician');
    const job = await createJob(api, { site_id: place.site.id, assignments: [{ user_id: tenant.userId }, { user_id: tech.user.id }] });
    expect(job.record.assignments.map((a: any) => a.user_id).sort()).toEqual([tenant.userId, tech.user.id].sort());
    const up = await patch(api, 'jobs', job, { assignments: [{ user_id: tech.user.id }] });
    expect(up.status, up.text).toBe(200);
    expect(up.body.data.assignments.map((a: any) => a.user_id)).toEqual([tech.user.id]);

    const other = await t.tenant();
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, assignments: [{ user_id: other.userId }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'assignments.0.user_id': true },
    });
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, assignments: [{ user_id: 987654321 }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'assignments.0.user_id': true },
    });
  });
});

describe('jobs: lists', () => {
  it('serves each job in a list page exactly as GET /jobs/{id} does, lines and assignments included', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const tech = await userClient(t, own, 'technician');
    const item = await createItem(oapi, { unit_price: '12.3456' });
    const job = await createJob(oapi, {
      site_id: p.site.id,
      scheduled_start: '2026-08-01T08:00:00.123Z',
      assignments: [{ user_id: tech.user.id }, { user_id: own.userId }],
      lineitems: [{ item_id: item.id, quantity: '1.5' }, { description: 'Labor', quantity: '0.3333', unit_price: '0.1', discount: '12.5' }],
    });
    const listed = (await oapi.get('/jobs')).body.data.find((j: { id: string }) => j.id === job.id);
    expect(listed).toEqual((await readRecord(oapi, 'jobs', job.id)).record);
    expect(listed.lineitems).toHaveLength(2);
    expect(listed.assignments.map((a: { user_id: number }) => a.user_id)).toEqual([tech.user.id, own.userId]);
  });

  it('filters status by equality and [in]', async () => {
    const { api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const pending = await createJob(oapi, { site_id: p.site.id });
    const done = await createJob(oapi, { site_id: p.site.id });
    const cancelled = await createJob(oapi, { site_id: p.site.id });
    expect((await patch(oapi, 'jobs', done, { status: 'Completed' })).status).toBe(200);
    expect((await patch(oapi, 'jobs', cancelled, { status: 'Cancelled' })).status).toBe(200);
    expect(idsOf(await oapi.get('/jobs?status=Completed'))).toEqual([done.id]);
    expect(idsOf(await oapi.get('/jobs?status[in]=Pending,Cancelled&sort=created_at'))).toEqual([pending.id, cancelled.id]);
    expect(idsOf(await oapi.get('/jobs?status=Scheduled'))).toEqual([]);
    expectProblem(await oapi.get('/jobs?status[gt]=A'), { status: 400, code: 'filter.invalid' });
  });

  it('filters created_at, updated_at and scheduled_start ranges', async () => {
    const { api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const early = await createJob(oapi, { site_id: p.site.id, scheduled_start: '2026-06-01T08:00:00Z' });
    clock.advance(60_000);
    const mark = clock.now().toISOString();
    clock.advance(60_000);
    const late = await createJob(oapi, { site_id: p.site.id, scheduled_start: '2026-06-03T08:00:00Z' });
    const none = await createJob(oapi, { site_id: p.site.id });
    expect(idsOf(await oapi.get(`/jobs?created_at[lt]=${mark}`))).toEqual([early.id]);
    expect(idsOf(await oapi.get(`/jobs?created_at[gte]=${mark}&sort=created_at`))).toEqual([late.id, none.id]);
    clock.advance(60_000);
    const mark2 = clock.now().toISOString();
    clock.advance(60_000);
    expect((await patch(oapi, 'jobs', early, { title: 'touched' })).status).toBe(200);
    expect(idsOf(await oapi.get(`/jobs?updated_at[gt]=${mark2}`))).toEqual([early.id]);
    expect(idsOf(await oapi.get(`/jobs?updated_at[lte]=${mark2}&sort=created_at`))).toEqual([late.id, none.id]);
    expect(idsOf(await oapi.get('/jobs?scheduled_start[gte]=2026-06-02T00:00:00Z'))).toEqual([late.id]);
    expect(idsOf(await oapi.get('/jobs?scheduled_start[gte]=2026-05-31T00:00:00Z&scheduled_start[lt]=2026-06-02T00:00:00Z'))).toEqual([early.id]);
    expectProblem(await oapi.get('/jobs?scheduled_start[gte]=not-a-date'), { status: 400, code: 'filter.invalid' });
  });

  it('sorts by scheduled_start both ways, unscheduled jobs last ascending and first descending, paging across them', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const starts = ['2026-07-03T08:00:00Z', '2026-07-01T08:00:00Z', null, '2026-07-02T08:00:00Z', null, '2026-07-01T08:00:00Z', null];
    const jobs: { id: string; start: string | null }[] = [];
    for (const start of starts) {
      const job = await createJob(oapi, { site_id: p.site.id, ...(start ? { scheduled_start: start } : {}) });
      jobs.push({ id: job.id as string, start: start && new Date(start).toISOString() });
    }
    const byStart = (a: { id: string; start: string | null }, b: { id: string; start: string | null }) =>
      a.start === b.start ? (a.id < b.id ? -1 : 1) : a.start === null ? 1 : b.start === null ? -1 : a.start < b.start ? -1 : 1;
    const ascending = [...jobs].sort(byStart).map((j) => j.id);
    // Two rows a page, so pages end on a scheduled job, on the last scheduled one before the unscheduled, and on an
    // unscheduled job: every seek across the boundary is taken.
    for (const [sort, expected] of [['scheduled_start', ascending], ['-scheduled_start', [...ascending].reverse()]] as const) {
      const { records } = await followPages(own.token, `${t.url}/api/v2/jobs?sort=${sort}&limit=2`);
      expect(records.map((r: { id: string }) => r.id), sort).toEqual(expected);
    }
    const { records } = await followPages(own.token, `${t.url}/api/v2/jobs?sort=scheduled_start&limit=3&scheduled_start[gte]=2026-07-01T00:00:00Z`);
    expect(records.map((r: { id: string }) => r.id)).toEqual(ascending.slice(0, 4));
  });

  it('q matches number, job type, status, reference, labels, customer organization, site name and address, assignee name and system type', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const tok = () => unique('q').toLowerCase();
    const org = tok();
    const siteName = tok();
    const street = tok();
    const systemType = tok();
    const assignee = tok();
    const label = tok();
    const p = await createPlace(oapi, { organization: `Org ${org}` }, { site_name: `Site ${siteName}`, street: `${street} Road` });
    const plain = await createPlace(oapi);
    const system = await createSystem(oapi, p.site.id, { system_type: systemType });
    const tech = await userClient(t, own, 'technician', `Tech ${assignee}`);
    await t.app.domain.admin.addLookup('label', { accountId: own.accountId, relatedName: 'Job', name: label });
    const jobType = tok();
    const reference = tok();
    const number = tok();
    const rich = await createJob(oapi, { site_id: p.site.id, system_id: system.id, job_type: jobType, reference, number, labels: [label], assignments: [{ user_id: tech.user.id }] });
    const other = await createJob(oapi, { site_id: plain.site.id });
    for (const term of [number, jobType, reference, label, org, siteName, street, assignee, systemType]) {
      expect(idsOf(await oapi.get(`/jobs?q=${encodeURIComponent(term)}`)), term).toEqual([rich.id]);
    }
    expect(idsOf(await oapi.get(`/jobs?q=${encodeURIComponent(org.toUpperCase())}`))).toEqual([rich.id]);
    const moved = await patch(oapi, 'jobs', other, { status: 'Cancelled' });
    expect(moved.status).toBe(200);
    expect(idsOf(await oapi.get('/jobs?q=cancelled'))).toEqual([other.id]);
    expect(idsOf(await oapi.get(`/jobs?q=${tok()}`))).toEqual([]);
  });

  it('does not serve another tenant\'s job', async () => {
    const job = await createJob(api, { site_id: place.site.id });
    const { api: oapi } = await t.newTenant();
    expectProblem(await oapi.get(`/jobs/${job.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await oapi.get('/jobs'))).toEqual([]);
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, customer_id: randomUUID() } }), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
  });

  it('line items: create makes lines and amount sums them', async () => {
    const item = await createItem(api, { unit_price: '5' });
    const job = await createJob(api, { site_id: place.site.id, lineitems: [{ item_id: item.id, quantity: '3' }, { description: 'Labor', quantity: '1', unit_price: '80' }] });
    expect(job.record.lineitems).toHaveLength(2);
    expect(job.record.amount).toBe('95.00');
  });
});

describe('jobs: search text follows related records', () => {
  it("q finds a job by its customer's, site's, system's and assignee's new text after a rename, not by the old, without moving the job's ETag", async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const tok = () => unique('r').toLowerCase();
    const [org, siteName, street, city, systemType, assignee] = [tok(), tok(), tok(), tok(), tok(), tok()];
    const p = await createPlace(oapi, { organization: `Org ${org}` }, { site_name: `Site ${siteName}`, street: `${street} Road`, city: `City ${city}` });
    const system = await createSystem(oapi, p.site.id, { system_type: systemType });
    const tech = await userClient(t, own, 'technician', `Tech ${assignee}`);
    const job = await createJob(oapi, { site_id: p.site.id, system_id: system.id, assignments: [{ user_id: tech.user.id }] });
    const other = await createJob(oapi, { site_id: (await createPlace(oapi)).site.id });
    const search = async (term: string) => idsOf(await oapi.get(`/jobs?q=${encodeURIComponent(term)}`));
    for (const term of [org, siteName, street, city, systemType, assignee]) expect(await search(term), term).toEqual([job.id]);

    const [org2, siteName2, street2, city2, systemType2, assignee2] = [tok(), tok(), tok(), tok(), tok(), tok()];
    await updateRecord(oapi, 'customers', 'customer', p.customer, { organization: `Org ${org2}` });
    await updateRecord(oapi, 'sites', 'site', p.site, { site_name: `Site ${siteName2}`, street: `${street2} Road`, city: `City ${city2}` });
    await updateRecord(oapi, 'systems', 'system', system, { system_type: systemType2 });
    // Users have no rename command yet (API or CLI): the row is renamed as an administration command would.
    await t.app.domain.prisma.user.update({ where: { id: BigInt(tech.user.id) }, data: { name: `Tech ${assignee2}` } });

    for (const term of [org2, siteName2, street2, city2, systemType2, assignee2]) expect(await search(term), term).toEqual([job.id]);
    for (const term of [org, siteName, street, city, systemType, assignee]) expect(await search(term), term).toEqual([]);
    // search_text is not part of the record: the job's ETag and updated_at did not move.
    const after = await readRecord(oapi, 'jobs', job.id);
    expect(after.etag).toBe(job.etag);
    expect(after.record.updated_at).toBe(job.record.updated_at);
    expect((await readRecord(oapi, 'jobs', other.id)).etag).toBe(other.etag);
  });

  it("q finds every job created or moved while its customer is being renamed by the new name, not the old (a race on PostgreSQL)", async () => {
    const { api: oapi } = await t.newTenant();
    for (let round = 0; round < 5; round += 1) {
      const before = unique('old').toLowerCase();
      const after = unique('new').toLowerCase();
      const p = await createPlace(oapi, { organization: `Org ${before}` });
      const elsewhere = await createJob(oapi, { site_id: (await createPlace(oapi)).site.id });
      const [renamed, ...writes] = await Promise.all([
        oapi.patch(`/customers/${p.customer.id}`, { customer: { organization: `Org ${after}` } }, { headers: { 'if-match': p.customer.etag } }),
        ...[0, 1, 2].map(() => oapi.post('/jobs', { job: { site_id: p.site.id } })),
        patch(oapi, 'jobs', elsewhere, { site_id: p.site.id, customer_id: p.customer.id }),
      ]);
      expect(renamed.status, renamed.text).toBe(200);
      const ids = writes.map((w) => {
        expect([200, 201], w.text).toContain(w.status);
        return w.body.data.id as string;
      });
      expect((await oapi.get(`/jobs?q=${after}&limit=100`)).body.data.map((j: { id: string }) => j.id).sort()).toEqual([...ids].sort());
      expect(idsOf(await oapi.get(`/jobs?q=${before}`))).toEqual([]);
    }
  });

  it('q follows assignment changes: the removed assignee no longer finds the job, the added one does', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const [first, second] = [unique('a').toLowerCase(), unique('a').toLowerCase()];
    const a = await userClient(t, own, 'technician', `Tech ${first}`);
    const b = await userClient(t, own, 'technician', `Tech ${second}`);
    const p = await createPlace(oapi);
    const job = await createJob(oapi, { site_id: p.site.id, assignments: [{ user_id: a.user.id }] });
    expect(idsOf(await oapi.get(`/jobs?q=${first}`))).toEqual([job.id]);
    const res = await patch(oapi, 'jobs', job, { assignments: [{ user_id: b.user.id }] });
    expect(res.status, res.text).toBe(200);
    expect(idsOf(await oapi.get(`/jobs?q=${first}`))).toEqual([]);
    expect(idsOf(await oapi.get(`/jobs?q=${second}`))).toEqual([job.id]);
  });
});

describe('jobs: tenancy of site and system', () => {
  it("refuses another tenant's site_id and system_id with 422 naming the field, on create and on update", async () => {
    const { api: oapi } = await t.newTenant();
    const theirs = await createPlace(oapi);
    const theirSystem = await createSystem(oapi, theirs.site.id);
    const mine = await createSystem(api, place.site.id);
    expectProblem(await api.post('/jobs', { job: { site_id: theirs.site.id } }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, system_id: theirSystem.id } }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
    expectProblem(await api.post('/jobs', { job: { system_id: theirSystem.id } }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
    const job = await createJob(api, { site_id: place.site.id, system_id: mine.id });
    expectProblem(await patch(api, 'jobs', job, { site_id: theirs.site.id }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
    expectProblem(await patch(api, 'jobs', job, { system_id: theirSystem.id }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
    expect((await readRecord(api, 'jobs', job.id)).record).toMatchObject({ site_id: place.site.id, system_id: mine.id });
    expect(idsOf(await oapi.get('/jobs'))).toEqual([]);
  });
});

describe('jobs: assignments are unique and active', () => {
  it('refuses the same user twice with 422 naming the second entry, and stores one row per user', async () => {
    const tech = await userClient(t, tenant, 'technician');
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, assignments: [{ user_id: tech.user.id }, { user_id: tenant.userId }, { user_id: tech.user.id }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'assignments.2.user_id': ['is given more than once'] },
      onlyErrors: true,
    });
    const job = await createJob(api, { site_id: place.site.id, assignments: [{ user_id: tech.user.id }] });
    const [kept] = job.record.assignments;
    expectProblem(await patch(api, 'jobs', job, { assignments: [{ id: kept.id }, { user_id: tech.user.id }] }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'assignments.1.user_id': true },
      onlyErrors: true,
    });
    expect((await readRecord(api, 'jobs', job.id)).record.assignments).toEqual(job.record.assignments);
  });

  it('refuses to assign an inactive user (422 naming the entry); a user deactivated after being assigned stays until removed', async () => {
    const tech = await userClient(t, tenant, 'technician');
    const other = await userClient(t, tenant, 'technician');
    const inactive = await userClient(t, tenant, 'technician');
    await t.app.domain.admin.updateUser(inactive.user.id, { active: false });
    expectProblem(await api.post('/jobs', { job: { site_id: place.site.id, assignments: [{ user_id: inactive.user.id }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'assignments.0.user_id': ['is an inactive user'] },
      onlyErrors: true,
    });
    const job = await createJob(api, { site_id: place.site.id, assignments: [{ user_id: tech.user.id }, { user_id: other.user.id }] });
    await t.app.domain.admin.updateUser(tech.user.id, { active: false });
    // The snapshot may keep the deactivated user, by id or by user_id.
    const byId = await patch(api, 'jobs', job, { assignments: [{ id: job.record.assignments[0].id }], title: 'one left' });
    expect(byId.status, byId.text).toBe(200);
    const byUser = await patch(api, 'jobs', { id: job.id, etag: byId.headers.get('etag')! }, { assignments: [{ user_id: tech.user.id }, { user_id: tenant.userId }] });
    expect(byUser.status, byUser.text).toBe(200);
    expect(byUser.body.data.assignments.map((a: any) => a.user_id)).toEqual([tech.user.id, tenant.userId]);
    // Once removed, the deactivated user cannot come back.
    const removed = await patch(api, 'jobs', { id: job.id, etag: byUser.headers.get('etag')! }, { assignments: [{ user_id: tenant.userId }] });
    expect(removed.status, removed.text).toBe(200);
    expectProblem(await patch(api, 'jobs', { id: job.id, etag: removed.headers.get('etag')! }, { assignments: [{ user_id: tenant.userId }, { user_id: tech.user.id }] }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'assignments.1.user_id': ['is an inactive user'] },
      onlyErrors: true,
    });
  });

  it('lets a new entry take the user that a kept entry (with id) gives up in the same snapshot, whatever their order', async () => {
    const tech = await userClient(t, tenant, 'technician');
    const job = await createJob(api, { site_id: place.site.id, assignments: [{ user_id: tenant.userId }] });
    const [kept] = job.record.assignments;
    const moved = await patch(api, 'jobs', job, { assignments: [{ user_id: tenant.userId }, { id: kept.id, user_id: tech.user.id }] });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.assignments.map((x: any) => x.user_id)).toEqual([tenant.userId, tech.user.id]);
    expect(moved.body.data.assignments[1].id).toBe(kept.id);
  });

  it('answers 422 naming assignments (not 500) when entries with id exchange their users', async () => {
    const tech = await userClient(t, tenant, 'technician');
    const job = await createJob(api, { site_id: place.site.id, assignments: [{ user_id: tenant.userId }, { user_id: tech.user.id }] });
    const [a, b] = job.record.assignments;
    expectProblem(await patch(api, 'jobs', job, { assignments: [{ id: a.id, user_id: tech.user.id }, { id: b.id, user_id: tenant.userId }] }), {
      status: 422,
      code: 'validation.failed',
      errors: { assignments: true },
      onlyErrors: true,
    });
    const swapped = await patch(api, 'jobs', job, { assignments: [{ user_id: tech.user.id }, { user_id: tenant.userId }] });
    expect(swapped.status, swapped.text).toBe(200);
    expect(swapped.body.data.assignments.map((x: any) => x.user_id)).toEqual([tech.user.id, tenant.userId]);
  });
});

describe('jobs: required custom fields on every update', () => {
  it('refuses an update of another field with 422 naming custom_fields.<id> when a definition became required since the job was written; giving the value succeeds', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const job = await createJob(oapi, { site_id: p.site.id });
    const def = await t.app.domain.admin.addCustomField({ accountId: own.accountId, relatedName: 'Job', name: 'Permit', type: 'text', required: true });
    expectProblem(await patch(oapi, 'jobs', job, { title: 'retitled' }), {
      status: 422,
      code: 'validation.failed',
      errors: { [`custom_fields.${def.id}`]: ['is required (Permit)'] },
      onlyErrors: true,
    });
    expect((await readRecord(oapi, 'jobs', job.id)).record.title).toBeNull();
    const ok = await patch(oapi, 'jobs', job, { title: 'retitled', custom_fields: { [def.id]: 'P-9' } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data).toMatchObject({ title: 'retitled', custom_fields: { [def.id]: 'P-9' } });
  });
});

describe('jobs: a deleted customer or site', () => {
  it('leaves its jobs readable and editable with their customer_id and site_id, while new references to it are refused', async () => {
    const { api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const job = await createJob(oapi, { site_id: p.site.id });
    const site = await readRecord(oapi, 'sites', p.site.id);
    expect((await oapi.delete(`/sites/${p.site.id}`, { headers: { 'if-match': site.etag } })).status).toBe(204);
    const customer = await readRecord(oapi, 'customers', p.customer.id);
    expect((await oapi.delete(`/customers/${p.customer.id}`, { headers: { 'if-match': customer.etag } })).status).toBe(204);

    const kept = await readRecord(oapi, 'jobs', job.id);
    expect(kept.record).toMatchObject({ customer_id: p.customer.id, site_id: p.site.id });
    const edited = await patch(oapi, 'jobs', kept, { title: 'Still on the books' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data).toMatchObject({ title: 'Still on the books', customer_id: p.customer.id, site_id: p.site.id });

    expectProblem(await oapi.post('/jobs', { job: { site_id: p.site.id } }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
  });
});
