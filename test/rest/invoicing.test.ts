import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createEstimate } from '../helpers/factories/estimates.ts';
import { copiedLines, freshKey } from '../helpers/factories/invoices.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { deleteRecord, patch, readRecord, updateRecord, type Created } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import type { Client } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';

// Invoicing work: POST /jobs/{id}/invoice and POST /estimates/{id}/invoice (and GraphQL invoiceJob,
// invoiceEstimate) make an invoice from the source's customer, site, contact and stored lines, in one transaction,
// once per Idempotency-Key (financial creates); a job is billed by one live invoice, an estimate converts once.

const t = useTestApp({ rateLimits: highRateLimits });
const { api, gql } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(api);
});

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

/** A job of the place with a priced item line and a taxed labor line. */
async function pricedJob(fields: Record<string, unknown> = {}): Promise<Created> {
  const item = await createItem(api, { unit_price: '12.5' });
  const tax = await createTaxRate(api, { rate: '7.5' });
  return createJob(api, {
    site_id: place.site.id,
    reference: 'JOB-REF',
    lineitems: [
      { item_id: item.id, quantity: '3', discount: '10' },
      { description: 'Labor', quantity: '1.5', unit_price: '80', tax_rate_id: tax.id },
    ],
    ...fields,
  });
}

async function moveTo(a: Client, current: { id: string; etag: string }, status: string): Promise<Created> {
  const res = await patch(a, 'estimates', current, { status });
  expect(res.status, res.text).toBe(200);
  return { id: current.id, etag: res.headers.get('etag')!, record: res.body.data };
}

describe('POST /jobs/{id}/invoice', () => {
  it("makes an invoice of the job's customer, site, contact, reference and lines as stored, so its amount is the job's", async () => {
    const contact = await createContact(api);
    const job = await pricedJob({ contact_id: contact.id });
    // A tax rate changed since the job was priced does not reprice the copied lines.
    const taxRateId = job.record.lineitems[1].tax_rate_id;
    await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', taxRateId), { rate: '20' });
    const res = await api.post(`/jobs/${job.id}/invoice`, undefined, freshKey());
    expect(res.status, res.text).toBe(201);
    const { invoice } = res.body.data;
    expect(res.headers.get('location')).toBe(`/api/v2/invoices/${invoice.id}`);
    expect(invoice).toMatchObject({
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      reference: 'JOB-REF',
      job_id: job.id,
      estimate_id: null,
      status: 'Draft',
      amount: job.record.amount,
      balance: job.record.amount,
    });
    expect(copiedLines(invoice.lineitems)).toEqual(copiedLines(job.record.lineitems));
    expect((await readRecord(api, 'invoices', invoice.id)).record).toEqual(invoice);
  });

  it('requires an Idempotency-Key (400) and replays the first 201 byte for byte for a retry with the same key', async () => {
    const job = await pricedJob();
    expectProblem(await api.post(`/jobs/${job.id}/invoice`), { status: 400, code: 'idempotency_key.required' });
    expectProblem(await api.post(`/jobs/${job.id}/invoice`, undefined, withKey('has space')), { status: 400, code: 'idempotency_key.invalid' });
    const key = randomUUID();
    const first = await api.post(`/jobs/${job.id}/invoice`, { invoice: { reference: 'R1' } }, withKey(key));
    expect(first.status, first.text).toBe(201);
    const again = await api.post(`/jobs/${job.id}/invoice`, { invoice: { reference: 'R1' } }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await api.post(`/jobs/${job.id}/invoice`, { invoice: { reference: 'R2' } }, withKey(key)), { status: 409, code: 'idempotency_key.in_use' });
    expect((await api.get(`/invoices?q=R1`)).body.data.filter((i: { job_id: string }) => i.job_id === job.id)).toHaveLength(1);
  });

  it('bills a job once: a second invoice is 409 job.already_invoiced until the first is deleted', async () => {
    const job = await pricedJob();
    const first = await api.post(`/jobs/${job.id}/invoice`, {}, freshKey());
    expect(first.status, first.text).toBe(201);
    const again = await api.post(`/jobs/${job.id}/invoice`, {}, freshKey());
    expectProblem(again, { status: 409, code: 'job.already_invoiced' });
    expect(again.body.detail).toContain(first.body.data.invoice.id);
    await deleteRecord(api, 'invoices', first.body.data.invoice.id);
    expect((await api.post(`/jobs/${job.id}/invoice`, {}, freshKey())).status).toBe(201);
  });

  it('10 concurrent requests with different keys make exactly one invoice; the others are 409 job.already_invoiced', async () => {
    const job = await pricedJob();
    const results = await Promise.all(Array.from({ length: 10 }, () => api.post(`/jobs/${job.id}/invoice`, {}, freshKey())));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) expectProblem(res, { status: 409, code: 'job.already_invoiced' });
  });

  it('takes invoice fields as overrides (create rules apply) and refuses lineitems, unknown keys and an unknown job', async () => {
    const job = await pricedJob();
    const bad = await api.post(`/jobs/${job.id}/invoice`, { invoice: { invoice_date: '2026-05-02', due_date: '2026-05-01' } }, freshKey());
    expectProblem(bad, { status: 422, code: 'validation.failed', errors: { due_date: true } });
    const lines = await api.post(`/jobs/${job.id}/invoice`, { invoice: { lineitems: [] } }, freshKey());
    expectProblem(lines, { status: 422, code: 'validation.failed', errors: { lineitems: true } });
    expect(lines.body.errors.lineitems).toEqual(['are copied from the job; change them on the invoice afterwards']);
    expectProblem(await api.post(`/jobs/${job.id}/invoice`, { job: {} }, freshKey()), { status: 422, code: 'validation.failed', errors: { job: true } });
    expectProblem(await api.post(`/jobs/${randomUUID()}/invoice`, {}, freshKey()), { status: 404, code: 'resource.not_found' });
    // A failed request leaves its key free: the corrected body under the same key is the one that counts.
    const key = randomUUID();
    expectProblem(await api.post(`/jobs/${job.id}/invoice`, { invoice: { due_date: 'soon' } }, withKey(key)), { status: 422, code: 'validation.failed' });
    const ok = await api.post(`/jobs/${job.id}/invoice`, { invoice: { invoice_date: '2026-05-01', due_date: '2026-06-15', customer_notes: 'Thank you' } }, withKey(key));
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.invoice).toMatchObject({ invoice_date: '2026-05-01', due_date: '2026-06-15', customer_notes: 'Thank you' });
  });
});

describe('POST /estimates/{id}/invoice', () => {
  it("invoices an Accepted estimate (its customer, site, tax rate and stored lines), records it both ways, and converts once", async () => {
    const tax = await createTaxRate(api, { rate: '5' });
    let est = await createEstimate(api, {
      site_id: place.site.id,
      reference: 'EST-REF',
      customer_notes: 'Per our quote',
      tax_rate_id: tax.id,
      lineitems: [{ description: 'Boiler', quantity: '1', unit_price: '1999.99' }],
    });
    expectProblem(await api.post(`/estimates/${est.id}/invoice`, undefined, freshKey()), { status: 409, code: 'estimate.not_accepted' });
    est = await moveTo(api, est, 'Sent');
    est = await moveTo(api, est, 'Accepted');
    expectProblem(await api.post(`/estimates/${est.id}/invoice`), { status: 400, code: 'idempotency_key.required' });
    const res = await api.post(`/estimates/${est.id}/invoice`, undefined, freshKey());
    expect(res.status, res.text).toBe(201);
    const { estimate, invoice } = res.body.data;
    expect(res.headers.get('location')).toBe(`/api/v2/invoices/${invoice.id}`);
    expect(estimate).toMatchObject({ converted_invoice_id: invoice.id, converted_job_id: null });
    expect(estimate.converted_at).toEqual(expect.any(String));
    expect(invoice).toMatchObject({ customer_id: place.customer.id, site_id: place.site.id, reference: 'EST-REF', customer_notes: 'Per our quote', tax_rate_id: tax.id, estimate_id: est.id, job_id: null, amount: est.record.amount });
    expect(copiedLines(invoice.lineitems)).toEqual(copiedLines(est.record.lineitems));
    expectProblem(await api.post(`/estimates/${est.id}/invoice`, undefined, freshKey()), { status: 409, code: 'estimate.already_converted' });
    expectProblem(await api.post(`/estimates/${est.id}/convert`), { status: 409, code: 'estimate.already_converted' });
  });

  it('refuses to invoice an estimate already converted into a job (the job is invoiced instead, carrying estimate_id)', async () => {
    let est = await createEstimate(api, { site_id: place.site.id, lineitems: [{ description: 'Work', quantity: '2', unit_price: '50' }] });
    est = await moveTo(api, est, 'Sent');
    est = await moveTo(api, est, 'Accepted');
    const converted = await api.post(`/estimates/${est.id}/convert`);
    expect(converted.status, converted.text).toBe(201);
    const conflict = await api.post(`/estimates/${est.id}/invoice`, undefined, freshKey());
    expectProblem(conflict, { status: 409, code: 'estimate.already_converted' });
    expect(conflict.body.detail).toContain(`/jobs/${converted.body.data.job.id}/invoice`);
    const billed = await api.post(`/jobs/${converted.body.data.job.id}/invoice`, undefined, freshKey());
    expect(billed.status, billed.text).toBe(201);
    expect(billed.body.data.invoice).toMatchObject({ job_id: converted.body.data.job.id, estimate_id: est.id, amount: '100.00' });
  });
});

describe('invoicing over GraphQL', () => {
  const INVOICE_JOB = `mutation($id: ID!, $key: String!, $invoice: InvoiceJobInvoiceInput) { invoiceJob(id: $id, idempotencyKey: $key, invoice: $invoice) { invoice { id jobId amount job { id } } userErrors { field code } } }`;

  it('invoiceJob takes idempotencyKey: a retry returns the same invoice; job.invoices lists it; a second key is job.already_invoiced', async () => {
    const job = await pricedJob();
    const key = randomUUID();
    const first = await gql(INVOICE_JOB, { id: job.id, key, invoice: { reference: 'G1' } });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const invoice = first.body.data.invoiceJob.invoice;
    expect(invoice).toMatchObject({ jobId: job.id, amount: job.record.amount, job: { id: job.id } });
    expect((await gql(INVOICE_JOB, { id: job.id, key, invoice: { reference: 'G1' } })).body.data.invoiceJob.invoice.id).toBe(invoice.id);
    const other = await gql(INVOICE_JOB, { id: job.id, key: randomUUID() });
    expect(other.body.errors?.[0]?.extensions?.code ?? other.body.data?.invoiceJob?.userErrors?.[0]?.code).toBe('job.already_invoiced');
    const read = await gql(`query($id: ID!) { job(id: $id) { invoices { nodes { id } } } }`, { id: job.id });
    expect(read.body.data.job.invoices.nodes).toEqual([{ id: invoice.id }]);
  });

  it('invoiceEstimate requires idempotencyKey in the schema', async () => {
    const res = await gql(`mutation { invoiceEstimate(id: "${randomUUID()}") { invoice { id } } }`);
    expect(res.body.errors?.[0].message).toMatch(/idempotencyKey/);
  });
});
