import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { createPlace, createSite } from '../helpers/factories/sites.ts';
import { expectProblem } from '../helpers/problem.ts';

// Projects over REST: several jobs and estimates under one engagement of a customer: numbered, a name, the
// customer (required) and a site of that customer, dates (the end not before the start), a budget, statuses
// (Planned, Active, On Hold, Completed), labels and custom fields, soft delete, and the team (user_ids, a list
// of active users written as a snapshot that changes the ETag); jobs and estimates name a project of their customer.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

const createProject = (customerId: string, fields: Record<string, unknown> = {}) => createRecord(api, 'projects', 'project', { name: unique('Project '), customer_id: customerId, ...fields });

describe('projects: the five endpoints', () => {
  it('creates a numbered project with every field and its team, status Planned, and answers 201 with Location, ETag and {data}', async () => {
    const { customer, site } = await createPlace(api);
    const lead = await userClient(t, tenant, 'technician');
    const fields = {
      name: 'Office refit',
      customer_id: customer.id,
      site_id: site.id,
      description: 'Three floors',
      start_date: '2026-03-01',
      end_date: '2026-06-30',
      budget_amount: '125000.50',
      user_ids: [lead.user.id, tenant.userId],
    };
    const res = await api.post('/projects', { project: fields });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, status: 'Planned', labels: [], custom_fields: {} });
    expect(data.number).toMatch(/^\d+$/);
    expect(res.headers.get('location')).toBe(`/api/v2/projects/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    expect((await api.get(`/projects/${data.id}`)).body).toEqual({ data });
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['project.created']);
  });

  it('requires a name and a live customer of the account; refuses a site of another customer and an end before the start', async () => {
    const { customer } = await createPlace(api);
    const other = await createPlace(api);
    expectProblem(await api.post('/projects', { project: { description: 'x' } }), { status: 422, code: 'validation.failed', errors: { name: true, customer_id: true }, onlyErrors: true });
    expectProblem(await api.post('/projects', { project: { name: 'P', customer_id: customer.id, site_id: other.site.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: ['does not belong to customer_id'] },
      onlyErrors: true,
    });
    expectProblem(await api.post('/projects', { project: { name: 'P', customer_id: customer.id, start_date: '2026-05-02', end_date: '2026-05-01' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { end_date: ['must not be before start_date'] },
      onlyErrors: true,
    });
    const theirs = await t.newTenant();
    const foreign = await createPlace(theirs.api);
    expectProblem(await api.post('/projects', { project: { name: 'P', customer_id: foreign.customer.id } }), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    const project = await createProject(customer.id, { start_date: '2026-05-01' });
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { end_date: '2026-04-30' } }, ifMatch(project.etag)), { status: 422, code: 'validation.failed', errors: { end_date: true } });
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { customer_id: other.customer.id, site_id: (await createSite(api, { type: 'Customer', id: customer.id })).id } }, ifMatch(project.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: true },
    });
  });

  it('moves the status (project.status_changed), refuses an unknown status and a changed number, and soft-deletes', async () => {
    const { customer } = await createPlace(api);
    const project = await createProject(customer.id);
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { status: 'Abandoned' } }, ifMatch(project.etag)), { status: 422, code: 'status.transition_invalid' });
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { number: 'P-999' } }, ifMatch(project.etag)), { status: 422, code: 'number.immutable' });
    const held = await updateRecord(api, 'projects', 'project', project, { status: 'On Hold' });
    expect(held.record.status).toBe('On Hold');
    expect((await eventsOf(project.id)).map((e) => e.topic)).toEqual(['project.created', 'project.updated', 'project.status_changed']);
    await deleteRecord(api, 'projects', project.id);
    expectProblem(await api.get(`/projects/${project.id}`), { status: 404, code: 'resource.not_found' });
  });
});

describe('the team (user_ids)', () => {
  it('is a snapshot: supplying it changes the ETag even when the list is the same; users must be active users of the account, each once', async () => {
    const { customer } = await createPlace(api);
    const a = await userClient(t, tenant, 'technician');
    const b = await userClient(t, tenant, 'technician');
    const project = await createProject(customer.id, { user_ids: [a.user.id] });
    const same = await updateRecord(api, 'projects', 'project', project, { user_ids: [a.user.id] });
    expect(same.record.user_ids).toEqual([a.user.id]);
    expect(same.etag).not.toBe(project.etag);
    const swapped = await updateRecord(api, 'projects', 'project', same, { user_ids: [b.user.id, a.user.id] });
    expect(swapped.record.user_ids).toEqual([b.user.id, a.user.id]);
    const inactive = await userClient(t, tenant, 'technician');
    await t.app.domain.admin.updateUser(inactive.user.id, { active: false });
    const theirs = await t.newTenant();
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { user_ids: [a.user.id, inactive.user.id, theirs.tenant.userId] } }, ifMatch(swapped.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { 'user_ids.1': ['is an inactive user'], 'user_ids.2': ['does not match any user of this account'] },
      onlyErrors: true,
    });
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { user_ids: [a.user.id, a.user.id] } }, ifMatch(swapped.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { 'user_ids.1': ['is given more than once'] },
      onlyErrors: true,
    });
    // A member deactivated since joining stays on the team until removed.
    await t.app.domain.admin.updateUser(b.user.id, { active: false });
    const kept = await updateRecord(api, 'projects', 'project', swapped, { user_ids: [b.user.id] });
    expect(kept.record.user_ids).toEqual([b.user.id]);
    expectProblem(await api.patch(`/projects/${project.id}`, { project: { user_ids: ['seven'] } }, ifMatch(kept.etag)), { status: 422, code: 'validation.failed', errors: { 'user_ids.0': true } });
  });
});

describe('jobs and estimates of a project', () => {
  it('name a live project of their customer (the customer defaults to the project\'s), filter by project_id, and a converted estimate passes its project to the job', async () => {
    const { customer, site } = await createPlace(api);
    const other = await createPlace(api);
    const project = await createProject(customer.id);
    const job = await createRecord(api, 'jobs', 'job', { site_id: site.id, project_id: project.id });
    expect(job.record).toMatchObject({ project_id: project.id, customer_id: customer.id });
    expectProblem(await api.post('/jobs', { job: { site_id: other.site.id, project_id: project.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { project_id: ['is a project of another customer than customer_id'] },
      onlyErrors: true,
    });
    expectProblem(await api.patch(`/jobs/${job.id}`, { job: { customer_id: other.customer.id, site_id: other.site.id } }, ifMatch(job.etag)), { status: 422, code: 'validation.failed', errors: { project_id: true } });
    const estimate = await createRecord(api, 'estimates', 'estimate', { site_id: site.id, project_id: project.id, lineitems: [{ description: 'Survey', quantity: '1', unit_price: '100' }] });
    expect(estimate.record.project_id).toBe(project.id);
    expectProblem(await api.post('/estimates', { estimate: { site_id: other.site.id, project_id: project.id } }), { status: 422, code: 'validation.failed', errors: { project_id: true } });
    expect(idsOf(await api.get(`/jobs?project_id=${project.id}`))).toEqual([job.id]);
    expect(idsOf(await api.get(`/estimates?project_id=${project.id}`))).toEqual([estimate.id]);
    const accepted = await updateRecord(api, 'estimates', 'estimate', estimate, { status: 'Accepted' });
    const converted = await api.post(`/estimates/${accepted.id}/convert`);
    expect(converted.status, converted.text).toBe(201);
    expect(converted.body.data.job.project_id).toBe(project.id);
    await deleteRecord(api, 'projects', project.id);
    expectProblem(await api.post('/jobs', { job: { site_id: site.id, project_id: project.id } }), { status: 422, code: 'validation.failed', errors: { project_id: ['does not match any Project'] } });
  });
});

describe('projects: the list', () => {
  it('filters by customer, status, number and date ranges, sorts by start date, q over name, number, status and description', async () => {
    const own = await t.newTenant();
    const north = await createPlace(own.api);
    const south = await createPlace(own.api);
    const make = (fields: Record<string, unknown>) => createRecord(own.api, 'projects', 'project', fields);
    const refit = await make({ name: 'Refit', customer_id: north.customer.id, start_date: '2026-02-01', description: 'Lobby and atrium' });
    const roof = await make({ name: 'Roof', customer_id: north.customer.id, start_date: '2026-01-01', end_date: '2026-01-31' });
    const created = await make({ name: 'Boilers', customer_id: south.customer.id });
    const boilers = await updateRecord(own.api, 'projects', 'project', created, { status: 'Active' });
    expect(idsOf(await own.api.get('/projects'))).toEqual([boilers.id, roof.id, refit.id]);
    expect(idsOf(await own.api.get(`/projects?customer_id=${north.customer.id}`))).toEqual([roof.id, refit.id]);
    expect(idsOf(await own.api.get('/projects?status=Active'))).toEqual([boilers.id]);
    expect(idsOf(await own.api.get(`/projects?number=${roof.record.number}`))).toEqual([roof.id]);
    expect(idsOf(await own.api.get('/projects?start_date[gte]=2026-01-15'))).toEqual([refit.id]);
    expect(idsOf(await own.api.get('/projects?end_date[lte]=2026-12-31'))).toEqual([roof.id]);
    expect(idsOf(await own.api.get('/projects?sort=start_date'))).toEqual([roof.id, refit.id, boilers.id]);
    expect(idsOf(await own.api.get('/projects?q=atrium'))).toEqual([refit.id]);
    expectProblem(await own.api.get('/projects?sort=budget_amount'), { status: 400, code: 'sort.invalid' });
  });
});
