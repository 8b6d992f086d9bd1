import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import { createInvoice, freshKey } from '../helpers/factories/invoices.ts';
import { deleteRecord, patch, readRecord, unique } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { expectProblem } from '../helpers/problem.ts';

// Invoices over REST and GraphQL: fields and their defaults (invoice date in the account's time zone, due date
// from its payment terms), the shared line items with a server-computed amount and balance, the list exactly as
// the spec states it (sort enum, customer_id, q over amounts) plus date filters, and the conventions.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api, gql } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(api);
});

describe('invoices: fields, defaults and amounts', () => {
  it('persists every field, numbers the invoice and starts it in the first status (Draft)', async () => {
    const tax = await createTaxRate(api, { rate: '10' });
    const fields = { customer_id: place.customer.id, site_id: place.site.id, invoice_date: '2026-11-02', due_date: '2026-12-02', reference: 'ERP-77', customer_notes: 'Thanks', tax_rate_id: tax.id };
    const created = await createInvoice(api, fields);
    expect(created.record).toMatchObject({ ...fields, status: 'Draft', amount: '0.00', balance: '0.00', job_id: null, estimate_id: null, lineitems: [], labels: [], custom_fields: {} });
    expect(created.record.number).toMatch(/^\d+$/);
    expect((await readRecord(api, 'invoices', created.id)).record).toEqual(created.record);
  });

  it("defaults invoice_date to today in the account's time zone and due_date to it plus the payment terms", async () => {
    clock.pin('2026-11-24T23:30:00Z');
    try {
      expect((await createInvoice(api, { customer_id: place.customer.id })).record).toMatchObject({ invoice_date: '2026-11-24', due_date: '2026-12-24' });
      await t.app.domain.admin.updateAccount(tenant.accountId, { timeZone: 'Pacific/Auckland', paymentTermsDays: 14 });
      // Auckland is 13 hours ahead: 23:30 UTC is already the 25th there (the key's account is read again after the cache).
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await api.get('/me')).body.data.account).toMatchObject({ currency: 'USD', time_zone: 'Pacific/Auckland', payment_terms_days: 14 });
      expect((await createInvoice(api, { customer_id: place.customer.id })).record).toMatchObject({ invoice_date: '2026-11-25', due_date: '2026-12-09' });
      expect((await createInvoice(api, { customer_id: place.customer.id, invoice_date: '2027-01-30' })).record).toMatchObject({ due_date: '2027-02-13' });
    } finally {
      clock.release();
      await t.app.domain.admin.updateAccount(tenant.accountId, { timeZone: 'UTC', paymentTermsDays: 30 });
    }
  });

  it('requires the customer, keeps the site to that customer and the due date on or after the invoice date (422 naming each field)', async () => {
    const other = await createPlace(api);
    expectProblem(await api.post('/invoices', { invoice: {} }, freshKey()), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    expectProblem(await api.post('/invoices', { invoice: { customer_id: place.customer.id, site_id: other.site.id } }, freshKey()), { status: 422, code: 'validation.failed', errors: { site_id: true } });
    expectProblem(await api.post('/invoices', { invoice: { customer_id: place.customer.id, invoice_date: '2026-05-02', due_date: '2026-05-01' } }, freshKey()), {
      status: 422,
      code: 'validation.failed',
      errors: { due_date: true },
    });
    const invoice = await createInvoice(api, { customer_id: place.customer.id, invoice_date: '2026-05-01', due_date: '2026-05-31' });
    expectProblem(await patch(api, 'invoices', invoice, { due_date: '2026-04-30' }), { status: 422, code: 'validation.failed', errors: { due_date: true } });
    expectProblem(await patch(api, 'invoices', invoice, { customer_id: null }), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    expectProblem(await patch(api, 'invoices', invoice, { amount: '5.00' }), { status: 422, code: 'validation.failed', errors: { amount: true } });
    expectProblem(await patch(api, 'invoices', invoice, { balance: '0.00' }), { status: 422, code: 'validation.failed', errors: { balance: true } });
  });

  it('computes amount from the lines (customer pricing, tax) and balance equal to it while no payment applies', async () => {
    const item = await createItem(api, { name: 'Filter', unit_price: '20.00' });
    const tax = await createTaxRate(api, { rate: '8.25' });
    const invoice = await createInvoice(api, {
      customer_id: place.customer.id,
      lineitems: [
        { item_id: item.id, quantity: '2' },
        { description: 'Labor', quantity: '1.5', unit_price: '80', tax_rate_id: tax.id },
      ],
    });
    // 2 × 20.00 = 40.00; 1.5 × 80 = 120.00 + 8.25% = 9.90 → 129.90; total 169.90.
    expect(invoice.record.lineitems.map((l: any) => [l.description, l.unit_price, l.line_total])).toEqual([
      ['Filter', '20.0000', '40.00'],
      ['Labor', '80.0000', '129.90'],
    ]);
    expect(invoice.record).toMatchObject({ amount: '169.90', balance: '169.90' });
    const updated = await patch(api, 'invoices', invoice, { lineitems: [{ id: invoice.record.lineitems[0].id, quantity: '1' }] });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ amount: '20.00', balance: '20.00' });
  });

  it('refuses a different number on update with 422 number.immutable; the same number is a no-op', async () => {
    const invoice = await createInvoice(api, { customer_id: place.customer.id, number: unique('INV-') });
    expectProblem(await patch(api, 'invoices', invoice, { number: 'other' }), { status: 422, code: 'number.immutable' });
    expect((await patch(api, 'invoices', invoice, { number: invoice.record.number, reference: 'same' })).status).toBe(200);
  });

  it('soft-deletes with If-Match: the invoice is no longer served', async () => {
    const invoice = await createInvoice(api, { customer_id: place.customer.id });
    await deleteRecord(api, 'invoices', invoice.id);
    expectProblem(await api.get(`/invoices/${invoice.id}`), { status: 404, code: 'resource.not_found' });
  });
});

describe('invoices: the list', () => {
  let customerId: string;
  let organization: string;
  const made: Record<string, { id: string }> = {};
  beforeAll(async () => {
    organization = unique('Org');
    customerId = (await createCustomer(api, { organization })).id;
    made.a = await createInvoice(api, { customer_id: customerId, invoice_date: '2026-01-10', due_date: '2026-02-10', reference: 'first', lineitems: [{ description: 'x', quantity: '1', unit_price: '125.50' }] });
    made.b = await createInvoice(api, { customer_id: customerId, invoice_date: '2026-03-05', due_date: '2026-03-20', reference: 'second' });
    made.c = await createInvoice(api, { customer_id: customerId, invoice_date: '2026-02-01', due_date: '2026-04-01', reference: 'third' });
  });
  const ids = async (query: string) => {
    const res = await api.get(`/invoices?customer_id=${customerId}&${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.map((i: any) => i.reference);
  };

  it('sorts by each field of the spec, each also descending; default -created_at', async () => {
    expect(await ids('')).toEqual(['third', 'second', 'first']);
    expect(await ids('sort=invoice_date')).toEqual(['first', 'third', 'second']);
    expect(await ids('sort=-invoice_date')).toEqual(['second', 'third', 'first']);
    expect(await ids('sort=due_date')).toEqual(['first', 'second', 'third']);
    for (const sort of ['created_at', 'updated_at', 'number', 'status', '-number', '-status']) expect((await api.get(`/invoices?sort=${sort}`)).status).toBe(200);
    expectProblem(await api.get('/invoices?sort=amount'), { status: 400, code: 'sort.invalid' });
  });

  it('pages through a date sort with cursors', async () => {
    const first = await api.get(`/invoices?customer_id=${customerId}&sort=invoice_date&limit=2`);
    expect(first.body.data.map((i: any) => i.reference)).toEqual(['first', 'third']);
    const next = await api.get(`/invoices?customer_id=${customerId}&limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(next.body.data.map((i: any) => i.reference)).toEqual(['second']);
    expect(next.body.next_cursor).toBeNull();
  });

  it('filters invoice_date and due_date ranges by calendar date; a malformed date is 400 filter.invalid', async () => {
    expect(await ids('invoice_date[gte]=2026-02-01&sort=invoice_date')).toEqual(['third', 'second']);
    expect(await ids('due_date[lt]=2026-03-20')).toEqual(['first']);
    expect(await ids('due_date[lte]=2026-03-20&sort=due_date')).toEqual(['first', 'second']);
    expectProblem(await api.get('/invoices?invoice_date[gte]=2026-02-30'), { status: 400, code: 'filter.invalid' });
    expectProblem(await api.get('/invoices?due_date[gt]=tomorrow'), { status: 400, code: 'filter.invalid' });
  });

  it('searches q over number, reference, amount, balance, status and the customer organization, which follows a rename', async () => {
    expect(await ids('q=125.50')).toEqual(['first']);
    expect(await ids('q=second')).toEqual(['second']);
    expect((await api.get(`/invoices?q=${organization}`)).body.data).toHaveLength(3);
    const renamed = unique('Renamed');
    const customer = await readRecord(api, 'customers', customerId);
    await updateCustomer(api, customer, { organization: renamed });
    expect((await api.get(`/invoices?q=${renamed}`)).body.data).toHaveLength(3);
  });
});

describe('invoices over GraphQL', () => {
  const CREATE = `mutation($input: CreateInvoiceInput!, $key: String!) { createInvoice(input: $input, idempotencyKey: $key) { invoice { id number amount balance customer { id } } etag userErrors { field code } } }`;

  it('createInvoice takes idempotencyKey: a retry with the same key and input returns the same invoice', async () => {
    const key = randomUUID();
    const input = { customerId: place.customer.id, reference: unique('gql') };
    const first = await gql(CREATE, { input, key });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const invoice = first.body.data.createInvoice.invoice;
    expect(invoice).toMatchObject({ amount: '0.00', balance: '0.00', customer: { id: place.customer.id } });
    const again = await gql(CREATE, { input, key });
    expect(again.body.data.createInvoice.invoice.id).toBe(invoice.id);
    expect((await api.get(`/invoices?q=${input.reference}`)).body.data).toHaveLength(1);
    const other = await gql(CREATE, { input: { ...input, reference: 'changed' }, key });
    expect(other.body.errors?.[0]?.extensions?.code).toBe('idempotency_key.in_use');
  });

  it('refuses createInvoice without idempotencyKey in validation, and a malformed key with idempotency_key.invalid', async () => {
    const missing = await gql(`mutation { createInvoice(input: { customerId: "${place.customer.id}" }) { invoice { id } } }`);
    expect(missing.body.errors?.[0].message).toMatch(/idempotencyKey/);
    const bad = await gql(CREATE, { input: { customerId: place.customer.id }, key: 'has space' });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('idempotency_key.invalid');
  });
});
