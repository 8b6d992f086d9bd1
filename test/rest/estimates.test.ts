import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { setModules, userClient } from '../helpers/factories/accounts.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createEstimate } from '../helpers/factories/estimates.ts';
import { deleteRecord, idsOf, patch, readRecord, unique, updateRecord } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { createSystem } from '../helpers/factories/systems.ts';
import type { Client } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';

// Estimates over REST: fields, server-computed amount, the decision statuses (Sent/Accepted/Declined) gated by the
// user's role, the status state table, q, and POST /estimates/{id}/convert.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(api);
});

async function moveTo(a: Client, current: { id: string; etag: string }, status: string) {
  const res = await patch(a, 'estimates', current, { status });
  expect(res.status, res.text).toBe(200);
  return { id: current.id, etag: res.headers.get('etag')!, record: res.body.data };
}

describe('estimates: fields and amount', () => {
  it('persists and returns every field of the Estimate table', async () => {
    const contact = await createContact(api);
    const tax = await createTaxRate(api, { rate: '5' });
    const fields = {
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      title: 'New boiler',
      description: 'Replace the boiler',
      scope_of_work: 'Remove old, install new',
      estimate_date: '2026-02-01',
      expiration_date: '2026-03-01',
      job_type: 'Install',
      reference: 'RFQ-12',
      customer_notes: 'Valid 30 days',
      tax_rate_id: tax.id,
    };
    const res = await api.post('/estimates', { estimate: fields });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v2/estimates/${res.body.data.id}`);
    expect(res.body.data).toMatchObject({ ...fields, status: 'Draft', amount: '0.00', labels: [], custom_fields: {}, lineitems: [], converted_job_id: null });
    expect(res.body.data.number).toMatch(/^\d+$/);
    const got = await readRecord(api, 'estimates', res.body.data.id);
    expect(got.record).toEqual(res.body.data);
    const changed = { title: 'T2', description: 'D2', scope_of_work: 'S2', estimate_date: '2026-02-02', expiration_date: null, job_type: 'Repair', reference: 'R2', customer_notes: 'N2', tax_rate_id: null };
    const up = await patch(api, 'estimates', got, changed);
    expect(up.status, up.text).toBe(200);
    expect(up.body.data).toMatchObject(changed);
    expectProblem(await api.post('/estimates', { estimate: { site_id: place.site.id, estimate_date: 'yesterday' } }), { status: 422, code: 'validation.failed', errors: { estimate_date: true } });
    expectProblem(await api.post('/estimates', { estimate: { site_id: place.site.id, amount: '5' } }), { status: 422, code: 'validation.failed', errors: { amount: true } });
  });

  it('computes amount from the lines and their tax, and recomputes it when lines change', async () => {
    const tax = await createTaxRate(api, { rate: '10' });
    const est = await createEstimate(api, {
      site_id: place.site.id,
      tax_rate_id: tax.id,
      lineitems: [
        { description: 'Parts', quantity: '2', unit_price: '50' },
        { description: 'Untaxed', quantity: '1', unit_price: '20', taxable: false },
      ],
    });
    expect(est.record.amount).toBe('130.00');
    const up = await patch(api, 'estimates', est, { lineitems: [{ id: est.record.lineitems[0].id }] });
    expect(up.status, up.text).toBe(200);
    expect(up.body.data.amount).toBe('110.00');
  });
});

describe('estimates: statuses', () => {
  it('lets any live status follow any other and re-sending the current one succeeds', async () => {
    let est = await createEstimate(api, { site_id: place.site.id });
    for (const status of ['Accepted', 'Draft', 'Declined', 'Sent', 'Sent', 'Draft']) {
      est = await moveTo(api, est, status);
      expect(est.record.status).toBe(status);
    }
  });

  it('answers 422 status.transition_invalid naming an unknown, misspelled or deleted status, and leaves the status unchanged', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    await t.app.domain.admin.addLookup('status', { accountId: own.accountId, relatedName: 'Estimate', name: 'On Hold' });
    let est = await createEstimate(oapi, { site_id: p.site.id });
    est = await moveTo(oapi, est, 'On Hold');
    for (const bad of ['Approved', 'accepted', 'Draft ']) {
      expectProblem(await patch(oapi, 'estimates', est, { status: bad }), { status: 422, code: 'status.transition_invalid', detail: `"${bad}"` });
    }
    await t.app.domain.admin.removeLookup('status', { accountId: own.accountId, relatedName: 'Estimate', name: 'On Hold' });
    expectProblem(await patch(oapi, 'estimates', est, { status: 'On Hold' }), { status: 422, code: 'status.transition_invalid', detail: 'On Hold' });
    expect((await readRecord(oapi, 'estimates', est.id)).record.status).toBe('On Hold');
    expectProblem(await oapi.post('/estimates', { estimate: { site_id: p.site.id, status: 'Sent' } }), { status: 422, code: 'validation.failed', errors: { status: true } });
  });

  it('refuses Sent, Accepted and Declined to a technician key with 403 auth.permission_denied, allows other statuses', async () => {
    const tech = await userClient(t, tenant, 'technician');
    let est = await createEstimate(tech.api, { site_id: place.site.id });
    await t.app.domain.admin.addLookup('status', { accountId: tenant.accountId, relatedName: 'Estimate', name: 'Revised' });
    for (const status of ['Sent', 'Accepted', 'Declined']) {
      expectProblem(await patch(tech.api, 'estimates', est, { status }), { status: 403, code: 'auth.permission_denied' });
    }
    expect((await readRecord(api, 'estimates', est.id)).record.status).toBe('Draft');
    est = await moveTo(tech.api, est, 'Revised');
    est = await moveTo(tech.api, est, 'Draft');
    // A technician may still edit an estimate already Sent (re-sending the current status is not a decision).
    est = await moveTo(api, est, 'Sent');
    const edit = await patch(tech.api, 'estimates', est, { title: 'tech edit', status: 'Sent' });
    expect(edit.status, edit.text).toBe(200);
  });

  it('allows the decision statuses to admin and office users', async () => {
    const office = await userClient(t, tenant, 'office');
    const admin = await userClient(t, tenant, 'admin');
    for (const who of [office.api, admin.api]) {
      let est = await createEstimate(who, { site_id: place.site.id });
      for (const status of ['Sent', 'Accepted', 'Declined']) est = await moveTo(who, est, status);
    }
  });
});

describe('estimates: lists', () => {
  it('q matches number, amount, status and customer organization; filters status = and [in]', async () => {
    const { api: oapi } = await t.newTenant();
    const org = unique('org').toLowerCase();
    const p = await createPlace(oapi, { organization: `Acme ${org}` });
    const q = await createPlace(oapi);
    const number = unique('E-');
    const a = await createEstimate(oapi, { site_id: p.site.id, number, lineitems: [{ description: 'x', quantity: '3', unit_price: '411.37' }] });
    expect(a.record.amount).toBe('1234.11');
    const b = await createEstimate(oapi, { site_id: q.site.id });
    await moveTo(oapi, b, 'Declined');
    expect(idsOf(await oapi.get(`/estimates?q=${encodeURIComponent(number)}`))).toEqual([a.id]);
    expect(idsOf(await oapi.get('/estimates?q=1234.11'))).toEqual([a.id]);
    expect(idsOf(await oapi.get(`/estimates?q=${encodeURIComponent(org.toUpperCase())}`))).toEqual([a.id]);
    expect(idsOf(await oapi.get('/estimates?q=declined'))).toEqual([b.id]);
    expect(idsOf(await oapi.get('/estimates?status=Declined'))).toEqual([b.id]);
    expect(idsOf(await oapi.get('/estimates?status[in]=Draft,Declined&sort=created_at'))).toEqual([a.id, b.id]);
    // amount follows line changes in the search text
    const cur = await readRecord(oapi, 'estimates', a.id);
    expect((await patch(oapi, 'estimates', cur, { lineitems: [] })).status).toBe(200);
    expect(idsOf(await oapi.get('/estimates?q=1234.11'))).toEqual([]);
  });

  it('filters created_at and updated_at ranges', async () => {
    const { api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const first = await createEstimate(oapi, { site_id: p.site.id });
    clock.advance(60_000);
    const mark = clock.now().toISOString();
    clock.advance(60_000);
    const second = await createEstimate(oapi, { site_id: p.site.id });
    expect(idsOf(await oapi.get(`/estimates?created_at[lte]=${mark}`))).toEqual([first.id]);
    expect(idsOf(await oapi.get(`/estimates?created_at[gt]=${mark}`))).toEqual([second.id]);
    clock.advance(60_000);
    const mark2 = clock.now().toISOString();
    clock.advance(60_000);
    await moveTo(oapi, first, 'Sent');
    expect(idsOf(await oapi.get(`/estimates?updated_at[gte]=${mark2}`))).toEqual([first.id]);
    expect(idsOf(await oapi.get(`/estimates?updated_at[lt]=${mark2}`))).toEqual([second.id]);
  });
});

describe('estimates: convert', () => {
  it('converts an Accepted estimate into a job with the same customer, site, lines and amount, linking both ways', async () => {
    const contact = await createContact(api);
    const system = await createSystem(api, place.site.id);
    const item = await createItem(api, { unit_price: '12.5' });
    const tax = await createTaxRate(api, { rate: '7.5' });
    let est = await createEstimate(api, {
      site_id: place.site.id,
      contact_id: contact.id,
      system_id: system.id,
      title: 'Quote',
      scope_of_work: 'Do it',
      job_type: 'Install',
      reference: 'REF-1',
      tax_rate_id: tax.id,
      lineitems: [
        { item_id: item.id, quantity: '3', discount: '10' },
        { description: 'Labor', quantity: '1.5', unit_price: '80', labor_visible: false, taxable: false },
      ],
    });
    expectProblem(await api.post(`/estimates/${est.id}/convert`), { status: 409, code: 'estimate.not_accepted' });
    est = await moveTo(api, est, 'Sent');
    expectProblem(await api.post(`/estimates/${est.id}/convert`), { status: 409, code: 'estimate.not_accepted' });
    est = await moveTo(api, est, 'Accepted');
    const res = await api.post(`/estimates/${est.id}/convert`);
    expect(res.status, res.text).toBe(201);
    const { estimate, job } = res.body.data;
    expect(res.headers.get('location')).toBe(`/api/v2/jobs/${job.id}`);
    expect(estimate.converted_job_id).toBe(job.id);
    expect(estimate.converted_at).toBeTypeOf('string');
    expect(job.estimate_id).toBe(est.id);
    expect(job).toMatchObject({
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      system_id: system.id,
      title: 'Quote',
      scope_of_work: 'Do it',
      job_type: 'Install',
      reference: 'REF-1',
      amount: est.record.amount,
      status: 'Pending',
    });
    const strip = (l: any) => ({ ...l, id: undefined });
    expect(job.lineitems.map(strip)).toEqual(est.record.lineitems.map(strip));
    expect(job.lineitems.map((l: any) => l.id)).not.toEqual(est.record.lineitems.map((l: any) => l.id));
    // Both are readable afterwards, and the estimate's ETag moved.
    const readEst = await readRecord(api, 'estimates', est.id);
    expect(readEst.record.converted_job_id).toBe(job.id);
    expect(readEst.etag).not.toBe(est.etag);
    expect((await readRecord(api, 'jobs', job.id)).record.estimate_id).toBe(est.id);
    expectProblem(await api.post(`/estimates/${est.id}/convert`), { status: 409, code: 'estimate.already_converted' });
    expect(idsOf(await api.get(`/jobs?site_id=${place.site.id}`)).filter((id) => id === job.id)).toHaveLength(1);
  });

  it('needs both estimates:write and jobs:write, and answers 404 for another tenant\'s estimate', async () => {
    let est = await createEstimate(api, { site_id: place.site.id });
    est = await moveTo(api, est, 'Accepted');
    for (const [scopes, missing] of [[['estimates:write', 'estimates:read'], 'jobs:write'], [['jobs:write', 'estimates:read'], 'estimates:write']] as const) {
      const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes });
      const body = expectProblem(await t.client(key.token).post(`/estimates/${est.id}/convert`), { status: 403, code: 'auth.scope_missing' });
      expect(body.required_scope).toBe(missing);
    }
    expect((await readRecord(api, 'estimates', est.id)).record.converted_job_id).toBeNull();
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['estimates:write', 'jobs:write'] });
    const other = await t.tenant();
    expectProblem(await t.client(other.token).post(`/estimates/${est.id}/convert`), { status: 404, code: 'resource.not_found' });
    const res = await t.client(key.token).post(`/estimates/${est.id}/convert`);
    expect(res.status, res.text).toBe(201);
  });

  it('refuses to convert when the job would break today\'s module rules (422 naming the field), leaving the estimate unconverted', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    let est = await createEstimate(oapi, { site_id: p.site.id });
    est = await moveTo(oapi, est, 'Accepted');
    await setModules(t, own, { System: 'on' });
    expectProblem(await oapi.post(`/estimates/${est.id}/convert`), { status: 422, code: 'validation.failed', errors: { system_id: true } });
    expect((await readRecord(oapi, 'estimates', est.id)).record.converted_job_id).toBeNull();
    expect(idsOf(await oapi.get('/jobs'))).toEqual([]);
  });
});

describe('estimates: search text follows the customer', () => {
  it("q finds an estimate by its customer's new organization after a rename, not by the old, without moving the estimate's ETag", async () => {
    const { api: oapi } = await t.newTenant();
    const [before, after] = [unique('org').toLowerCase(), unique('org').toLowerCase()];
    const p = await createPlace(oapi, { organization: `Acme ${before}` });
    const est = await createEstimate(oapi, { site_id: p.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '987.65' }] });
    const other = await createEstimate(oapi, { site_id: (await createPlace(oapi)).site.id });
    expect(idsOf(await oapi.get(`/estimates?q=${before}`))).toEqual([est.id]);
    await updateRecord(oapi, 'customers', 'customer', p.customer, { organization: `Acme ${after}` });
    expect(idsOf(await oapi.get(`/estimates?q=${after}`))).toEqual([est.id]);
    expect(idsOf(await oapi.get(`/estimates?q=${before}`))).toEqual([]);
    // The rest of the text is intact (the amount), and the estimate itself did not change.
    expect(idsOf(await oapi.get('/estimates?q=987.65'))).toEqual([est.id]);
    const got = await readRecord(oapi, 'estimates', est.id);
    expect(got.etag).toBe(est.etag);
    expect(got.record.updated_at).toBe(est.record.updated_at);
    expect((await readRecord(oapi, 'estimates', other.id)).etag).toBe(other.etag);
  });
});

describe('estimates: conversion keeps what was agreed', () => {
  it('converts to a job of the same amount and lines when, since acceptance, a tax rate changed, was deactivated or deleted and an item was deleted', async () => {
    const changed = await createTaxRate(api, { rate: '10' });
    const deactivated = await createTaxRate(api, { rate: '5' });
    const deleted = await createTaxRate(api, { rate: '8' });
    const item = await createItem(api, { unit_price: '25' });
    let est = await createEstimate(api, {
      site_id: place.site.id,
      tax_rate_id: changed.id,
      lineitems: [
        { description: 'a', quantity: '1', unit_price: '100' },
        { item_id: item.id, quantity: '2', tax_rate_id: deactivated.id, discount: '10' },
        { description: 'c', quantity: '1', unit_price: '10', tax_rate_id: deleted.id, labor_visible: false },
      ],
    });
    expect(est.record.amount).toBe('168.05');
    est = await moveTo(api, est, 'Accepted');
    await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', changed.id), { rate: '20' });
    await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', deactivated.id), { active: false });
    await deleteRecord(api, 'tax_rates', deleted.id);
    await deleteRecord(api, 'items', item.id);
    // Editing the accepted estimate elsewhere does not reprice it either.
    const noted = await patch(api, 'estimates', est, { customer_notes: 'Thanks' });
    expect(noted.status, noted.text).toBe(200);
    expect(noted.body.data.amount).toBe('168.05');

    const res = await api.post(`/estimates/${est.id}/convert`);
    expect(res.status, res.text).toBe(201);
    const { estimate, job } = res.body.data;
    expect(estimate.amount).toBe('168.05');
    expect(job.amount).toBe('168.05');
    const strip = (l: any) => ({ ...l, id: undefined });
    expect(job.lineitems.map(strip)).toEqual(est.record.lineitems.map(strip));
    expect(job.lineitems.map((l: any) => l.applied_tax_rate)).toEqual(['10.0000', '5.0000', '8.0000']);
    expect((await readRecord(api, 'jobs', job.id)).record.amount).toBe('168.05');
  });

  it("refuses an inactive tax rate as the estimate's tax_rate_id with 422 naming tax_rate_id; a rate deactivated since it was set stays", async () => {
    const inactive = await createTaxRate(api, { active: false });
    expectProblem(await api.post('/estimates', { estimate: { site_id: place.site.id, tax_rate_id: inactive.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { tax_rate_id: true },
      onlyErrors: true,
    });
    const active = await createTaxRate(api, { rate: '10' });
    const est = await createEstimate(api, { site_id: place.site.id, tax_rate_id: active.id });
    expectProblem(await patch(api, 'estimates', est, { tax_rate_id: inactive.id }), { status: 422, code: 'validation.failed', errors: { tax_rate_id: true }, onlyErrors: true });
    await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', active.id), { active: false });
    const kept = await patch(api, 'estimates', est, { title: 'still editable', tax_rate_id: active.id });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.tax_rate_id).toBe(active.id);
  });

  it("records estimate_id in the job's created event, converted_job_id in the estimate's updated event and the job in estimate.converted, moving the estimate's ETag once", async () => {
    let est = await createEstimate(api, { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '5' }] });
    est = await moveTo(api, est, 'Accepted');
    const before = await t.database.prisma.estimate.findUniqueOrThrow({ where: { id: est.id } });
    const res = await api.post(`/estimates/${est.id}/convert`, undefined, { headers: { 'x-request-id': 'estimate-convert-1' } });
    expect(res.status, res.text).toBe(201);
    const { estimate, job } = res.body.data;
    const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });
    const jobEvents = await eventsOf(job.id);
    expect(jobEvents.map((e) => [e.topic, e.request_id])).toEqual([['job.created', 'estimate-convert-1']]);
    expect(jobEvents[0].payload).toMatchObject({ id: job.id, estimate_id: est.id, amount: '5.00' });
    // The conversion appends, in its request: estimate.updated naming the fields that moved (the status stays
    // Accepted, so no estimate.status_changed), then estimate.converted naming the job it made. Both carry the
    // estimate as served.
    const conversion = (await eventsOf(est.id)).filter((e) => e.request_id === 'estimate-convert-1');
    expect(conversion.map((e) => [e.topic, e.details])).toEqual([
      ['estimate.updated', { changed_fields: ['converted_at', 'converted_job_id'] }],
      ['estimate.converted', { converted_to: { job_id: job.id } }],
    ]);
    for (const e of conversion) expect(e.payload).toEqual(estimate);
    const after = await t.database.prisma.estimate.findUniqueOrThrow({ where: { id: est.id } });
    expect(after.lock_version).toBe(before.lock_version + 1);
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(res.body.data.estimate.updated_at).toBe(after.updated_at.toISOString());
  });
});
