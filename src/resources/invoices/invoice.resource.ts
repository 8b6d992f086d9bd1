import { Decimal } from 'decimal.js';
import { addError } from '../../kernel/body.ts';
import { addDays, calendarDateIn } from '../../kernel/dates.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { AppError } from '../../kernel/errors.ts';
import { toWire } from '../../kernel/fields.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { lineitemCollection } from '../lineitems/lineitems.ts';
import { refreshParentTotals } from '../lineitems/parent-totals.ts';
import { invoicePaymentRelations } from '../payments/payment.relations.ts';
import { checkDefaultTaxRate } from '../tax-rates/active-tax-rate.ts';
import { checkCustomerSite } from './customer-site.ts';
import { taskRelation } from '../tasks/taskables.ts';

// Invoices: what a customer owes for work, with the shared line items. amount is the sum of the lines; balance
// is what payments have not covered yet (parent-totals.ts keeps both). A financial create: POST needs an
// Idempotency-Key (src/kernel/idempotency.ts).

export const invoiceResource = defineResource({
  name: 'invoice',
  description: 'What a customer owes for work: line items, their {amount}, and the {balance} payments have not covered yet.',
  fields: {
    customer_id: {
      kind: 'uuid',
      create: 'required',
      update: 'optional',
      nullable: false,
      references: { model: 'customer', live: true, label: 'Customer' },
      description: 'The customer who owes the invoice.',
    },
    site_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The service address the invoice is for.',
      writeRule: 'Must belong to {customer_id}.',
    },
    contact_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'contact', live: true, label: 'Contact' }, description: 'The billing contact.' },
    invoice_date: {
      kind: 'date',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'The date of the invoice.',
      writeRule: "Default: today in the account's time zone.",
    },
    due_date: {
      kind: 'date',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'When payment is due.',
      writeRule: "Default: {invoice_date} plus the account's payment terms (in days). Not before {invoice_date}.",
    },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Partner-defined reference (e.g. the ERP document number).' },
    customer_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Customer-facing notes, shown on the invoice.' },
    tax_rate_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'taxRate', live: true, label: 'TaxRate' }, description: 'The default tax rate of new lines.', writeRule: 'Must be an active tax rate when it is set.' },
  },
  readOnly: {
    job_id: { kind: 'uuid', nullable: true, references: { model: 'job', label: 'Job' }, description: 'The job this invoice bills, when it was made from one.' },
    estimate_id: { kind: 'uuid', nullable: true, references: { model: 'estimate', label: 'Estimate' }, description: 'The estimate this invoice was made from, if any.' },
    sales_order_id: { kind: 'uuid', nullable: true, references: { model: 'salesOrder', label: 'SalesOrder' }, description: 'The sales order this invoice bills, when it was made from one.' },
    recurring_invoice_id: { kind: 'uuid', nullable: true, references: { model: 'recurringInvoice', label: 'RecurringInvoice' }, description: 'The recurring invoice that created this invoice; null for an invoice made otherwise.' },
    occurrence_date: { kind: 'date', nullable: true, description: 'The occurrence of {recurring_invoice_id} this invoice was created for (its {invoice_date}); null for an invoice made otherwise.' },
    amount: { kind: 'decimal', nullable: false, description: "Sum of the line totals (tax included), computed by the server, in the account's currency." },
    balance: { kind: 'decimal', nullable: false, description: 'What is still owed: amount minus what live payments apply to the invoice. Never negative.' },
  },
  children: { lineitems: lineitemCollection('invoice_id') },
  relations: { ...invoicePaymentRelations, tasks: taskRelation('Invoice') },
  conventions: { number: true, status: { defaults: ['Draft', 'Sent', 'Paid', 'Void'] }, labels: true, customFields: true, softDelete: true },
  idempotentCreate: true,
  errors: { delete: ['invoice.has_payments'] },
  list: {
    filters: {
      customer_id: ['eq'],
      recurring_invoice_id: ['eq'],
      status: ['eq', 'in'],
      invoice_date: rangeOps,
      due_date: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      invoice_date: true,
      due_date: true,
      number: true,
      status: true,
    },
    defaultSort: '-created_at',
    search: { fields: ['number', 'reference', 'status', 'amount', 'balance'], text: 'number, reference, amount, balance (as 125.50), status and customer organization' },
  },
  hooks: {
    async beforeWrite(args) {
      const { ctx, mode, values, existing, errors, now } = args;
      const { account } = ctx.principal;
      if (mode === 'create') {
        values.invoice_date ??= calendarDateIn(now, account.timeZone);
        values.due_date ??= addDays(values.invoice_date, account.paymentTermsDays);
      }
      // Calendar dates compare as strings (YYYY-MM-DD), the stored ones as the wire serves them.
      const invoiceDate = 'invoice_date' in values ? values.invoice_date : (toWire('date', existing?.invoice_date) as string | null);
      const dueDate = 'due_date' in values ? values.due_date : (toWire('date', existing?.due_date) as string | null);
      if (!errors.invoice_date && !errors.due_date && invoiceDate && dueDate && dueDate < invoiceDate) addError(errors, 'due_date', 'must not be before {invoice_date}');
      await checkCustomerSite(args);
      await checkDefaultTaxRate(args);
    },
    async afterWrite({ tx, row }) {
      // amount, balance, then search_text (fl_invoice_search_text, which includes both).
      await refreshParentTotals(tx, 'invoice', row.id);
    },
    async beforeDelete({ row }) {
      // What payments apply to the invoice is amount − balance; an invoice they pay is not deleted under them (the
      // row is locked: a payment applying to it waits for this delete, then finds the invoice gone).
      const applied = new Decimal(String(row.amount)).minus(String(row.balance));
      if (applied.gt(0)) throw new AppError('invoice.has_payments', `Payments apply ${applied.toFixed(2)} to this invoice: delete (void) them first.`);
    },
  },
});
