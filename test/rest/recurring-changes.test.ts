import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTestApp, type TenantClients } from '../helpers/app.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { readRecord, updateRecord } from '../helpers/factories/records.ts';
import { createdBy, createdDates, createRecurringJob, occurrences, sweep } from '../helpers/factories/recurring.ts';
import { expectProblem } from '../helpers/problem.ts';

// Changing a recurring job: pause, resume, skip one occurrence, edit the template or its schedule. What was created
// stays as it is; only the occurrences not created yet follow the change. The app's clock is pinned (UTC account).

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });

let tenant: TenantClients;
let place: Place;
const at = (day: string) => clock.pin(`${day}T12:00:00Z`);

beforeAll(async () => {
  at('2027-03-01');
  tenant = await t.newTenant();
  await t.app.domain.admin.updateAccount(tenant.tenant.accountId, { timeZone: 'UTC' });
  place = await createPlace(tenant.api);
});

const weekly = (fields: Record<string, unknown> = {}) => ({ customer_id: place.customer.id, site_id: place.site.id, title: 'Filter change', rule: 'FREQ=WEEKLY;BYDAY=MO', start_date: '2027-03-01', horizon_days: 7, ...fields });

describe('pausing and resuming', () => {
  it('creates nothing while paused, and on resume only the occurrences from today on', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly());
    const paused = await tenant.api.post(`/recurring_jobs/${template.id}/pause`);
    expect(paused.status, paused.text).toBe(200);
    expect(paused.body.data.recurring_job.status).toBe('paused');
    at('2027-03-22');
    await sweep(t);
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08']);
    // Pausing again changes nothing (no new ETag).
    const again = await tenant.api.post(`/recurring_jobs/${template.id}/pause`);
    expect(again.body.data.recurring_job.updated_at).toBe(paused.body.data.recurring_job.updated_at);
    const resumed = await tenant.api.post(`/recurring_jobs/${template.id}/resume`);
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.data.recurring_job.status).toBe('active');
    // 03-15 fell in the pause: never created; 03-22 and 03-29 are inside the horizon of today.
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08', '2027-03-22', '2027-03-29']);
  });

  it('refuses a body, an unknown template and another tenant\'s template', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly());
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/pause`, { status: 'paused' }), { status: 422, code: 'validation.failed', errors: { body: true } });
    expectProblem(await tenant.api.post('/recurring_jobs/01a24272-0000-7000-8000-000000000000/pause'), { status: 404, code: 'resource.not_found' });
    const other = await t.newTenant();
    expectProblem(await other.api.post(`/recurring_jobs/${template.id}/resume`), { status: 404, code: 'resource.not_found' });
    expectProblem(await other.api.post(`/recurring_jobs/${template.id}/skip`, { date: '2027-04-05' }), { status: 404, code: 'resource.not_found' });
  });
});

describe('skipping one occurrence', () => {
  it('never creates a skipped occurrence; the others go on', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly());
    const skipped = await tenant.api.post(`/recurring_jobs/${template.id}/skip`, { date: '2027-03-15' });
    expect(skipped.status, skipped.text).toBe(200);
    expect(skipped.body.data).toEqual({ date: '2027-03-15', state: 'skipped', record_id: null, scheduled_start: null, reason: null });
    // Skipping it again changes nothing.
    expect((await tenant.api.post(`/recurring_jobs/${template.id}/skip`, { skip: { date: '2027-03-15' } })).status).toBe(200);
    at('2027-03-22');
    await sweep(t);
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-08', '2027-03-22', '2027-03-29']);
    const states = (await occurrences(tenant.api, 'recurring_jobs', template.id, '?from=2027-03-08&limit=4')).map((o) => o.state);
    expect(states).toEqual(['created', 'skipped', 'created', 'created']);
  });

  it('refuses a created occurrence (409), a date off the schedule or in the past (422)', async () => {
    at('2027-03-01');
    const template = await createRecurringJob(tenant.api, weekly());
    const [job] = await createdBy(tenant.api, 'jobs', template.id);
    const created = expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/skip`, { date: '2027-03-01' }), { status: 409, code: 'recurring.occurrence_created' });
    expect(created.detail).toContain(job!.id);
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/skip`, { date: '2027-03-16' }), { status: 422, code: 'validation.failed', errors: { date: true } });
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/skip`, { date: '2027-02-22' }), { status: 422, code: 'validation.failed', errors: { date: true } });
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/skip`, { date: 'Monday' }), { status: 422, code: 'validation.failed', errors: { date: true } });
    expectProblem(await tenant.api.post(`/recurring_jobs/${template.id}/skip`, {}), { status: 422, code: 'validation.failed', errors: { date: true } });
  });
});

describe('editing a template', () => {
  it('changes only the occurrences not created yet: created jobs keep what they were made with', async () => {
    at('2027-03-01');
    let template = await createRecurringJob(tenant.api, weekly({ lineitems: [{ description: 'Filter', quantity: '1', unit_price: '40' }] }));
    template = await updateRecord(tenant.api, 'recurring_jobs', 'recurring_job', template, { title: 'Filter and belt', lineitems: [{ description: 'Filter and belt', quantity: '1', unit_price: '55' }] });
    expect(template.record.amount).toBe('55.00');
    at('2027-03-15');
    await sweep(t);
    const jobs = await createdBy(tenant.api, 'jobs', template.id);
    expect(jobs.map((job) => [job.occurrence_date, job.title, job.amount])).toEqual([
      ['2027-03-01', 'Filter change', '40.00'],
      ['2027-03-08', 'Filter change', '40.00'],
      ['2027-03-15', 'Filter and belt', '55.00'],
      ['2027-03-22', 'Filter and belt', '55.00'],
    ]);
  });

  it('keeps the jobs of the old schedule and creates the new schedule\'s occurrences inside the horizon, once', async () => {
    at('2027-03-01');
    let template = await createRecurringJob(tenant.api, weekly());
    template = await updateRecord(tenant.api, 'recurring_jobs', 'recurring_job', template, { rule: 'FREQ=WEEKLY;BYDAY=TU' });
    expect(template.record.rule).toBe('FREQ=WEEKLY;BYDAY=TU');
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-02', '2027-03-08']);
    template = await readRecord(tenant.api, 'recurring_jobs', template.id);
    // A change back does not create the Mondays twice.
    await updateRecord(tenant.api, 'recurring_jobs', 'recurring_job', template, { rule: 'FREQ=WEEKLY;BYDAY=MO' });
    expect(await createdDates(tenant.api, 'jobs', template.id)).toEqual(['2027-03-01', '2027-03-02', '2027-03-08']);
  });
});
