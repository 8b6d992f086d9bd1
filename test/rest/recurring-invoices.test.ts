import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTestApp, type TenantClients } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { createTaxRate } from '../helpers/factories/catalog.ts';
import { deleteRecord } from '../helpers/factories/records.ts';
import { createdBy, createRecurringInvoice, occurrences, sweep } from '../helpers/factories/recurring.ts';
import { expectProblem } from '../helpers/problem.ts';

// Recurring invoices over REST: each occurrence becomes one invoice, once, on its date (horizon 0 by default),
// dated the occurrence and due after the template's payment terms or the account's. The clock is pinned.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });

let tenant: TenantClients;
const at = (day: string) => clock.pin(`${day}T15:00:00Z`);

beforeAll(async () => {
  at('2027-01-01');
  tenant = await t.newTenant();
  await t.app.domain.admin.updateAccount(tenant.tenant.accountId, { timeZone: 'America/Chicago', paymentTermsDays: 30 });
});

const monthly = async (fields: Record<string, unknown> = {}) => ({
  customer_id: (await createCustomer(tenant.api)).id,
  rule: 'FREQ=MONTHLY;BYMONTHDAY=1',
  start_date: '2027-01-01',
  lineitems: [{ description: 'Maintenance plan', quantity: '1', unit_price: '89' }],
  ...fields,
});

describe('recurring invoices', () => {
  it('creates one invoice per occurrence on its date, dated the occurrence and due after the account terms', async () => {
    at('2027-01-01');
    const template = await createRecurringInvoice(tenant.api, await monthly());
    expect(template.record).toMatchObject({ status: 'active', horizon_days: 0, amount: '89.00', payment_terms_days: null });
    expect((await createdBy(tenant.api, 'invoices', template.id)).map((i) => [i.invoice_date, i.due_date, i.amount, i.balance])).toEqual([['2027-01-01', '2027-01-31', '89.00', '89.00']]);
    at('2027-01-31');
    await sweep(t);
    expect(await createdBy(tenant.api, 'invoices', template.id)).toHaveLength(1);
    at('2027-03-01');
    await sweep(t);
    await sweep(t);
    const invoices = await createdBy(tenant.api, 'invoices', template.id);
    // February's passed while no run reached it (the horizon is the day itself): missed, not billed late.
    expect(invoices.map((i) => [i.occurrence_date, i.invoice_date, i.due_date])).toEqual([
      ['2027-01-01', '2027-01-01', '2027-01-31'],
      ['2027-03-01', '2027-03-01', '2027-03-31'],
    ]);
    for (const invoice of invoices) {
      expect(invoice).toMatchObject({ recurring_invoice_id: template.id, customer_id: template.record.customer_id, status: 'Draft' });
      expect(invoice.lineitems).toMatchObject([{ description: 'Maintenance plan', unit_price: '89.0000', line_total: '89.00' }]);
    }
    expect((await occurrences(tenant.api, 'recurring_invoices', template.id, '?from=2027-01-01&limit=3')).map((o) => o.state)).toEqual(['created', 'missed', 'created']);
  });

  it("dates the due date by the template's payment terms, and taxes the lines with its tax rate", async () => {
    at('2027-01-01');
    const taxRate = await createTaxRate(tenant.api, { rate: '10' });
    const template = await createRecurringInvoice(tenant.api, await monthly({ payment_terms_days: 15, tax_rate_id: taxRate.id, horizon_days: 40 }));
    const invoices = await createdBy(tenant.api, 'invoices', template.id);
    expect(invoices.map((i) => [i.invoice_date, i.due_date, i.amount, i.tax_rate_id])).toEqual([
      ['2027-01-01', '2027-01-16', '97.90', taxRate.id],
      ['2027-02-01', '2027-02-16', '97.90', taxRate.id],
    ]);
  });

  it('is checked by the invoice rules: a customer, an active tax rate, terms in days; an invoice has no start time', async () => {
    const refused = async (fields: Record<string, unknown>, field: string) =>
      expectProblem(await tenant.api.post('/recurring_invoices', { recurring_invoice: await monthly(fields) }), { status: 422, code: 'validation.failed', errors: { [field]: true } });
    await refused({ customer_id: undefined }, 'customer_id');
    const taxRate = await createTaxRate(tenant.api, { active: false });
    await refused({ tax_rate_id: taxRate.id }, 'tax_rate_id');
    await refused({ payment_terms_days: -1 }, 'payment_terms_days');
    await refused({ start_time: '09:00' }, 'start_time');
  });

  it('stops creating when the customer is deleted, recording the occurrence as failed', async () => {
    at('2027-01-01');
    const fields = await monthly();
    const template = await createRecurringInvoice(tenant.api, fields);
    await deleteRecord(tenant.api, 'invoices', (await createdBy(tenant.api, 'invoices', template.id))[0]!.id);
    await deleteRecord(tenant.api, 'customers', fields.customer_id as string);
    at('2027-02-01');
    await sweep(t);
    const [january, february] = await occurrences(tenant.api, 'recurring_invoices', template.id, '?from=2027-01-01&limit=2');
    // The deleted invoice is not made again; February's customer is gone.
    expect(january).toMatchObject({ state: 'created' });
    expect(february).toMatchObject({ state: 'failed', record_id: null });
    expect(february.reason).toMatch(/customer_id/);
  });
});
