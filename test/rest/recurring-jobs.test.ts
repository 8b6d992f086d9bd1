import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTestApp, type TenantClients } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { deleteRecord, readRecord, updateRecord } from '../helpers/factories/records.ts';
import { createdBy, createdDates, createRecurringJob, occurrences, sweep } from '../helpers/factories/recurring.ts';
import { expectProblem } from '../helpers/problem.ts';

// Recurring jobs over REST: a job template and its schedule; the scheduler creates each occurrence's job once,
// inside the horizon, at the local start time in the account's time zone (America/New_York here: clocks go
// forward on 2027-03-14 and back on 2027-11-07). The app's clock is pinned, so time moves only when a test says.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });

let tenant: TenantClients;
let place: Place;
const at = (day: string) => clock.pin(`${day}T12:00:00Z`);

beforeAll(async () => {
  at('2027-03-01');
  tenant = await t.newTenant();
  await t.app.domain.admin.updateAccount(tenant.tenant.accountId, { timeZone: 'America/New_York' });
  place = await createPlace(tenant.api);
});

const weekly = (fields: Record<string, unknown> = {}) => ({ customer_id: place.customer.id, site_id: place.site.id, title: 'Boiler service', rule: 'FREQ=WEEKLY;BYDAY=MO', start_date: '2027-03-01', start_time: '09:00', ...fields });

describe('creating a recurring job', () => {
  it('creates the jobs inside the horizon before answering, each linked to the template and its occurrence', async () => {
    at('2027-03-01');
    await t.app.domain.admin.addLookup('label', { accountId: tenant.tenant.accountId, relatedName: 'Job', name: 'Maintenance' });
    const { user } = await userClient(t, tenant.tenant, 'technician');
    const template = await createRecurringJob(tenant.api, weekly({ labels: ['Maintenance'], assignments: [{ user_id: user.id }], lineitems: [{ description: 'Annual service', quantity: '1', unit_price: '120' }] }));
    expect(template.record).toMatchObject({ status: 'active', rule: 'FREQ=WEEKLY;BYDAY=MO', horizon_days: 30, duration_minutes: 60, amount: '120.00', labels: ['Maintenance'] });
    expect(template.record.number).toMatch(/^\S+$/);
    const jobs = await createdBy(tenant.api, 'jobs', template.id);
    expect(jobs.map((job) => job.occurrence_date)).toEqual(['2027-03-01', '2027-03-08', '2027-03-15', '2027-03-22', '2027-03-29']);
    for (const job of jobs) {
      expect(job).toMatchObject({ recurring_job_id: template.id, customer_id: place.customer.id, site_id: place.site.id, title: 'Boiler service', labels: ['Maintenance'], amount: '120.00', status: 'Pending' });
      expect(job.due_date).toBe(job.occurrence_date);
      expect(job.assignments.map((a: { user_id: number }) => a.user_id)).toEqual([user.id]);
      expect(job.lineitems).toMatchObject([{ description: 'Annual service', quantity: '1.0000', unit_price: '120.0000' }]);
    }
  });

  it('keeps a weekly visit at its local start time across a daylight saving change', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly({ duration_minutes: 90 }));
    const jobs = await createdBy(tenant.api, 'jobs', template.id);
    // 09:00 EST is 14:00Z until 2027-03-14; 09:00 EDT is 13:00Z after it.
    expect(jobs.map((job) => [job.occurrence_date, job.scheduled_start, job.scheduled_end])).toEqual([
      ['2027-03-01', '2027-03-01T14:00:00.000Z', '2027-03-01T15:30:00.000Z'],
      ['2027-03-08', '2027-03-08T14:00:00.000Z', '2027-03-08T15:30:00.000Z'],
      ['2027-03-15', '2027-03-15T13:00:00.000Z', '2027-03-15T14:30:00.000Z'],
      ['2027-03-22', '2027-03-22T13:00:00.000Z', '2027-03-22T14:30:00.000Z'],
      ['2027-03-29', '2027-03-29T13:00:00.000Z', '2027-03-29T14:30:00.000Z'],
    ]);
    // And back in November: 09:00 EDT on 11-01 is 13:00Z, 09:00 EST on 11-08 is 14:00Z.
    const autumn = (await occurrences(tenant.api, 'recurring_jobs', template.id, '?from=2027-11-01&limit=2')).map((o) => o.scheduled_start);
    expect(autumn).toEqual(['2027-11-01T13:00:00.000Z', '2027-11-08T14:00:00.000Z']);
  });

  it('skips the months without a 31st for BYMONTHDAY=31, as RFC 5545 says', async () => {
    at('2027-01-01');
    const template = await createRecurringJob(tenant.api, weekly({ rule: 'FREQ=MONTHLY;BYMONTHDAY=31', start_date: '2027-01-01', horizon_days: 0 }));
    const dates = (await occurrences(tenant.api, 'recurring_jobs', template.id, '?limit=8')).map((o) => o.date);
    expect(dates).toEqual(['2027-01-31', '2027-03-31', '2027-05-31', '2027-07-31', '2027-08-31', '2027-10-31', '2027-12-31', '2028-01-31']);
  });

  it('ends the series after its count: the template is ended and cannot be resumed', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly({ rule: 'FREQ=DAILY', count: 3 }));
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-02', '2027-03-03']);
    expect((await readRecord(tenant.api, 'recurring_jobs', template.id)).record.status).toBe('ended');
    expect(await occurrences(tenant.api, 'recurring_jobs', template.id)).toEqual([]);
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/resume`, {}), { status: 409, code: 'recurring.ended' });
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/pause`, {}), { status: 409, code: 'recurring.ended' });
  });

  it('ends the series at its end date, and goes on when the end date is moved', async () => {
    at('2027-03-01');
    let template = await createRecurringJob(tenant.api, weekly({ end_date: '2027-03-20' }));
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08', '2027-03-15']);
    template = await readRecord(tenant.api, 'recurring_jobs', template.id);
    expect(template.record.status).toBe('ended');
    template = await updateRecord(tenant.api, 'recurring_jobs', 'recurring_job', template, { end_date: '2027-06-30' });
    expect(template.record.status).toBe('active');
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08', '2027-03-15', '2027-03-22', '2027-03-29']);
  });

  it('refuses a schedule it cannot follow, naming the field', async () => {
    const refused = async (fields: Record<string, unknown>, field: string) =>
      expectProblem(await tenant.api.post('/recurring_jobs', { recurring_job: weekly(fields) }), { status: 422, code: 'validation.failed', errors: { [field]: true } });
    await refused({ rule: 'FREQ=WEEKLY;COUNT=3' }, 'rule');
    await refused({ rule: 'FREQ=HOURLY' }, 'rule');
    await refused({ rule: 'FREQ=WEEKLY;BYDAY=XX' }, 'rule');
    await refused({ rule: 'not a rule' }, 'rule');
    await refused({ rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30' }, 'rule');
    await refused({ end_date: '2027-04-01', count: 3 }, 'end_date');
    await refused({ end_date: '2027-02-01' }, 'end_date');
    await refused({ start_time: '9am' }, 'start_time');
    await refused({ start_time: '24:00' }, 'start_time');
    await refused({ start_time: null, duration_minutes: 30 }, 'duration_minutes');
    await refused({ horizon_days: 400 }, 'horizon_days');
    await refused({ start_date: undefined }, 'start_date');
  });

  it("checks the template by the job's rules: the site is the customer's, assignees active users, labels Job labels", async () => {
    const other = await createCustomer(tenant.api);
    const { user } = await userClient(t, tenant.tenant, 'technician');
    await t.app.domain.admin.updateUser(user.id, { active: false });
    const refused = async (fields: Record<string, unknown>, field: string) =>
      expectProblem(await tenant.api.post('/recurring_jobs', { recurring_job: weekly(fields) }), { status: 422, code: 'validation.failed', errors: { [field]: true } });
    await refused({ customer_id: other.id }, 'site_id');
    await refused({ assignments: [{ user_id: user.id }] }, 'assignments.0.user_id');
    await refused({ labels: ['No such label'] }, 'labels');
    await refused({ site_id: undefined }, 'site_id');
  });
});

describe('events', () => {
  it('announce the template (recurring_job.*) and each job it creates (job.created naming the template)', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly({ horizon_days: 7 }));
    const created = await tenant.api.get(`/events?topic=recurring_job.created&record_id=${template.id}`);
    expect(created.status, created.text).toBe(200);
    expect(created.body.data.map((event: { data: { object: { id: string } } }) => event.data.object.id)).toEqual([template.id]);
    const jobs = await createdBy(tenant.api, 'jobs', template.id);
    const announced = await tenant.api.get(`/events?topic=job.created&record_id[in]=${jobs.map((job) => job.id).join(',')}`);
    expect(announced.body.data.map((event: { data: { object: Record<string, unknown> } }) => [event.data.object.recurring_job_id, event.data.object.occurrence_date])).toEqual([
      [template.id, '2027-03-01'],
      [template.id, '2027-03-08'],
    ]);
    await tenant.api.post(`/recurring_jobs/${template.id}/pause`);
    const paused = await tenant.api.get(`/events?topic=recurring_job.updated&record_id=${template.id}`);
    expect(paused.body.data.at(-1).data.object.status).toBe('paused');
    expect(paused.body.data.at(-1).data.changed_fields).toEqual(['status']);
  });
});

describe('the scheduler', () => {
  it('creates each occurrence once as the horizon moves forward, however often it runs', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly({ horizon_days: 7 }));
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08']);
    at('2027-03-15');
    await Promise.all([sweep(t), sweep(t), sweep(t)]);
    await sweep(t);
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08', '2027-03-15', '2027-03-22']);
  });

  it('records the occurrences that passed while no process ran as missed, and does not create them late', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly({ rule: 'FREQ=DAILY', horizon_days: 2 }));
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-02', '2027-03-03']);
    at('2027-03-08');
    await sweep(t);
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-02', '2027-03-03', '2027-03-08', '2027-03-09', '2027-03-10']);
    const states = (await occurrences(tenant.api, 'recurring_jobs', template.id, '?from=2027-03-03&limit=8')).map((o) => [o.date, o.state]);
    expect(states).toEqual([
      ['2027-03-03', 'created'],
      ['2027-03-04', 'missed'],
      ['2027-03-05', 'missed'],
      ['2027-03-06', 'missed'],
      ['2027-03-07', 'missed'],
      ['2027-03-08', 'created'],
      ['2027-03-09', 'created'],
      ['2027-03-10', 'created'],
    ]);
  });

  it('stops a deleted template; the jobs it created stay', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly({ horizon_days: 7 }));
    await deleteRecord(tenant.api, 'recurring_jobs', template.id);
    at('2027-03-22');
    await sweep(t);
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08']);
    expectProblem(await tenant.api.get(`/recurring_jobs/${template.id}/occurrences`), { status: 404, code: 'resource.not_found' });
  });

  it('records an occurrence the job rules refuse as failed, with the reason, and goes on with the series', async () => {
    at('2027-03-01');
    const { user } = await userClient(t, tenant.tenant, 'technician');
    const template = await createRecurringJob(tenant.api, weekly({ assignments: [{ user_id: user.id }], horizon_days: 7 }));
    await t.app.domain.admin.updateUser(user.id, { active: false });
    at('2027-03-08');
    await sweep(t);
    const [week2, week3] = await occurrences(tenant.api, 'recurring_jobs', template.id, '?from=2027-03-08&limit=2');
    expect(week2).toMatchObject({ date: '2027-03-08', state: 'created' });
    expect(week3).toMatchObject({ date: '2027-03-15', state: 'failed', record_id: null });
    expect(week3.reason).toMatch(/assignments\.0\.user_id is an inactive user/);
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08']);
  });
});
