import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import { copiedLines } from '../helpers/factories/invoices.ts';
import { createRecord, deleteRecord, freshKey, ifMatch, readRecord, unique, updateRecord, type Created } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { expectProblem } from '../helpers/problem.ts';

// Sales orders over REST and GraphQL: fields and their defaults (order date in the account's time zone), the
// shared line items with a server-computed amount, the conventions (number and number.immutable, statuses,
// labels, soft delete), a financial create (Idempotency-Key), the list (filters, sorts, q over amounts and the
// customer's organization), and POST /sales_orders/{id}/invoice: an invoice from the order's customer, site,
// contact, notes, tax rate and stored lines, once per key, one live invoice per sales order.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api, gql } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(api);
});

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
const createSalesOrder = (fields: Record<string, unknown>): Promise<Created> => createRecord(api, 'sales_orders', 'sales_order', fields);
const patchSalesOrder = (current: { id: string; etag: string }, fields: Record<string, unknown>) => api.patch(`/sales_orders/${current.id}`, { sales_order: fields }, ifMatch(current.etag));

/** A sales order of the place with a priced item line and a line taxed by the order's default tax rate. */
async function pricedOrder(fields: Record<string, unknown> = {}): Promise<Created> {
  const item = await createItem(api, { unit_price: '12.5' });
  const tax = await createTaxRate(api, { rate: '7.5' });
  return createSalesOrder({
    customer_id: place.customer.id,
    site_id: place.site.id,
    reference: 'PO-REF',
    customer_notes: 'Deliver to the back door',
    tax_rate_id: tax.id,
    lineitems: [
      { item_id: item.id, quantity: '3', discount: '10', tax_rate_id: null },
      { description: 'Install', quantity: '1.5', unit_price: '80' },
    ],
    ...fields,
  });
}

describe('sales orders: fields, defaults and amounts', () => {
  it('persists every field, numbers the order and starts it in the first status (Draft)', async () => {
    const tax = await createTaxRate(api, { rate: '10' });
    const contact = await createContact(api);
    const fields = { customer_id: place.customer.id, site_id: place.site.id, contact_id: contact.id, order_date: '2026-11-02', reference: 'PO-77', customer_notes: 'Thanks', tax_rate_id: tax.id };
    const created = await createSalesOrder(fields);
    expect(created.record).toMatchObject({ ...fields, status: 'Draft', amount: '0.00', lineitems: [], labels: [], custom_fields: {} });
    expect(created.record.number).toMatch(/^\d+$/);
    expect((await readRecord(api, 'sales_orders', created.id)).record).toEqual(created.record);
    const statuses = await api.get('/statuses?related_name=SalesOrder');
    expect(statuses.body.data.map((s: { display_name: string }) => s.display_name)).toEqual(['Draft', 'Confirmed', 'Fulfilled', 'Cancelled']);
    const confirmed = await patchSalesOrder(created, { status: 'Confirmed' });
    expect(confirmed.status, confirmed.text).toBe(200);
    expectProblem(await patchSalesOrder({ id: created.id, etag: confirmed.headers.get('etag')! }, { status: 'Shipped' }), { status: 422, code: 'status.transition_invalid' });
  });

  it("defaults order_date to today in the account's time zone", async () => {
    clock.pin('2026-11-24T23:30:00Z');
    try {
      expect((await createSalesOrder({ customer_id: place.customer.id })).record.order_date).toBe('2026-11-24');
      await t.app.domain.admin.updateAccount(tenant.accountId, { timeZone: 'Pacific/Auckland' });
      // Auckland is 13 hours ahead: 23:30 UTC is already the 25th there (the key's account is read again after the cache).
      await new Promise((resolve) => setTimeout(resolve, 2100));
      expect((await createSalesOrder({ customer_id: place.customer.id })).record.order_date).toBe('2026-11-25');
      expect((await createSalesOrder({ customer_id: place.customer.id, order_date: '2027-01-30' })).record.order_date).toBe('2027-01-30');
    } finally {
      clock.release();
      await t.app.domain.admin.updateAccount(tenant.accountId, { timeZone: 'UTC' });
    }
  });

  it('requires the customer and keeps the site to that customer (422 naming each field); amount is read-only', async () => {
    const other = await createPlace(api);
    expectProblem(await api.post('/sales_orders', { sales_order: {} }, freshKey()), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    expectProblem(await api.post('/sales_orders', { sales_order: { customer_id: place.customer.id, site_id: other.site.id } }, freshKey()), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: true },
    });
    expectProblem(await api.post('/sales_orders', { sales_order: { customer_id: place.customer.id, order_date: '2026-02-30' } }, freshKey()), {
      status: 422,
      code: 'validation.failed',
      errors: { order_date: true },
    });
    const order = await createSalesOrder({ customer_id: place.customer.id, site_id: place.site.id });
    expectProblem(await patchSalesOrder(order, { customer_id: other.customer.id }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
    expectProblem(await patchSalesOrder(order, { customer_id: null }), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    expectProblem(await patchSalesOrder(order, { order_date: null }), { status: 422, code: 'validation.failed', errors: { order_date: true } });
    expectProblem(await patchSalesOrder(order, { amount: '5.00' }), { status: 422, code: 'validation.failed', errors: { amount: true } });
    // Moving the order to the other customer with that customer's site is one valid change.
    const moved = await patchSalesOrder(order, { customer_id: other.customer.id, site_id: other.site.id });
    expect(moved.status, moved.text).toBe(200);
  });

  it("computes amount from the lines (customer pricing, the order's default tax rate) and follows snapshot updates", async () => {
    const order = await pricedOrder();
    // 3 × 12.50 = 37.50 − 10% = 33.75 (no tax); 1.5 × 80 = 120.00 + 7.5% (the order's tax rate) = 9.00 → 129.00.
    expect(order.record.lineitems.map((l: any) => [l.unit_price, l.applied_tax_rate, l.line_total])).toEqual([
      ['12.5000', null, '33.75'],
      ['80.0000', '7.5000', '129.00'],
    ]);
    expect(order.record.amount).toBe('162.75');
    const updated = await patchSalesOrder(order, { lineitems: [{ id: order.record.lineitems[1].id, quantity: '1' }] });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data.lineitems).toHaveLength(1);
    expect(updated.body.data.amount).toBe('86.00');
    expect(updated.headers.get('etag')).not.toBe(order.etag);
    const emptied = await patchSalesOrder({ id: order.id, etag: updated.headers.get('etag')! }, { lineitems: [] });
    expect(emptied.body.data).toMatchObject({ amount: '0.00', lineitems: [] });
    for (const [line, field] of [[{ description: 'x', unit_price: '1' }, 'quantity'], [{ description: 'y', quantity: '1' }, 'unit_price']] as const) {
      const res = await api.post('/sales_orders', { sales_order: { customer_id: place.customer.id, lineitems: [line] } }, freshKey());
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { [`lineitems.0.${field}`]: true } });
    }
  });

  it('keeps a given number, refuses a taken one, and refuses a different number on update with 422 number.immutable', async () => {
    const number = unique('SO-');
    const order = await createSalesOrder({ customer_id: place.customer.id, number });
    expect(order.record.number).toBe(number);
    expectProblem(await api.post('/sales_orders', { sales_order: { customer_id: place.customer.id, number } }, freshKey()), { status: 422, code: 'validation.failed', errors: { number: true } });
    expectProblem(await patchSalesOrder(order, { number: 'other' }), { status: 422, code: 'number.immutable' });
    expect((await patchSalesOrder(order, { number, reference: 'same' })).status).toBe(200);
  });

  it('is a financial create: no Idempotency-Key is 400, a retry replays the 201 byte for byte, another body is 409', async () => {
    const customer = await createCustomer(api);
    const list = async () => (await api.get(`/sales_orders?customer_id=${customer.id}`)).body.data;
    expectProblem(await api.post('/sales_orders', { sales_order: { customer_id: customer.id } }), { status: 400, code: 'idempotency_key.required' });
    expectProblem(await api.post('/sales_orders', { sales_order: { customer_id: customer.id } }, withKey('has space')), { status: 400, code: 'idempotency_key.invalid' });
    expect(await list()).toEqual([]);
    const key = randomUUID();
    const body = { sales_order: { customer_id: customer.id, reference: 'R-1', lineitems: [{ description: 'Part', quantity: '2', unit_price: '5' }] } };
    const first = await api.post('/sales_orders', body, withKey(key));
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.headers.get('location')).toBe(`/api/v2/sales_orders/${first.body.data.id}`);
    const again = await api.post('/sales_orders', { sales_order: { lineitems: body.sales_order.lineitems, reference: 'R-1', customer_id: customer.id } }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await api.post('/sales_orders', { sales_order: { customer_id: customer.id, reference: 'R-2' } }, withKey(key));
    expectProblem(other, { status: 409, code: 'idempotency_key.in_use' });
    expect(other.headers.get('retry-after')).toBeNull();
    expect(await list()).toHaveLength(1);
    // A failed create leaves its key free for the corrected body.
    const retried = randomUUID();
    expectProblem(await api.post('/sales_orders', { sales_order: { customer_id: customer.id, order_date: 'soon' } }, withKey(retried)), { status: 422, code: 'validation.failed' });
    expect((await api.post('/sales_orders', { sales_order: { customer_id: customer.id, order_date: '2026-06-01' } }, withKey(retried))).status).toBe(201);
  });

  it('soft-deletes with If-Match: the order is no longer served', async () => {
    const order = await createSalesOrder({ customer_id: place.customer.id });
    expectProblem(await api.delete(`/sales_orders/${order.id}`), { status: 428, code: 'precondition.required' });
    await deleteRecord(api, 'sales_orders', order.id);
    expectProblem(await api.get(`/sales_orders/${order.id}`), { status: 404, code: 'resource.not_found' });
  });
});

describe('sales orders: the list', () => {
  let customerId: string;
  let organization: string;
  beforeAll(async () => {
    organization = unique('Org');
    customerId = (await createCustomer(api, { organization })).id;
    await createSalesOrder({ customer_id: customerId, order_date: '2026-01-10', reference: 'first', lineitems: [{ description: 'x', quantity: '1', unit_price: '125.50' }] });
    const second = await createSalesOrder({ customer_id: customerId, order_date: '2026-03-05', reference: 'second' });
    await updateRecord(api, 'sales_orders', 'sales_order', second, { status: 'Confirmed' });
    await createSalesOrder({ customer_id: customerId, order_date: '2026-02-01', reference: 'third' });
  });
  const references = async (query: string) => {
    const res = await api.get(`/sales_orders?customer_id=${customerId}&${query}`);
    expect(res.status, res.text).toBe(200);
    return res.body.data.map((o: any) => o.reference);
  };

  it('sorts by created_at, updated_at, order_date, number and status, each also descending; default -created_at', async () => {
    expect(await references('')).toEqual(['third', 'second', 'first']);
    expect(await references('sort=created_at')).toEqual(['first', 'second', 'third']);
    expect(await references('sort=order_date')).toEqual(['first', 'third', 'second']);
    expect(await references('sort=-order_date')).toEqual(['second', 'third', 'first']);
    expect(await references('sort=number')).toEqual(['first', 'second', 'third']);
    expect(await references('sort=-updated_at')).toEqual(['third', 'second', 'first']);
    expect((await references('sort=status'))[0]).toBe('second');
    expect((await references('sort=-status'))[2]).toBe('second');
    expectProblem(await api.get('/sales_orders?sort=amount'), { status: 400, code: 'sort.invalid' });
  });

  it('filters status, status[in], order_date and created_at ranges; a malformed date is 400 filter.invalid', async () => {
    expect(await references('status=Confirmed')).toEqual(['second']);
    expect(await references('status[in]=Draft,Cancelled&sort=order_date')).toEqual(['first', 'third']);
    expect(await references('order_date[gte]=2026-02-01&sort=order_date')).toEqual(['third', 'second']);
    expect(await references('order_date[lt]=2026-02-01')).toEqual(['first']);
    expect(await references('created_at[gt]=2000-01-01T00:00:00Z&updated_at[lt]=2999-01-01T00:00:00Z')).toHaveLength(3);
    expectProblem(await api.get('/sales_orders?order_date[gte]=2026-02-30'), { status: 400, code: 'filter.invalid' });
    expectProblem(await api.get('/sales_orders?site_id=x'), { status: 400, code: 'filter.invalid' });
  });

  it('searches q over number, reference, amount, status and the customer organization, which follows a rename', async () => {
    expect(await references('q=125.50')).toEqual(['first']);
    expect(await references('q=second')).toEqual(['second']);
    expect(await references('q=confirmed')).toEqual(['second']);
    expect((await api.get(`/sales_orders?q=${organization}`)).body.data).toHaveLength(3);
    const renamed = unique('Renamed');
    await updateCustomer(api, await readRecord(api, 'customers', customerId), { organization: renamed });
    expect((await api.get(`/sales_orders?q=${renamed}`)).body.data).toHaveLength(3);
    expect((await api.get(`/sales_orders?q=${organization}`)).body.data).toHaveLength(0);
  });
});

describe('POST /sales_orders/{id}/invoice', () => {
  it("makes an invoice of the order's customer, site, contact, reference, notes, tax rate and lines as stored, so its amount is the order's", async () => {
    const contact = await createContact(api);
    const order = await pricedOrder({ contact_id: contact.id });
    // A tax rate changed since the order was priced does not reprice the copied lines.
    const taxRateId = order.record.tax_rate_id;
    await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', taxRateId), { rate: '20' });
    const res = await api.post(`/sales_orders/${order.id}/invoice`, undefined, freshKey());
    expect(res.status, res.text).toBe(201);
    const { invoice } = res.body.data;
    expect(res.headers.get('location')).toBe(`/api/v2/invoices/${invoice.id}`);
    expect(invoice).toMatchObject({
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      reference: 'PO-REF',
      customer_notes: 'Deliver to the back door',
      tax_rate_id: taxRateId,
      sales_order_id: order.id,
      job_id: null,
      estimate_id: null,
      status: 'Draft',
      amount: '162.75',
      balance: '162.75',
    });
    expect(copiedLines(invoice.lineitems)).toEqual(copiedLines(order.record.lineitems));
    expect(invoice.lineitems.map((l: { id: string }) => l.id)).not.toEqual(order.record.lineitems.map((l: { id: string }) => l.id));
    expect((await readRecord(api, 'invoices', invoice.id)).record).toEqual(invoice);
    // The order itself is unchanged (status, ETag, lines).
    const after = await readRecord(api, 'sales_orders', order.id);
    expect(after.etag).toBe(order.etag);
    expect(after.record).toEqual(order.record);
  });

  it('requires an Idempotency-Key (400) and replays the first 201 byte for byte for a retry with the same key', async () => {
    const order = await pricedOrder();
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`), { status: 400, code: 'idempotency_key.required' });
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, undefined, withKey('has space')), { status: 400, code: 'idempotency_key.invalid' });
    const key = randomUUID();
    const first = await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { reference: 'R1' } }, withKey(key));
    expect(first.status, first.text).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { reference: 'R1' } }, withKey(key));
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { reference: 'R2' } }, withKey(key)), { status: 409, code: 'idempotency_key.in_use' });
    expect((await api.get('/invoices?q=R1')).body.data.filter((i: { sales_order_id: string }) => i.sales_order_id === order.id)).toHaveLength(1);
  });

  it('bills a sales order once: a second invoice is 409 sales_order.already_invoiced until the first is deleted', async () => {
    const order = await pricedOrder();
    const first = await api.post(`/sales_orders/${order.id}/invoice`, {}, freshKey());
    expect(first.status, first.text).toBe(201);
    const again = await api.post(`/sales_orders/${order.id}/invoice`, {}, freshKey());
    expectProblem(again, { status: 409, code: 'sales_order.already_invoiced' });
    expect(again.body.detail).toContain(first.body.data.invoice.id);
    expect(again.body.detail).toContain(first.body.data.invoice.number);
    await deleteRecord(api, 'invoices', first.body.data.invoice.id);
    const billed = await api.post(`/sales_orders/${order.id}/invoice`, {}, freshKey());
    expect(billed.status, billed.text).toBe(201);
    expect(billed.body.data.invoice).toMatchObject({ sales_order_id: order.id, amount: order.record.amount });
    expect(billed.body.data.invoice.id).not.toBe(first.body.data.invoice.id);
  });

  it('10 concurrent requests with different keys make exactly one invoice; the others are 409 sales_order.already_invoiced', async () => {
    const order = await pricedOrder();
    const results = await Promise.all(Array.from({ length: 10 }, () => api.post(`/sales_orders/${order.id}/invoice`, {}, freshKey())));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) expectProblem(res, { status: 409, code: 'sales_order.already_invoiced' });
  });

  it('takes invoice fields as overrides (create rules apply) and refuses lineitems, unknown keys and an unknown or deleted order', async () => {
    const order = await pricedOrder();
    const other = await createPlace(api);
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { invoice_date: '2026-05-02', due_date: '2026-05-01' } }, freshKey()), {
      status: 422,
      code: 'validation.failed',
      errors: { due_date: true },
    });
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { customer_id: other.customer.id } }, freshKey()), { status: 422, code: 'validation.failed', errors: { site_id: true } });
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { lineitems: [] } }, freshKey()), { status: 422, code: 'validation.failed', errors: { lineitems: true } });
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { sales_order_id: randomUUID() } }, freshKey()), { status: 422, code: 'validation.failed', errors: { sales_order_id: true } });
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { sales_order: {} }, freshKey()), { status: 422, code: 'validation.failed', errors: { sales_order: true } });
    expectProblem(await api.post(`/sales_orders/${randomUUID()}/invoice`, {}, freshKey()), { status: 404, code: 'resource.not_found' });
    // A failed request leaves its key free: the corrected body under the same key is the one that counts.
    const key = randomUUID();
    expectProblem(await api.post(`/sales_orders/${order.id}/invoice`, { invoice: { due_date: 'soon' } }, withKey(key)), { status: 422, code: 'validation.failed' });
    const ok = await api.post(
      `/sales_orders/${order.id}/invoice`,
      { invoice: { invoice_date: '2026-05-01', due_date: '2026-06-15', customer_notes: 'Thank you', reference: 'INV-REF' } },
      withKey(key),
    );
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.invoice).toMatchObject({ invoice_date: '2026-05-01', due_date: '2026-06-15', customer_notes: 'Thank you', reference: 'INV-REF', sales_order_id: order.id });
    const gone = await pricedOrder();
    await deleteRecord(api, 'sales_orders', gone.id);
    expectProblem(await api.post(`/sales_orders/${gone.id}/invoice`, {}, freshKey()), { status: 404, code: 'resource.not_found' });
  });

  it('needs sales_orders:read and invoices:write', async () => {
    const order = await pricedOrder();
    const admin = t.app.domain.admin;
    const invoicesOnly = await admin.createKey({ userId: tenant.userId, scopes: ['invoices:write'] });
    const denied = expectProblem(await t.client(invoicesOnly.token).post(`/sales_orders/${order.id}/invoice`, {}, freshKey()), { status: 403, code: 'auth.scope_missing' });
    expect(denied.required_scope).toBe('sales_orders:read');
    const ordersOnly = await admin.createKey({ userId: tenant.userId, scopes: ['sales_orders:write'] });
    const refused = expectProblem(await t.client(ordersOnly.token).post(`/sales_orders/${order.id}/invoice`, {}, freshKey()), { status: 403, code: 'auth.scope_missing' });
    expect(refused.required_scope).toBe('invoices:write');
  });
});

describe('sales orders over GraphQL', () => {
  const CREATE = `mutation($input: CreateSalesOrderInput!, $key: String!) {
    createSalesOrder(input: $input, idempotencyKey: $key) { salesOrder { id number status orderDate amount customer { id } lineitems { nodes { lineTotal } } } etag userErrors { field code } }
  }`;
  const INVOICE = `mutation($id: ID!, $key: String!, $invoice: InvoiceSalesOrderInvoiceInput) {
    invoiceSalesOrder(id: $id, idempotencyKey: $key, invoice: $invoice) { invoice { id salesOrderId amount salesOrder { id } } userErrors { field code } }
  }`;

  it('createSalesOrder takes idempotencyKey: a retry with the same key and input returns the same order; another input is idempotency_key.in_use', async () => {
    const key = randomUUID();
    const input = { customerId: place.customer.id, reference: unique('gql'), orderDate: '2026-04-01', lineitems: [{ description: 'Part', quantity: '2', unitPrice: '9.99' }] };
    const first = await gql(CREATE, { input, key });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const order = first.body.data.createSalesOrder.salesOrder;
    expect(order).toMatchObject({ status: 'Draft', orderDate: '2026-04-01', amount: '19.98', customer: { id: place.customer.id }, lineitems: { nodes: [{ lineTotal: '19.98' }] } });
    const again = await gql(CREATE, { input, key });
    expect(again.body.data.createSalesOrder.salesOrder.id).toBe(order.id);
    expect((await api.get(`/sales_orders?q=${input.reference}`)).body.data).toHaveLength(1);
    const other = await gql(CREATE, { input: { ...input, reference: 'changed' }, key });
    expect(other.body.errors?.[0]?.extensions?.code).toBe('idempotency_key.in_use');
    const missing = await gql(`mutation { createSalesOrder(input: { customerId: "${place.customer.id}" }) { salesOrder { id } } }`);
    expect(missing.body.errors?.[0].message).toMatch(/idempotencyKey/);
    const invalid = await gql(CREATE, { input: { customerId: place.customer.id, siteId: (await createPlace(api)).site.id }, key: randomUUID() });
    expect(invalid.body.data.createSalesOrder.userErrors).toEqual([{ field: ['input', 'siteId'], code: 'validation.failed' }]);
  });

  it('invoiceSalesOrder takes idempotencyKey: a retry returns the same invoice; salesOrder.invoices lists it; a second key is sales_order.already_invoiced', async () => {
    const order = await pricedOrder();
    const key = randomUUID();
    const first = await gql(INVOICE, { id: order.id, key, invoice: { reference: 'G1' } });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const invoice = first.body.data.invoiceSalesOrder.invoice;
    expect(invoice).toMatchObject({ salesOrderId: order.id, amount: order.record.amount, salesOrder: { id: order.id } });
    expect((await gql(INVOICE, { id: order.id, key, invoice: { reference: 'G1' } })).body.data.invoiceSalesOrder.invoice.id).toBe(invoice.id);
    const other = await gql(INVOICE, { id: order.id, key: randomUUID() });
    expect(other.body.errors?.[0]?.extensions?.code ?? other.body.data?.invoiceSalesOrder?.userErrors?.[0]?.code).toBe('sales_order.already_invoiced');
    const read = await gql(`query($id: ID!) { salesOrder(id: $id) { amount invoices { nodes { id reference } } } }`, { id: order.id });
    expect(read.body.data.salesOrder).toEqual({ amount: order.record.amount, invoices: { nodes: [{ id: invoice.id, reference: 'G1' }] } });
    const missing = await gql(`mutation { invoiceSalesOrder(id: "${order.id}") { invoice { id } } }`);
    expect(missing.body.errors?.[0].message).toMatch(/idempotencyKey/);
  });

  it('lists sales orders with filters and sorts', async () => {
    const customer = await createCustomer(api);
    for (const [orderDate, reference] of [['2026-07-01', 'a'], ['2026-06-01', 'b']]) await createSalesOrder({ customer_id: customer.id, order_date: orderDate, reference });
    const res = await gql(`query($id: ID!) { salesOrders(filter: { customerId: $id }, sort: { field: ORDER_DATE, direction: ASC }) { nodes { reference orderDate } } }`, { id: customer.id });
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    expect(res.body.data.salesOrders.nodes).toEqual([
      { reference: 'b', orderDate: '2026-06-01' },
      { reference: 'a', orderDate: '2026-07-01' },
    ]);
  });
});
