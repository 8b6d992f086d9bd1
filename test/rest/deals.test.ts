import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag, type Created } from '../helpers/factories/records.ts';
import { siteFields } from '../helpers/factories/sites.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { followPages } from '../helpers/list-pages.ts';
import { expectProblem } from '../helpers/problem.ts';

// Deals over REST: a sales opportunity with exactly one of a customer and a lead (fixed after create), its value
// (decimal, 0 or more), stage as the status (Prospecting ... Lost), probability 0..100, an owner who is an active
// user; number, labels, custom fields, soft delete; the list's filters (stage, owner, close date and value ranges),
// sorts and q; a converted lead's deals moving to its customer; estimates quoting for a deal of their customer.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

const createDeal = async (fields: Record<string, unknown> = {}) => {
  const customer_id = fields.lead_id === undefined && fields.customer_id === undefined ? (await createCustomer(api)).id : undefined;
  return createRecord(api, 'deals', 'deal', { name: unique('Deal '), ...(customer_id ? { customer_id } : {}), ...fields });
};

describe('deals: the five endpoints', () => {
  it('creates a deal with every field, number and stage Prospecting, and answers 201 with Location, ETag and {data}', async () => {
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Deal', name: 'Hot' });
    const budget = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Deal', name: 'Budget holder', type: 'text' })).id;
    const customer = await createCustomer(api);
    const fields = {
      name: 'Boiler replacement',
      customer_id: customer.id,
      value_amount: '12500.50',
      expected_close_date: '2026-12-31',
      probability_percent: 60,
      source: 'Referral',
      owner_id: tenant.userId,
      description: 'Three boilers in the east wing.',
      labels: ['Hot'],
      custom_fields: { [budget]: 'Facilities' },
    };
    const res = await api.post('/deals', { deal: fields });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, lead_id: null, status: 'Prospecting' });
    expect(data.number).toEqual(expect.any(String));
    expect(data.id).toMatch(uuidV7);
    expect(res.headers.get('location')).toBe(`/api/v2/deals/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/deals/${data.id}`);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['deal.created']);
  });

  it('creates from a name and a party alone: value 0.00, the rest null; requires the name', async () => {
    const deal = await createDeal();
    expect(deal.record).toMatchObject({ value_amount: '0.00', expected_close_date: null, probability_percent: null, owner_id: null, source: null, labels: [], custom_fields: {} });
    expectProblem(await api.post('/deals', { deal: { customer_id: deal.record.customer_id } }), { status: 422, code: 'validation.failed', errors: { name: true }, onlyErrors: true });
  });

  it('needs exactly one of customer_id and lead_id (422 naming both fields), each a live record of the tenant', async () => {
    const customer = await createCustomer(api);
    const lead = await createLead(api);
    expectProblem(await api.post('/deals', { deal: { name: 'Nobody' } }), { status: 422, code: 'validation.failed', errors: { customer_id: true, lead_id: true }, onlyErrors: true });
    expectProblem(await api.post('/deals', { deal: { name: 'Both', customer_id: customer.id, lead_id: lead.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { customer_id: true, lead_id: true },
      onlyErrors: true,
    });
    const theirs = await t.newTenant();
    const foreign = await createCustomer(theirs.api);
    expectProblem(await api.post('/deals', { deal: { name: 'Foreign', customer_id: foreign.id } }), { status: 422, code: 'validation.failed', errors: { customer_id: ['does not match any Customer'] } });
    const gone = await createLead(api);
    await deleteRecord(api, 'leads', gone.id);
    expectProblem(await api.post('/deals', { deal: { name: 'Gone', lead_id: gone.id } }), { status: 422, code: 'validation.failed', errors: { lead_id: ['does not match any Lead'] } });
    const withLead = await createRecord(api, 'deals', 'deal', { name: 'Lead deal', lead_id: lead.id });
    expect(withLead.record).toMatchObject({ lead_id: lead.id, customer_id: null });
  });

  it('keeps its party: customer_id and lead_id cannot change on update (resending the same value is accepted)', async () => {
    const deal = await createDeal();
    const other = await createCustomer(api);
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { customer_id: other.id } }, ifMatch(deal.etag)), { status: 422, code: 'validation.failed', errors: { customer_id: ['cannot be changed'] } });
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { lead_id: (await createLead(api)).id } }, ifMatch(deal.etag)), { status: 422, code: 'validation.failed', errors: { lead_id: ['cannot be changed'] } });
    const same = await updateRecord(api, 'deals', 'deal', deal, { customer_id: deal.record.customer_id, name: 'Renamed' });
    expect(same.record).toMatchObject({ customer_id: deal.record.customer_id, name: 'Renamed' });
  });

  it('validates value_amount (a decimal of 0 or more, 2 places), probability_percent (0 to 100) and dates, naming each field', async () => {
    expectProblem(await api.post('/deals', { deal: { name: 'x', customer_id: (await createCustomer(api)).id, value_amount: '-1', probability_percent: 101, expected_close_date: '2026-13-01' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { value_amount: true, probability_percent: true, expected_close_date: true },
      onlyErrors: true,
    });
    const deal = await createDeal({ value_amount: 99.5, probability_percent: 0 });
    expect(deal.record).toMatchObject({ value_amount: '99.50', probability_percent: 0 });
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { value_amount: '1.005' } }, ifMatch(deal.etag)), { status: 422, code: 'validation.failed', errors: { value_amount: true } });
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { probability_percent: 12.5 } }, ifMatch(deal.etag)), { status: 422, code: 'validation.failed', errors: { probability_percent: true } });
  });

  it('takes an owner who is an active user of the account; a deactivated owner stays on the deals already theirs', async () => {
    const { user } = await userClient(t, tenant, 'admin');
    const deal = await createDeal({ owner_id: user.id });
    await t.app.domain.admin.updateUser(user.id, { active: false });
    expectProblem(await api.post('/deals', { deal: { name: 'x', customer_id: deal.record.customer_id, owner_id: user.id } }), { status: 422, code: 'validation.failed', errors: { owner_id: ['is an inactive user'] } });
    const kept = await updateRecord(api, 'deals', 'deal', deal, { owner_id: user.id, name: 'Still theirs' });
    expect(kept.record.owner_id).toBe(user.id);
    const theirs = await t.newTenant();
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { owner_id: theirs.tenant.userId } }, ifMatch(kept.etag)), { status: 422, code: 'validation.failed', errors: { owner_id: true } });
    const other = await createDeal();
    expectProblem(await api.patch(`/deals/${other.id}`, { deal: { owner_id: user.id } }, ifMatch(other.etag)), { status: 422, code: 'validation.failed', errors: { owner_id: ['is an inactive user'] } });
  });

  it('moves the stage (deal.status_changed), refuses a stage the account has not configured, the number on update, and changes the ETag', async () => {
    const deal = await createDeal();
    const moved = await updateRecord(api, 'deals', 'deal', deal, { status: 'Negotiation', value_amount: '10' });
    expect(moved.record).toMatchObject({ status: 'Negotiation', value_amount: '10.00' });
    expect(moved.etag).not.toBe(deal.etag);
    expect((await eventsOf(deal.id)).map((e) => [e.topic, e.details])).toEqual([
      ['deal.created', null],
      ['deal.updated', { changed_fields: ['status', 'value_amount'] }],
      ['deal.status_changed', { previous_status: 'Prospecting', status: 'Negotiation' }],
    ]);
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { status: 'Closed' } }, ifMatch(moved.etag)), { status: 422, code: 'status.transition_invalid' });
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { number: 'D-X' } }, ifMatch(moved.etag)), { status: 422, code: 'number.immutable' });
    expectProblem(await api.patch(`/deals/${deal.id}`, { deal: { name: 'x' } }, ifMatch(deal.etag)), { status: 412, code: 'precondition.failed' });
  });

  it('soft-deletes a deal: 204, then 404 and gone from the list', async () => {
    const deal = await createDeal();
    await deleteRecord(api, 'deals', deal.id);
    expectProblem(await api.get(`/deals/${deal.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/deals?limit=100`))).not.toContain(deal.id);
    expect((await eventsOf(deal.id)).map((e) => e.topic)).toEqual(['deal.created', 'deal.deleted']);
  });
});

describe('deals: the list', () => {
  it('filters by stage, owner, party, close date range and value range (decimal), sorts by value and close date, and searches name, number, status and source', async () => {
    const own = await t.newTenant();
    const customer = await createCustomer(own.api);
    const lead = await createLead(own.api);
    const make = (fields: Record<string, unknown>) => createRecord(own.api, 'deals', 'deal', { customer_id: customer.id, ...fields });
    const small = await make({ name: 'Filter swap', value_amount: '99.99', expected_close_date: '2026-01-10', source: 'Trade show' });
    const mid = await make({ name: 'Chiller', value_amount: '100', expected_close_date: '2026-03-01', owner_id: own.tenant.userId });
    const big = await createRecord(own.api, 'deals', 'deal', { name: 'Plant room', lead_id: lead.id, value_amount: '2500.10' });
    await updateRecord(own.api, 'deals', 'deal', big, { status: 'Won' });

    expect(idsOf(await own.api.get('/deals'))).toEqual([big.id, mid.id, small.id]);
    expect(idsOf(await own.api.get('/deals?status=Won'))).toEqual([big.id]);
    expect(idsOf(await own.api.get('/deals?status[in]=Prospecting,Won&sort=created_at'))).toEqual([small.id, mid.id, big.id]);
    expect(idsOf(await own.api.get(`/deals?owner_id=${own.tenant.userId}`))).toEqual([mid.id]);
    expect(idsOf(await own.api.get(`/deals?lead_id=${lead.id}`))).toEqual([big.id]);
    expect(idsOf(await own.api.get(`/deals?customer_id=${customer.id}&sort=created_at`))).toEqual([small.id, mid.id]);
    expect(idsOf(await own.api.get('/deals?value_amount[gte]=100&sort=value_amount'))).toEqual([mid.id, big.id]);
    expect(idsOf(await own.api.get('/deals?value_amount[lt]=100.00'))).toEqual([small.id]);
    expect(idsOf(await own.api.get('/deals?value_amount[gt]=99.99&value_amount[lte]=100'))).toEqual([mid.id]);
    expect(idsOf(await own.api.get('/deals?sort=-value_amount'))).toEqual([big.id, mid.id, small.id]);
    expect(idsOf(await own.api.get('/deals?expected_close_date[gte]=2026-02-01'))).toEqual([mid.id]);
    // A close date may be unset: such deals sort last ascending.
    expect(idsOf(await own.api.get('/deals?sort=expected_close_date'))).toEqual([small.id, mid.id, big.id]);
    expect(idsOf(await own.api.get('/deals?q=trade%20show'))).toEqual([small.id]);
    expect(idsOf(await own.api.get(`/deals?q=${encodeURIComponent(mid.record.number)}`))).toEqual([mid.id]);
    expectProblem(await own.api.get('/deals?value_amount[gte]=lots'), { status: 400, code: 'filter.invalid', detail: 'decimal' });
    expectProblem(await own.api.get('/deals?sort=source'), { status: 400, code: 'sort.invalid' });
  });

  it('pages through a sort on value_amount with cursors', async () => {
    const own = await t.newTenant();
    const customer = await createCustomer(own.api);
    const made: Created[] = [];
    for (const value of ['5', '1.5', '3', '3', '2.25']) made.push(await createRecord(own.api, 'deals', 'deal', { customer_id: customer.id, name: unique(), value_amount: value }));
    const { records, pages } = await followPages(own.tenant.token, `${t.url}/api/v2/deals?sort=value_amount&limit=2`);
    expect(pages).toHaveLength(3);
    const seen = records.map((r) => r.id as string);
    const values = seen.map((id) => made.find((d) => d.id === id)!.record.value_amount);
    expect(values).toEqual(['1.50', '2.25', '3.00', '3.00', '5.00']);
  });
});

describe('deals and leads: conversion', () => {
  it("converting a lead moves its live deals to the new customer (lead_id cleared) in the same transaction, each with deal.updated", async () => {
    const lead = await createLead(api);
    const deal = await createRecord(api, 'deals', 'deal', { name: 'Roof unit', lead_id: lead.id });
    const dropped = await createRecord(api, 'deals', 'deal', { name: 'Dropped', lead_id: lead.id });
    await deleteRecord(api, 'deals', dropped.id);
    const res = await api.post(`/leads/${lead.id}/convert`, {});
    expect(res.status, res.text).toBe(201);
    const customerId = res.body.data.customer.id;
    const moved = await api.get(`/deals/${deal.id}`);
    expect(moved.body.data).toMatchObject({ customer_id: customerId, lead_id: null, name: 'Roof unit' });
    expect(moved.headers.get('etag')).not.toBe(deal.etag);
    expect((await eventsOf(deal.id)).map((e) => [e.topic, e.details])).toEqual([
      ['deal.created', null],
      ['deal.updated', { changed_fields: ['customer_id', 'lead_id'] }],
    ]);
    expect(idsOf(await api.get(`/deals?customer_id=${customerId}`))).toEqual([deal.id]);
    expect(idsOf(await api.get(`/deals?lead_id=${lead.id}`))).toEqual([]);
  });
});

describe("an estimate's deal", () => {
  const estimateFor = async (customerId: string, fields: Record<string, unknown> = {}) => {
    const site = await createRecord(api, 'sites', 'site', siteFields({ type: 'Customer', id: customerId }));
    return api.post('/estimates', { estimate: { customer_id: customerId, site_id: site.id, ...fields } });
  };

  it('names a live deal of the estimate\'s customer; the estimate list filters by it', async () => {
    const deal = await createDeal();
    const customerId = deal.record.customer_id;
    const res = await estimateFor(customerId, { deal_id: deal.id });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.deal_id).toBe(deal.id);
    expect(idsOf(await api.get(`/estimates?deal_id=${deal.id}`))).toEqual([res.body.data.id]);
    const plain = await estimateFor(customerId);
    expect(plain.body.data.deal_id).toBeNull();
  });

  it("refuses a deal of another customer, a deal still with a lead, and a deleted or foreign deal (422 on deal_id)", async () => {
    const deal = await createDeal();
    const other = await createCustomer(api);
    expectProblem(await estimateFor(other.id, { deal_id: deal.id }), { status: 422, code: 'validation.failed', errors: { deal_id: ["must be a deal of the estimate's customer (customer_id)"] } });
    const leadDeal = await createRecord(api, 'deals', 'deal', { name: 'Lead deal', lead_id: (await createLead(api)).id });
    expectProblem(await estimateFor(other.id, { deal_id: leadDeal.id }), { status: 422, code: 'validation.failed', errors: { deal_id: /with a lead/ } });
    const theirs = await t.newTenant();
    const foreign = await createRecord(theirs.api, 'deals', 'deal', { name: 'Theirs', customer_id: (await createCustomer(theirs.api)).id });
    expectProblem(await estimateFor(other.id, { deal_id: foreign.id }), { status: 422, code: 'validation.failed', errors: { deal_id: ['does not match any Deal'] } });
    const gone = await createDeal();
    await deleteRecord(api, 'deals', gone.id);
    expectProblem(await estimateFor(gone.record.customer_id, { deal_id: gone.id }), { status: 422, code: 'validation.failed', errors: { deal_id: ['does not match any Deal'] } });
  });

  it("refuses moving an estimate to another customer while it names a deal of the first (clearing deal_id with it is accepted)", async () => {
    const deal = await createDeal();
    const created = await estimateFor(deal.record.customer_id, { deal_id: deal.id });
    const estimate = { id: created.body.data.id, etag: created.headers.get('etag')! };
    const other = await createCustomer(api);
    const site = await createRecord(api, 'sites', 'site', siteFields({ type: 'Customer', id: other.id }));
    expectProblem(await api.patch(`/estimates/${estimate.id}`, { estimate: { customer_id: other.id, site_id: site.id } }, ifMatch(estimate.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { deal_id: true },
    });
    const moved = await updateRecord(api, 'estimates', 'estimate', estimate, { customer_id: other.id, site_id: site.id, deal_id: null });
    expect(moved.record).toMatchObject({ customer_id: other.id, deal_id: null });
  });

  it('a converted lead\'s deal takes estimates of the new customer', async () => {
    const lead = await createLead(api);
    const deal = await createRecord(api, 'deals', 'deal', { name: 'Later', lead_id: lead.id });
    const converted = await api.post(`/leads/${lead.id}/convert`, {});
    const res = await estimateFor(converted.body.data.customer.id, { deal_id: deal.id });
    expect(res.status, res.text).toBe(201);
  });
});
