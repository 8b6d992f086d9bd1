import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { checkCustomerSite } from '../invoices/customer-site.ts';
import { invoiceResource } from '../invoices/invoice.resource.ts';
import { lineitemCollection } from '../lineitems/lineitems.ts';
import { refreshParentTotals } from '../lineitems/parent-totals.ts';
import { checkDefaultTaxRate } from '../tax-rates/active-tax-rate.ts';
import { generateAfterWrite } from './generator.ts';
import { recurringActions } from './recurring.actions.ts';
import { checkSchedule, scheduleFields, templateReadOnly } from './recurring-template.ts';

// Recurring invoices: an invoice template (the invoice's own fields, checked by the invoice's rules) and a
// schedule. Each occurrence becomes one invoice (generator.ts): dated the occurrence, due after the template's
// payment terms (else the account's), with the template's lines copied as stored. By default an invoice is created
// on its date (horizon 0), not ahead of it.

const HORIZON_DAYS = 0;
const invoiceFields = invoiceResource.fields;

export const recurringInvoiceResource = defineResource({
  name: 'recurring_invoice',
  description: 'An invoice that repeats (a service plan, a maintenance agreement): an invoice template and the schedule each invoice is created on, once per occurrence.',
  fields: {
    customer_id: invoiceFields.customer_id,
    site_id: invoiceFields.site_id,
    contact_id: invoiceFields.contact_id,
    reference: invoiceFields.reference,
    customer_notes: invoiceFields.customer_notes,
    tax_rate_id: invoiceFields.tax_rate_id,
    payment_terms_days: {
      kind: 'integer',
      create: 'optional',
      update: 'optional',
      range: [0, 365],
      description: "Days from each invoice's date to its due date; null: the account's payment terms when the invoice is created.",
    },
    ...scheduleFields(HORIZON_DAYS, false),
  },
  readOnly: templateReadOnly,
  children: { lineitems: lineitemCollection('recurring_invoice_id') },
  conventions: { number: true, labels: true, customFields: true, softDelete: true, lookupsOf: 'Invoice' },
  actions: recurringActions('recurring_invoice'),
  relations: {
    invoices: { kind: 'collection', model: 'invoice', column: 'recurring_invoice_id', description: 'The live invoices the template created, oldest first, not paginated.' },
  },
  list: {
    filters: { status: ['eq', 'in'], customer_id: ['eq'], created_at: rangeOps, updated_at: rangeOps },
    sorts: { created_at: true, updated_at: true, number: true, status: true },
    defaultSort: '-created_at',
    search: { fields: ['number', 'reference', 'rule'] },
  },
  hooks: {
    async beforeWrite(args) {
      checkSchedule(args, HORIZON_DAYS);
      await checkCustomerSite(args);
      await checkDefaultTaxRate(args);
    },
    async afterWrite({ tx, row }) {
      await refreshParentTotals(tx, 'recurring_invoice', row.id);
    },
    afterCommit: generateAfterWrite('recurring_invoice'),
  },
});
