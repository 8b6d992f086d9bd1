import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTestApp, type TenantClients } from '../helpers/app.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { failed, fieldsOf, ok, succeeded, USER_ERRORS } from '../helpers/graphql.ts';

// Recurring jobs and invoices over GraphQL: the same templates, rules, codes and generator as REST
// (test/rest/recurring-*.test.ts), with their relations both ways and the actions as mutations and a query.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });

let tenant: TenantClients;
let place: Place;

beforeAll(async () => {
  clock.pin('2027-03-01T12:00:00Z');
  tenant = await t.newTenant();
  await t.app.domain.admin.updateAccount(tenant.tenant.accountId, { timeZone: 'America/New_York', paymentTermsDays: 30 });
  place = await createPlace(tenant.api);
});

const CREATE_JOB = `mutation($input: CreateRecurringJobInput!) { createRecurringJob(input: $input) {
  recurringJob { id status rule horizonDays startTime jobs(first: 20) { nodes { occurrenceDate scheduledStart recurringJob { id } } } } etag ${USER_ERRORS} } }`;

describe('recurring jobs over GraphQL', () => {
  it('creates a template whose jobs are its jobs relation, each naming it back', async () => {
    const input = { customerId: place.customer.id, siteId: place.site.id, title: 'Inspection', rule: 'FREQ=WEEKLY;BYDAY=MO', startDate: '2027-03-01', startTime: '09:00', horizonDays: 14 };
    const { createRecurringJob } = succeeded(await tenant.gql(CREATE_JOB, { input }));
    expect(createRecurringJob.recurringJob).toMatchObject({ status: 'ACTIVE', rule: 'FREQ=WEEKLY;BYDAY=MO', horizonDays: 14, startTime: '09:00' });
    const jobs = createRecurringJob.recurringJob.jobs.nodes;
    expect(jobs.map((job: { occurrenceDate: string }) => job.occurrenceDate)).toEqual(['2027-03-01', '2027-03-08', '2027-03-15']);
    expect(jobs.map((job: { scheduledStart: string }) => job.scheduledStart)).toEqual(['2027-03-01T14:00:00.000Z', '2027-03-08T14:00:00.000Z', '2027-03-15T13:00:00.000Z']);
    for (const job of jobs) expect(job.recurringJob.id).toBe(createRecurringJob.recurringJob.id);
  });

  it('answers a refused schedule as userErrors naming the input fields', async () => {
    const input = { customerId: place.customer.id, siteId: place.site.id, rule: 'FREQ=MINUTELY', startDate: '2027-03-01', endDate: '2027-04-01', count: 2 };
    expect(fieldsOf(failed(await tenant.gql(CREATE_JOB, { input }), 'validation.failed'))).toEqual([['input', 'endDate'], ['input', 'rule']]);
  });

  it('pauses, skips and previews through the actions, with the codes of REST', async () => {
    const input = { customerId: place.customer.id, siteId: place.site.id, rule: 'FREQ=DAILY', startDate: '2027-03-01', horizonDays: 1, count: 2 };
    const id = succeeded(await tenant.gql(CREATE_JOB, { input })).createRecurringJob.recurringJob.id;
    const preview = ok(await tenant.gql(`query($id: ID!) { recurringJobOccurrences(id: $id) { date state recordId } }`, { id })).recurringJobOccurrences;
    expect(preview.map((o: { date: string; state: string }) => [o.date, o.state])).toEqual([]);
    const resumed = await tenant.gql(`mutation($id: ID!) { resumeRecurringJob(id: $id) { recurringJob { status } ${USER_ERRORS} } }`, { id });
    failed(resumed, 'recurring.ended');
    const other = succeeded(await tenant.gql(CREATE_JOB, { input: { ...input, count: null, horizonDays: 0 } })).createRecurringJob.recurringJob.id;
    const paused = succeeded(await tenant.gql(`mutation($id: ID!) { pauseRecurringJob(id: $id) { recurringJob { status } ${USER_ERRORS} } }`, { id: other }));
    expect(paused.pauseRecurringJob.recurringJob.status).toBe('PAUSED');
    const skip = `mutation($id: ID!, $date: Date!) { skipRecurringJobOccurrence(id: $id, input: { date: $date }) { occurrence { date state } ${USER_ERRORS} } }`;
    expect(succeeded(await tenant.gql(skip, { id: other, date: '2027-03-03' })).skipRecurringJobOccurrence.occurrence).toEqual({ date: '2027-03-03', state: 'SKIPPED' });
    failed(await tenant.gql(skip, { id: other, date: '2027-03-01' }), 'recurring.occurrence_created');
    const states = ok(await tenant.gql(`query($id: ID!) { recurringJobOccurrences(id: $id) { date state } }`, { id: other })).recurringJobOccurrences;
    expect(states.slice(0, 3)).toEqual([
      { date: '2027-03-01', state: 'CREATED' },
      { date: '2027-03-02', state: 'UPCOMING' },
      { date: '2027-03-03', state: 'SKIPPED' },
    ]);
  });
});

describe('recurring invoices over GraphQL', () => {
  it('creates invoices dated the occurrence and due after the account terms, listed under the template', async () => {
    const create = `mutation($input: CreateRecurringInvoiceInput!) { createRecurringInvoice(input: $input) {
      recurringInvoice { id amount invoices(first: 5) { nodes { invoiceDate dueDate amount recurringInvoice { id } occurrenceDate } } } ${USER_ERRORS} } }`;
    const input = { customerId: place.customer.id, rule: 'FREQ=MONTHLY;BYMONTHDAY=1', startDate: '2027-01-01', lineitems: [{ description: 'Service plan', quantity: '1', unitPrice: '49' }] };
    const template = succeeded(await tenant.gql(create, { input })).createRecurringInvoice.recurringInvoice;
    expect(template.amount).toBe('49.00');
    expect(template.invoices.nodes).toEqual([{ invoiceDate: '2027-03-01', dueDate: '2027-03-31', amount: '49.00', recurringInvoice: { id: template.id }, occurrenceDate: '2027-03-01' }]);
  });
});
