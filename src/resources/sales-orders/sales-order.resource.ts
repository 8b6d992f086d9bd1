import { calendarDateIn } from '../../kernel/dates.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { checkCustomerSite } from '../invoices/customer-site.ts';
import { lineitemCollection } from '../lineitems/lineitems.ts';
import { refreshParentTotals } from '../lineitems/parent-totals.ts';
import { checkDefaultTaxRate } from '../tax-rates/active-tax-rate.ts';
import { salesOrderActions } from './sales-order.actions.ts';

// Sales orders: what a customer ordered, with the shared line items; amount is the sum of the lines
// (parent-totals.ts). A financial create: POST needs an Idempotency-Key (src/kernel/idempotency.ts). Billed by one
// live invoice through POST /sales_orders/{id}/invoice (sales-order-invoicing.service.ts).

export const salesOrderResource = defineResource({
  name: 'sales_order',
  description: 'What a customer ordered (goods and services as line items) and its {amount}; billed by one invoice made from it.',
  fields: {
    customer_id: {
      kind: 'uuid',
      create: 'required',
      update: 'optional',
      nullable: false,
      references: { model: 'customer', live: true, label: 'Customer' },
      description: 'The customer who placed the order.',
    },
    site_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The address the order is for.',
      writeRule: 'Must belong to {customer_id}.',
    },
    contact_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'contact', live: true, label: 'Contact' }, description: "The customer's contact for the order." },
    order_date: {
      kind: 'date',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'The date the order was placed.',
      writeRule: "Default: today in the account's time zone.",
    },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: "Partner-defined reference (e.g. the customer's purchase order number)." },
    customer_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Customer-facing notes, copied to the invoice.' },
    tax_rate_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'taxRate', live: true, label: 'TaxRate' }, description: 'The default tax rate of new lines.', writeRule: 'Must be an active tax rate when it is set.' },
  },
  readOnly: {
    amount: { kind: 'decimal', nullable: false, description: "Sum of the line totals (tax included), computed by the server, in the account's currency." },
  },
  children: { lineitems: lineitemCollection('sales_order_id') },
  relations: {
    invoices: { kind: 'collection', model: 'invoice', column: 'sales_order_id', description: 'The live invoice that bills the sales order (at most one), as a list.' },
  },
  conventions: { number: true, status: { defaults: ['Draft', 'Confirmed', 'Fulfilled', 'Cancelled'] }, labels: true, customFields: true, softDelete: true },
  idempotentCreate: true,
  actions: salesOrderActions,
  list: {
    filters: {
      customer_id: ['eq'],
      status: ['eq', 'in'],
      order_date: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      order_date: true,
      number: true,
      status: true,
    },
    defaultSort: '-created_at',
    search: { fields: ['number', 'reference', 'status', 'amount'], text: 'number, reference, amount (as 125.50), status and customer organization' },
  },
  hooks: {
    async beforeWrite(args) {
      const { ctx, mode, values, now } = args;
      if (mode === 'create') values.order_date ??= calendarDateIn(now, ctx.principal.account.timeZone);
      await checkCustomerSite(args);
      await checkDefaultTaxRate(args);
    },
    async afterWrite({ tx, row }) {
      // amount, then search_text (fl_sales_order_search_text, which includes it).
      await refreshParentTotals(tx, 'sales_order', row.id);
    },
  },
});
