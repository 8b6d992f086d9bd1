import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { siteFields } from '../helpers/factories/sites.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Tasks over REST: a to-do with a title, due date, priority (low, normal, high, urgent; sorted by rank), an
// assignee who is an active user, status Open or Done with completed_at following it, and an optional parent
// record (taskable_type / taskable_id: both or neither, a live record of that type in the tenant); number, labels,
// custom fields, soft delete; the list's filters (assignee, status, due date range, the parent), sorts and q.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

const createTask = (fields: Record<string, unknown> = {}) => createRecord(api, 'tasks', 'task', { title: unique('Task '), ...fields });

describe('tasks: the five endpoints', () => {
  it('creates a task with every field, number, status Open, and answers 201 with Location, ETag and {data}', async () => {
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Task', name: 'Phone' });
    const channel = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Task', name: 'Channel', type: 'text' })).id;
    const customer = await createCustomer(api);
    const fields = {
      title: 'Call about the renewal',
      description: 'Ask for the service history.',
      due_date: '2026-12-15',
      priority: 'high',
      assignee_id: tenant.userId,
      taskable_type: 'Customer',
      taskable_id: customer.id,
      labels: ['Phone'],
      custom_fields: { [channel]: 'Phone' },
    };
    const res = await api.post('/tasks', { task: fields });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, status: 'Open', completed_at: null });
    expect(data.number).toEqual(expect.any(String));
    expect(data.id).toMatch(uuidV7);
    expect(res.headers.get('location')).toBe(`/api/v2/tasks/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/tasks/${data.id}`);
    expect(read.body).toEqual({ data });
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['task.created']);
  });

  it('creates from a title alone (priority normal, no parent) and requires the title', async () => {
    const task = await createTask();
    expect(task.record).toMatchObject({ priority: 'normal', taskable_type: null, taskable_id: null, assignee_id: null, due_date: null, status: 'Open', completed_at: null });
    expectProblem(await api.post('/tasks', { task: { description: 'x' } }), { status: 422, code: 'validation.failed', errors: { title: true }, onlyErrors: true });
    expectProblem(await api.post('/tasks', { task: { title: ' ' } }), { status: 422, code: 'validation.failed', errors: { title: true }, onlyErrors: true });
    expectProblem(await api.post('/tasks', { task: { title: 'x', priority: 'asap', due_date: 'soon' } }), { status: 422, code: 'validation.failed', errors: { priority: true, due_date: true }, onlyErrors: true });
    expectProblem(await api.post('/tasks', { task: { title: 'x', status: 'Done' } }), { status: 422, code: 'validation.failed', errors: { status: true } });
  });

  it('takes a parent of each taskable type, given as a pair, that is a live record of the tenant', async () => {
    const customer = await createCustomer(api);
    const lead = await createLead(api);
    const site = await createRecord(api, 'sites', 'site', siteFields({ type: 'Customer', id: customer.id }));
    const deal = await createRecord(api, 'deals', 'deal', { name: 'D', customer_id: customer.id });
    const project = await createRecord(api, 'projects', 'project', { name: 'P', customer_id: customer.id });
    const ticket = await createRecord(api, 'tickets', 'ticket', { subject: 'No heat', customer_id: customer.id });
    for (const [type, id] of [['Customer', customer.id], ['Lead', lead.id], ['Site', site.id], ['Deal', deal.id], ['Project', project.id], ['Ticket', ticket.id]]) {
      expect((await createTask({ taskable_type: type, taskable_id: id })).record).toMatchObject({ taskable_type: type, taskable_id: id });
    }
    expectProblem(await api.post('/tasks', { task: { title: 'x', taskable_type: 'Customer' } }), { status: 422, code: 'validation.failed', errors: { taskable_id: true }, onlyErrors: true });
    expectProblem(await api.post('/tasks', { task: { title: 'x', taskable_id: customer.id } }), { status: 422, code: 'validation.failed', errors: { taskable_type: true }, onlyErrors: true });
    expectProblem(await api.post('/tasks', { task: { title: 'x', taskable_type: 'Vendor', taskable_id: customer.id } }), { status: 422, code: 'validation.failed', errors: { taskable_type: true } });
    // The id of a record of another type, of another tenant, or deleted, is no parent.
    expectProblem(await api.post('/tasks', { task: { title: 'x', taskable_type: 'Lead', taskable_id: customer.id } }), { status: 422, code: 'validation.failed', errors: { taskable_id: ['does not match any Lead'] } });
    const theirs = await t.newTenant();
    const foreign = await createCustomer(theirs.api);
    expectProblem(await api.post('/tasks', { task: { title: 'x', taskable_type: 'Customer', taskable_id: foreign.id } }), { status: 422, code: 'validation.failed', errors: { taskable_id: ['does not match any Customer'] } });
    const gone = await createCustomer(api);
    await deleteRecord(api, 'customers', gone.id);
    expectProblem(await api.post('/tasks', { task: { title: 'x', taskable_type: 'Customer', taskable_id: gone.id } }), { status: 422, code: 'validation.failed', errors: { taskable_id: true } });
  });

  it('moves to another parent or to none on update, keeping the pair whole', async () => {
    const customer = await createCustomer(api);
    const other = await createCustomer(api);
    const lead = await createLead(api);
    const task = await createTask({ taskable_type: 'Customer', taskable_id: customer.id });
    const moved = await updateRecord(api, 'tasks', 'task', task, { taskable_id: other.id });
    expect(moved.record).toMatchObject({ taskable_type: 'Customer', taskable_id: other.id });
    expectProblem(await api.patch(`/tasks/${task.id}`, { task: { taskable_type: 'Lead' } }, ifMatch(moved.etag)), { status: 422, code: 'validation.failed', errors: { taskable_id: ['does not match any Lead'] } });
    expectProblem(await api.patch(`/tasks/${task.id}`, { task: { taskable_id: null } }, ifMatch(moved.etag)), { status: 422, code: 'validation.failed', errors: { taskable_id: true }, onlyErrors: true });
    const toLead = await updateRecord(api, 'tasks', 'task', moved, { taskable_type: 'Lead', taskable_id: lead.id });
    expect(toLead.record).toMatchObject({ taskable_type: 'Lead', taskable_id: lead.id });
    const none = await updateRecord(api, 'tasks', 'task', toLead, { taskable_type: null, taskable_id: null });
    expect(none.record).toMatchObject({ taskable_type: null, taskable_id: null });
  });

  it('takes an assignee who is an active user of the account', async () => {
    const { user } = await userClient(t, tenant, 'technician');
    const task = await createTask({ assignee_id: user.id });
    await t.app.domain.admin.updateUser(user.id, { active: false });
    expectProblem(await api.post('/tasks', { task: { title: 'x', assignee_id: user.id } }), { status: 422, code: 'validation.failed', errors: { assignee_id: ['is an inactive user'] } });
    const kept = await updateRecord(api, 'tasks', 'task', task, { title: 'Still assigned' });
    expect(kept.record.assignee_id).toBe(user.id);
    const theirs = await t.newTenant();
    expectProblem(await api.patch(`/tasks/${task.id}`, { task: { assignee_id: theirs.tenant.userId } }, ifMatch(kept.etag)), { status: 422, code: 'validation.failed', errors: { assignee_id: true } });
  });

  it('sets completed_at when the task moves to Done (task.status_changed) and clears it when it leaves Done', async () => {
    const task = await createTask();
    const done = await updateRecord(api, 'tasks', 'task', task, { status: 'Done' });
    expect(done.record.completed_at).toEqual(expect.any(String));
    expect(Date.parse(done.record.completed_at)).toBeGreaterThanOrEqual(Date.parse(task.record.created_at));
    const again = await updateRecord(api, 'tasks', 'task', done, { status: 'Done', title: 'Re-sent' });
    expect(again.record.completed_at).toBe(done.record.completed_at);
    const reopened = await updateRecord(api, 'tasks', 'task', again, { status: 'Open' });
    expect(reopened.record.completed_at).toBeNull();
    expect((await eventsOf(task.id)).map((e) => e.topic)).toEqual(['task.created', 'task.updated', 'task.status_changed', 'task.updated', 'task.updated', 'task.status_changed']);
    expectProblem(await api.patch(`/tasks/${task.id}`, { task: { completed_at: '2026-01-01T00:00:00Z' } }, ifMatch(reopened.etag)), { status: 422, code: 'validation.failed', errors: { completed_at: true } });
    expectProblem(await api.patch(`/tasks/${task.id}`, { task: { status: 'Finished' } }, ifMatch(reopened.etag)), { status: 422, code: 'status.transition_invalid' });
  });

  it('soft-deletes a task: 204, then 404 and gone from the list', async () => {
    const task = await createTask();
    await deleteRecord(api, 'tasks', task.id);
    expectProblem(await api.get(`/tasks/${task.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get('/tasks?limit=100'))).not.toContain(task.id);
    expect((await eventsOf(task.id)).map((e) => e.topic)).toEqual(['task.created', 'task.deleted']);
  });
});

describe('tasks: the list', () => {
  it('filters by assignee, status, priority, due date range and the parent, sorts by priority rank and due date, and searches title, number, status and priority', async () => {
    const own = await t.newTenant();
    const customer = await createCustomer(own.api);
    const make = (fields: Record<string, unknown>) => createRecord(own.api, 'tasks', 'task', fields);
    const urgent = await make({ title: 'Fix the leak', priority: 'urgent', due_date: '2026-05-02', assignee_id: own.tenant.userId });
    const low = await make({ title: 'Tidy the van', priority: 'low', due_date: '2026-05-20' });
    const normal = await make({ title: 'Send the quote', taskable_type: 'Customer', taskable_id: customer.id });
    await updateRecord(own.api, 'tasks', 'task', low, { status: 'Done' });

    expect(idsOf(await own.api.get('/tasks'))).toEqual([normal.id, low.id, urgent.id]);
    expect(idsOf(await own.api.get('/tasks?sort=priority'))).toEqual([low.id, normal.id, urgent.id]);
    expect(idsOf(await own.api.get('/tasks?sort=-priority'))).toEqual([urgent.id, normal.id, low.id]);
    expect(idsOf(await own.api.get('/tasks?sort=due_date'))).toEqual([urgent.id, low.id, normal.id]);
    expect(idsOf(await own.api.get(`/tasks?assignee_id=${own.tenant.userId}`))).toEqual([urgent.id]);
    expect(idsOf(await own.api.get('/tasks?status=Done'))).toEqual([low.id]);
    expect(idsOf(await own.api.get('/tasks?priority[in]=urgent,low&sort=created_at'))).toEqual([urgent.id, low.id]);
    expect(idsOf(await own.api.get('/tasks?due_date[gte]=2026-05-01&due_date[lt]=2026-05-10'))).toEqual([urgent.id]);
    expect(idsOf(await own.api.get(`/tasks?taskable_type=Customer&taskable_id=${customer.id}`))).toEqual([normal.id]);
    expect(idsOf(await own.api.get('/tasks?q=leak'))).toEqual([urgent.id]);
    expectProblem(await own.api.get('/tasks?sort=description'), { status: 400, code: 'sort.invalid' });
    expectProblem(await own.api.get('/tasks?due_date[gte]=soon'), { status: 400, code: 'filter.invalid' });
    // A type that is not taskable, or a priority not in the vocabulary, is refused, as GraphQL's enums refuse it.
    expectProblem(await own.api.get('/tasks?taskable_type=Vendor'), { status: 400, code: 'filter.invalid', detail: /taskable_type: "Vendor" is not one of Customer/ });
    expectProblem(await own.api.get('/tasks?priority[in]=low,someday'), { status: 400, code: 'filter.invalid', detail: /"someday" is not one of low, normal, high, urgent/ });
  });
});
