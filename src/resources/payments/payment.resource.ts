import { Decimal } from 'decimal.js';
import { addError } from '../../kernel/body.ts';
import { calendarDateIn } from '../../kernel/dates.ts';
import { defineChildCollection, defineResource } from '../../kernel/define-resource.ts';
import { validationError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import type { TenantTx } from '../../kernel/tenancy.ts';
import { readShared } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';
import { lockInvoices, refreshInvoiceBalances } from './invoice-balance.ts';

// Payments: money a customer paid, applied to that customer's invoices. A financial create (Idempotency-Key).
//   applications      [{invoice_id, amount}], snapshot replace on update like line items. Each invoice is the
//                     payment's customer's, appears once, and gets at most its balance (plus what this payment
//                     applied to it before the write); together they apply at most the payment's amount.
//   unapplied_amount  amount minus the applications (stored, never negative: a CHECK).
// Every write locks the invoices it touches before reading their balances, then recomputes them
// (invoice-balance.ts): concurrent payments of one invoice never overpay it. Deleting a payment voids it (soft
// delete): its applications stop counting and the invoices' balances are restored.

export const paymentMethods = vocabulary('PaymentMethod', ['cash', 'check', 'card', 'bank_transfer', 'other'], {
  description: 'How a payment was made.',
  describe: (method) =>
    ({ cash: 'Cash.', check: 'A check.', card: 'A credit or debit card.', bank_transfer: 'A bank transfer (ACH, wire, SEPA ...).', other: 'Any other way.' })[method],
});

const applicationCollection = defineChildCollection({
  model: 'paymentApplication',
  table: 'payment_applications',
  foreignKey: 'payment_id',
  label: 'payment application',
  description: "What the payment applies to each of its customer's invoices.",
  writeRule:
    'On update a snapshot: an entry with id changes that application, an entry without id adds one, applications whose id is absent are removed, [] removes all; omit the field to keep them. Each invoice must be of {customer_id} and appear once; an application is at most the invoice\'s balance (plus what this payment applied to it before); together they are at most {amount}.',
  fields: {
    invoice_id: { kind: 'uuid', create: 'required', update: 'optional', nullable: false, references: { model: 'invoice', live: true, label: 'Invoice' }, description: 'The invoice paid.' },
    amount: { kind: 'decimal', range: [0.01, 9_999_999_999], create: 'required', update: 'optional', nullable: false, description: 'What the payment applies to the invoice.' },
  },
  async compute({ tx, parent, entries, existing, errors }) {
    for (const { entry } of entries) if (typeof entry.invoice_id === 'string') entry.invoice_id = entry.invoice_id.toLowerCase();
    const ids = entries.map(({ entry }) => entry.invoice_id).filter((id): id is string => typeof id === 'string');
    // Every invoice this write touches, before and after, locked in one order (their balances are recomputed after).
    const invoices = await lockInvoices(tx, [...ids, ...existing.map((row) => row.invoice_id as string)].sort());
    // What this payment applied to each invoice before the write is part of what it may apply now.
    const before = new Map<string, Decimal>();
    for (const row of existing) before.set(row.invoice_id as string, (before.get(row.invoice_id as string) ?? new Decimal(0)).plus(String(row.amount)));
    const seen = new Set<string>();
    let total = new Decimal(0);
    for (const { entry, at } of entries) {
      const invoiceId = entry.invoice_id as string | undefined;
      if (invoiceId === undefined) {
        addError(errors, `${at}.invoice_id`, 'is missing');
        continue;
      }
      if (entry.amount === undefined) addError(errors, `${at}.amount`, 'is missing');
      const invoice = invoices.get(invoiceId);
      if (!invoice) addError(errors, `${at}.invoice_id`, 'does not match any Invoice');
      else if (invoice.customer_id !== parent.customer_id) addError(errors, `${at}.invoice_id`, 'is an invoice of another customer than {customer_id}');
      else if (seen.has(invoiceId)) addError(errors, `${at}.invoice_id`, 'is given more than once');
      seen.add(invoiceId);
      if (!invoice || entry.amount === undefined) continue;
      const amount = new Decimal(String(entry.amount));
      total = total.plus(amount);
      const open = new Decimal(invoice.balance).plus(before.get(invoiceId) ?? 0);
      if (amount.gt(open)) addError(errors, `${at}.amount`, `exceeds the invoice's balance ${open.toFixed(2)}`);
    }
    if (total.gt(String(parent.amount))) addError(errors, 'applications', `apply ${total.toFixed(2)} in total, more than the payment's amount ${new Decimal(String(parent.amount)).toFixed(2)}`);
  },
});

/** The invoices the payment's live applications pay. */
async function appliedInvoiceIds(tx: TenantTx, paymentId: string): Promise<string[]> {
  const rows = await tenantQuery<{ invoice_id: string }>(tx, `SELECT DISTINCT invoice_id FROM payment_applications WHERE account_id = $1::uuid AND payment_id = $2::uuid`, paymentId);
  return rows.map((row) => row.invoice_id);
}

export const paymentResource = defineResource({
  name: 'payment',
  description: "Money a customer paid, and what it applies to the customer's invoices ({applications}).",
  fields: {
    customer_id: {
      kind: 'uuid',
      create: 'required',
      update: 'optional',
      nullable: false,
      references: { model: 'customer', live: true, label: 'Customer' },
      description: 'The customer who paid.',
      writeRule: 'Changing it keeps the applications only if their invoices are of the new customer.',
    },
    amount: { kind: 'decimal', range: [0.01, 9_999_999_999], create: 'required', update: 'optional', nullable: false, description: "What was paid, in the account's currency.", writeRule: 'Greater than 0, and at least what the applications apply.' },
    payment_date: { kind: 'date', create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'The date of the payment.', writeRule: "Default: today in the account's time zone." },
    method: { kind: 'string', enum: paymentMethods, create: 'required', update: 'optional', nullable: false, description: 'How the payment was made.' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Check number, card authorization or transfer reference.' },
    memo: { kind: 'text', create: 'optional', update: 'optional', description: 'Internal note.' },
  },
  readOnly: {
    unapplied_amount: { kind: 'decimal', nullable: false, description: 'What the payment does not apply to invoices: {amount} minus its applications.' },
  },
  children: { applications: applicationCollection },
  conventions: { labels: true, customFields: true, softDelete: true },
  idempotentCreate: true,
  list: {
    filters: {
      customer_id: ['eq'],
      method: ['eq', 'in'],
      payment_date: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      payment_date: true,
    },
    defaultSort: '-created_at',
    search: { fields: ['reference', 'memo', 'method', 'amount'], text: 'reference, memo, method, amount (as 125.50) and customer organization' },
  },
  hooks: {
    async beforeWrite({ tx, ctx, mode, values, existing, errors, now }) {
      if (mode === 'create') values.payment_date ??= calendarDateIn(now, ctx.principal.account.timeZone);
      // unapplied_amount is recomputed after the applications are written (afterWrite); until then it must not stand
      // above a lowered amount, or the range CHECK refuses the row write itself (a 500 instead of the 422 below).
      if (mode === 'update' && 'amount' in values) (values as Record<string, unknown>).unapplied_amount = '0';
      // The customer is share-locked: its organization is in the search text, and its invoices are checked.
      const customerId = 'customer_id' in values ? values.customer_id : existing?.customer_id;
      if (customerId && !errors.customer_id) await readShared(tx, 'customers', 'id', [customerId]);
    },
    async afterWrite({ tx, ctx, resources, row, input, previousChildren }) {
      // Applications not sent are kept: they must still fit the payment's amount and customer.
      const sent = input.applications !== undefined;
      const [state] = await tenantQuery<{ applied: string; foreign: number }>(
        tx,
        `SELECT coalesce(sum(a.amount), 0)::text AS applied, count(*) FILTER (WHERE i.customer_id IS DISTINCT FROM p.customer_id)::int AS foreign
         FROM payments p LEFT JOIN payment_applications a ON a.account_id = p.account_id AND a.payment_id = p.id
         LEFT JOIN invoices i ON i.account_id = a.account_id AND i.id = a.invoice_id
         WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND a.id IS NOT NULL`,
        row.id,
      );
      if (state && state.foreign > 0) throw validationError({ customer_id: ['has applications to invoices of another customer: send applications for the new customer too'] });
      const applied = new Decimal(state?.applied ?? 0);
      if (!sent && applied.gt(String(row.amount))) throw validationError({ amount: [`is below the ${applied.toFixed(2)} the applications apply`] });
      await tenantQuery(
        tx,
        `UPDATE payments p SET unapplied_amount = p.amount - $3::numeric WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.unapplied_amount IS DISTINCT FROM p.amount - $3::numeric`,
        row.id,
        applied.toFixed(2),
      );
      await tenantQuery(tx, `UPDATE payments p SET search_text = fl_payment_search_text(p) WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.search_text IS DISTINCT FROM fl_payment_search_text(p)`, row.id);
      // The invoices paid now and those an application was removed from.
      const before = (previousChildren.applications ?? []).map((application) => application.invoice_id as string);
      await refreshInvoiceBalances(tx, ctx, resources, [...before, ...(await appliedInvoiceIds(tx, row.id))]);
    },
    async afterDelete({ tx, ctx, resources, row }) {
      // The payment is void: what it applied is owed again.
      await refreshInvoiceBalances(tx, ctx, resources, await appliedInvoiceIds(tx, row.id));
    },
  },
});
