import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import { createInvoice, freshKey } from '../helpers/factories/invoices.ts';
import { createRecord, ifMatch, idsOf, patch, readRecord, unique, updateRecord, type Created } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';

// Payments over REST and GraphQL: fields and defaults, applications to the customer's invoices and the balance
// invariant (balance = amount − Σ applications of live payments, never negative), under concurrency too;
// deleting a payment voids it and restores the balances; the invoice's relations to its payments.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { api, gql } = useTenant(t);
let customer: Created;
beforeAll(async () => {
  customer = await createCustomer(api);
});

/** An invoice of the customer whose amount is `amount` (one untaxed line). */
function invoiceOf(customerId: string, amount: string): Promise<Created> {
  return createInvoice(api, { customer_id: customerId, lineitems: [{ description: 'Work', quantity: '1', unit_price: amount }] });
}

function createPayment(fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'payments', 'payment', { method: 'check', ...fields });
}

async function balanceOf(invoice: { id: string }): Promise<string> {
  return (await readRecord(api, 'invoices', invoice.id)).record.balance;
}

describe('payments: fields and defaults', () => {
  it("persists every field, defaults payment_date to today in the account's time zone and serves unapplied_amount", async () => {
    clock.pin('2026-11-24T10:00:00Z');
    try {
      const created = await createPayment({ customer_id: customer.id, amount: '250.5', method: 'bank_transfer', reference: 'ACH-991', memo: 'November' });
      expect(created.record).toMatchObject({
        customer_id: customer.id,
        amount: '250.50',
        payment_date: '2026-11-24',
        method: 'bank_transfer',
        reference: 'ACH-991',
        memo: 'November',
        applications: [],
        unapplied_amount: '250.50',
        labels: [],
        custom_fields: {},
      });
      expect((await readRecord(api, 'payments', created.id)).record).toEqual(created.record);
    } finally {
      clock.release();
    }
  });

  it('requires the customer, a positive amount and a known method (422 naming each field) and an Idempotency-Key (400)', async () => {
    expectProblem(await api.post('/payments', { payment: { amount: '1', method: 'cash' } }, freshKey()), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    for (const amount of ['0', '-5', '0.001', 'ten']) {
      expectProblem(await api.post('/payments', { payment: { customer_id: customer.id, amount, method: 'cash' } }, freshKey()), { status: 422, code: 'validation.failed', errors: { amount: true } });
    }
    expectProblem(await api.post('/payments', { payment: { customer_id: customer.id, amount: '5', method: 'barter' } }, freshKey()), { status: 422, code: 'validation.failed', errors: { method: true } });
    expectProblem(await api.post('/payments', { payment: { customer_id: customer.id, amount: '5', method: 'cash' } }), { status: 400, code: 'idempotency_key.required' });
  });
});

describe('payments: applications and invoice balances', () => {
  it("applies to the customer's invoices: each balance drops, the invoice gets a new ETag and its q text follows", async () => {
    const first = await invoiceOf(customer.id, '300');
    const second = await invoiceOf(customer.id, '80');
    const payment = await createPayment({
      customer_id: customer.id,
      amount: '400',
      applications: [
        { invoice_id: first.id, amount: '174.50' },
        { invoice_id: second.id, amount: '80' },
      ],
    });
    expect(payment.record.applications.map((a: any) => [a.invoice_id, a.amount])).toEqual([
      [first.id, '174.50'],
      [second.id, '80.00'],
    ]);
    expect(payment.record.unapplied_amount).toBe('145.50');
    const after = await readRecord(api, 'invoices', first.id);
    expect(after.record).toMatchObject({ amount: '300.00', balance: '125.50' });
    expect(after.etag).not.toBe(first.etag);
    expect(await balanceOf(second)).toBe('0.00');
    expect(idsOf(await api.get(`/invoices?q=125.50&customer_id=${customer.id}`))).toEqual([first.id]);
    // A stale ETag of the invoice no longer matches.
    expect((await patch(api, 'invoices', first, { reference: 'x' })).status).toBe(412);
  });

  it("refuses an invoice of another customer, an unknown invoice, the same invoice twice, more than an invoice's balance and more than the payment (422, nothing stored)", async () => {
    const invoice = await invoiceOf(customer.id, '100');
    const stranger = await createCustomer(api);
    const theirs = await invoiceOf(stranger.id, '100');
    const cases: [Record<string, unknown>[], string, string][] = [
      [[{ invoice_id: theirs.id, amount: '10' }], 'applications.0.invoice_id', 'another customer'],
      [[{ invoice_id: randomUUID(), amount: '10' }], 'applications.0.invoice_id', 'does not match any Invoice'],
      [[{ invoice_id: invoice.id, amount: '10' }, { invoice_id: invoice.id, amount: '10' }], 'applications.1.invoice_id', 'more than once'],
      [[{ invoice_id: invoice.id, amount: '100.01' }], 'applications.0.amount', "exceeds the invoice's balance 100.00"],
      [[{ invoice_id: invoice.id }], 'applications.0.amount', 'is missing'],
      [[{ amount: '5' }], 'applications.0.invoice_id', 'is missing'],
    ];
    for (const [applications, field, message] of cases) {
      const res = await api.post('/payments', { payment: { customer_id: customer.id, amount: '500', method: 'cash', applications } }, freshKey());
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { [field]: true } });
      expect(res.body.errors[field].join(' ')).toContain(message);
    }
    const over = await api.post('/payments', { payment: { customer_id: customer.id, amount: '50', method: 'cash', applications: [{ invoice_id: invoice.id, amount: '60' }] } }, freshKey());
    expectProblem(over, { status: 422, code: 'validation.failed', errors: { applications: true } });
    expect(over.body.errors.applications[0]).toContain('more than the payment');
    expect(await balanceOf(invoice)).toBe('100.00');
    expect(await balanceOf(theirs)).toBe('100.00');
  });

  it('replaces applications as a snapshot on update: changed, removed and added applications move the balances', async () => {
    const a = await invoiceOf(customer.id, '100');
    const b = await invoiceOf(customer.id, '100');
    let payment = await createPayment({ customer_id: customer.id, amount: '150', applications: [{ invoice_id: a.id, amount: '100' }] });
    expect(await balanceOf(a)).toBe('0.00');
    // The payment may keep applying what it applied before (the invoice's balance is 0 now).
    const [application] = payment.record.applications;
    payment = await updateRecord(api, 'payments', 'payment', payment, { applications: [{ id: application.id, amount: '60' }, { invoice_id: b.id, amount: '90' }] });
    expect([await balanceOf(a), await balanceOf(b), payment.record.unapplied_amount]).toEqual(['40.00', '10.00', '0.00']);
    payment = await updateRecord(api, 'payments', 'payment', payment, { applications: [{ invoice_id: b.id, amount: '100' }] });
    expect([await balanceOf(a), await balanceOf(b), payment.record.unapplied_amount]).toEqual(['100.00', '0.00', '50.00']);
    payment = await updateRecord(api, 'payments', 'payment', payment, { applications: [] });
    expect([await balanceOf(a), await balanceOf(b), payment.record.unapplied_amount]).toEqual(['100.00', '100.00', '150.00']);
  });

  it('refuses an amount below what the applications apply, and a customer whose invoices the applications are not (422)', async () => {
    const invoice = await invoiceOf(customer.id, '100');
    const payment = await createPayment({ customer_id: customer.id, amount: '100', applications: [{ invoice_id: invoice.id, amount: '70' }] });
    const low = await api.patch(`/payments/${payment.id}`, { payment: { amount: '69.99' } }, ifMatch(payment.etag));
    expectProblem(low, { status: 422, code: 'validation.failed', errors: { amount: true } });
    const other = await createCustomer(api);
    expectProblem(await api.patch(`/payments/${payment.id}`, { payment: { customer_id: other.id } }, ifMatch(payment.etag)), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    const moved = await updateRecord(api, 'payments', 'payment', payment, { customer_id: other.id, applications: [] });
    expect(moved.record).toMatchObject({ customer_id: other.id, unapplied_amount: '100.00' });
    expect(await balanceOf(invoice)).toBe('100.00');
  });

  it('lowers the amount of a payment: what it does not apply follows, with or without applications', async () => {
    const bare = await createPayment({ customer_id: customer.id, amount: '5.00' });
    expect((await updateRecord(api, 'payments', 'payment', bare, { amount: '4.99' })).record.unapplied_amount).toBe('4.99');
    const invoice = await invoiceOf(customer.id, '100');
    const applied = await createPayment({ customer_id: customer.id, amount: '100', applications: [{ invoice_id: invoice.id, amount: '40' }] });
    expect((await updateRecord(api, 'payments', 'payment', applied, { amount: '50' })).record.unapplied_amount).toBe('10.00');
  });

  it("refuses to lower an invoice's amount below what payments apply (422 naming lineitems)", async () => {
    const invoice = await invoiceOf(customer.id, '100');
    await createPayment({ customer_id: customer.id, amount: '80', applications: [{ invoice_id: invoice.id, amount: '80' }] });
    const current = await readRecord(api, 'invoices', invoice.id);
    const line = current.record.lineitems[0];
    expectProblem(await patch(api, 'invoices', current, { lineitems: [{ id: line.id, unit_price: '79' }] }), { status: 422, code: 'validation.failed', errors: { lineitems: true } });
    const raised = await patch(api, 'invoices', current, { lineitems: [{ id: line.id, unit_price: '120' }] });
    expect(raised.status).toBe(200);
    expect(raised.body.data).toMatchObject({ amount: '120.00', balance: '40.00' });
  });

  it('voids a payment on delete: the balances are restored, and the invoice can then be deleted (409 invoice.has_payments before)', async () => {
    const invoice = await invoiceOf(customer.id, '100');
    const payment = await createPayment({ customer_id: customer.id, amount: '100', applications: [{ invoice_id: invoice.id, amount: '100' }] });
    const paid = await readRecord(api, 'invoices', invoice.id);
    expectProblem(await api.delete(`/invoices/${invoice.id}`, ifMatch(paid.etag)), { status: 409, code: 'invoice.has_payments' });
    const current = await readRecord(api, 'payments', payment.id);
    expect((await api.delete(`/payments/${payment.id}`, ifMatch(current.etag))).status).toBe(204);
    expect((await api.get(`/payments/${payment.id}`)).status).toBe(404);
    const restored = await readRecord(api, 'invoices', invoice.id);
    expect(restored.record.balance).toBe('100.00');
    expect((await api.delete(`/invoices/${invoice.id}`, ifMatch(restored.etag))).status).toBe(204);
  });

  it('appends payment.* events, and invoice.updated with the new balance whenever a payment moves it', async () => {
    const invoice = await invoiceOf(customer.id, '50');
    const payment = await createPayment({ customer_id: customer.id, amount: '20', applications: [{ invoice_id: invoice.id, amount: '20' }] });
    const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });
    expect((await eventsOf(payment.id)).map((e) => e.topic)).toEqual(['payment.created']);
    const paid = (await eventsOf(invoice.id)).at(-1)!;
    expect(paid.topic).toBe('invoice.updated');
    expect(paid.payload).toMatchObject({ id: invoice.id, balance: '30.00' });
    const current = await readRecord(api, 'payments', payment.id);
    expect((await api.delete(`/payments/${payment.id}`, ifMatch(current.etag))).status).toBe(204);
    expect((await eventsOf(payment.id)).map((e) => e.topic)).toEqual(['payment.created', 'payment.deleted']);
    expect((await eventsOf(invoice.id)).at(-1)!.payload).toMatchObject({ id: invoice.id, balance: '50.00' });
  });

  it('20 concurrent payments against one invoice never overpay it: exactly what the balance allows is applied', async () => {
    const invoice = await invoiceOf(customer.id, '100');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.post('/payments', { payment: { customer_id: customer.id, amount: '15', method: 'card', applications: [{ invoice_id: invoice.id, amount: '15' }] } }, freshKey()),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    // 6 × 15 = 90 fit in 100; the 7th would overpay.
    expect(statuses.filter((s) => s === 201)).toHaveLength(6);
    for (const res of results.filter((r) => r.status !== 201)) expectProblem(res, { status: 422, code: 'validation.failed', errors: { 'applications.0.amount': true } });
    expect(await balanceOf(invoice)).toBe('10.00');
    const applied = (await gql(`query($id: ID!) { invoice(id: $id) { paymentApplications { nodes { amount } } } }`, { id: invoice.id })).body.data.invoice.paymentApplications.nodes;
    expect(applied).toHaveLength(6);
  });
});

describe('payments: list', () => {
  it('filters by customer, method and payment date, sorts by payment_date and searches reference, memo, amount and the organization', async () => {
    const payer = await createCustomer(api);
    const ref = unique('REF');
    const made = [
      await createPayment({ customer_id: payer.id, amount: '10', method: 'cash', payment_date: '2026-03-01', reference: ref }),
      await createPayment({ customer_id: payer.id, amount: '321.09', method: 'card', payment_date: '2026-01-15' }),
      await createPayment({ customer_id: payer.id, amount: '30', method: 'check', payment_date: '2026-02-10', memo: 'deposit' }),
    ];
    const [cash, card, check] = made.map((p) => p.id);
    const of = `customer_id=${payer.id}`;
    expect(idsOf(await api.get(`/payments?${of}&sort=payment_date`))).toEqual([card, check, cash]);
    expect(idsOf(await api.get(`/payments?${of}&method=card`))).toEqual([card]);
    expect(idsOf(await api.get(`/payments?${of}&method[in]=cash,check&sort=payment_date`))).toEqual([check, cash]);
    expect(idsOf(await api.get(`/payments?${of}&payment_date[gte]=2026-02-01&sort=-payment_date`))).toEqual([cash, check]);
    expect(idsOf(await api.get(`/payments?q=${ref}`))).toEqual([cash]);
    expect(idsOf(await api.get(`/payments?${of}&q=321.09`))).toEqual([card]);
    expect(idsOf(await api.get(`/payments?${of}&q=deposit`))).toEqual([check]);
    const renamed = unique('Payer');
    await updateCustomer(api, await readRecord(api, 'customers', payer.id), { organization: renamed });
    expect(await idsOf(await api.get(`/payments?q=${renamed}`))).toHaveLength(3);
    expectProblem(await api.get('/payments?sort=amount'), { status: 400, code: 'sort.invalid' });
  });
});

describe('payments over GraphQL', () => {
  const CREATE = `mutation($input: CreatePaymentInput!, $key: String!) { createPayment(input: $input, idempotencyKey: $key) { payment { id amount unappliedAmount method applications { nodes { amount invoice { id balance } } } } userErrors { field code } } }`;

  it('createPayment takes idempotencyKey and applications; invoice.payments, invoice.paymentApplications, customer.invoices and customer.payments follow', async () => {
    const payer = await createCustomer(api);
    const invoice = await invoiceOf(payer.id, '200');
    const key = randomUUID();
    const input = { customerId: payer.id, amount: '120', method: 'CARD', applications: [{ invoiceId: invoice.id, amount: '120' }] };
    const first = await gql(CREATE, { input, key });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const payment = first.body.data.createPayment.payment;
    expect(payment).toMatchObject({ amount: '120.00', unappliedAmount: '0.00', method: 'CARD', applications: { nodes: [{ amount: '120.00', invoice: { id: invoice.id, balance: '80.00' } }] } });
    expect((await gql(CREATE, { input, key })).body.data.createPayment.payment.id).toBe(payment.id);

    const read = await gql(
      `query($id: ID!, $customer: ID!) {
        invoice(id: $id) { balance payments { nodes { id } } paymentApplications { nodes { amount payment { id method } } } }
        customer(id: $customer) { invoices { nodes { id } } payments { nodes { id amount } } }
      }`,
      { id: invoice.id, customer: payer.id },
    );
    expect(read.body.errors, JSON.stringify(read.body)).toBeUndefined();
    expect(read.body.data).toEqual({
      invoice: { balance: '80.00', payments: { nodes: [{ id: payment.id }] }, paymentApplications: { nodes: [{ amount: '120.00', payment: { id: payment.id, method: 'CARD' } }] } },
      customer: { invoices: { nodes: [{ id: invoice.id }] }, payments: { nodes: [{ id: payment.id, amount: '120.00' }] } },
    });
  });

  it('answers an overpaying application as a userError naming the field', async () => {
    const invoice = await invoiceOf(customer.id, '10');
    const res = await gql(CREATE, { input: { customerId: customer.id, amount: '50', method: 'CASH', applications: [{ invoiceId: invoice.id, amount: '11' }] }, key: randomUUID() });
    expect(res.body.data.createPayment.userErrors).toEqual([expect.objectContaining({ field: ['input', 'applications', '0', 'amount'] })]);
  });
});
