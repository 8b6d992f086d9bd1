import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { unlinkRecords } from '../contacts/contact-linkage.service.ts';
import { contactRelations } from '../contacts/contact-linkage.relations.ts';
import { taskRelation } from '../tasks/taskables.ts';


export const customerResource = defineResource({
  name: 'customer',
  description: "A company, organization or individual in the tenant's CRM. Contact and address data live on linked contacts and sites.",
  fields: {
    organization: { kind: 'string', create: 'required', update: 'optional', nullable: false, unique: 'case_insensitive', description: 'Display name, unique per account (case-insensitive).' },
    main_phone: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Main phone number.' },
    fax: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Fax number.' },
    website: { kind: 'url', create: 'optional', update: 'optional', description: 'Website address.' },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free-text description of the customer.' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Partner-defined reference.' },
    assignee_id: { kind: 'int64', create: 'optional', update: 'optional', references: { model: 'user', label: 'user of this account' }, description: 'Id of the user of the account who looks after the customer.' },
    customer_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Internal rich text, not on customer PDFs.' },
    price_adjustment: {
      kind: 'decimal',
      scale: 4,
      range: [-100, 1000],
      create: 'optional',
      update: 'optional',
      description: 'Percent applied to price book unit prices on new lines for this customer (-10 = 10% off); customer item prices win over it.',
    },
  },
  conventions: { number: true, status: { defaults: ['Active', 'Inactive'] }, labels: true, customFields: true, softDelete: true },
  relations: {
    sites: { kind: 'collection', model: 'site', column: 'customer_id', description: 'Live sites of this customer by position (the first is its primary billing address), not paginated.' },
    ...contactRelations('Customer', 'customer'),
    assets: { kind: 'collection', model: 'asset', column: 'customer_id', description: "Live assets at the customer's sites, oldest first, not paginated." },
    projects: { kind: 'collection', model: 'project', column: 'customer_id', description: 'Live projects of the customer, oldest first, not paginated.' },
    jobs: { kind: 'collection', model: 'job', column: 'customer_id', description: 'Live jobs of the customer, oldest first, not paginated.' },
    estimates: { kind: 'collection', model: 'estimate', column: 'customer_id', description: 'Live estimates of the customer, oldest first, not paginated.' },
    invoices: { kind: 'collection', model: 'invoice', column: 'customer_id', description: 'Live invoices of the customer, oldest first, not paginated.' },
    payments: { kind: 'collection', model: 'payment', column: 'customer_id', description: 'Live payments of the customer, oldest first, not paginated.' },
    sales_orders: { kind: 'collection', model: 'salesOrder', column: 'customer_id', description: 'Live sales orders of the customer, oldest first, not paginated.' },
    deals: { kind: 'collection', model: 'deal', column: 'customer_id', description: 'Live deals with the customer (including those of the lead it was converted from), oldest first, not paginated.' },
    tasks: taskRelation('Customer'),
    tickets: { kind: 'collection', model: 'ticket', column: 'customer_id', description: 'Live tickets of the customer, oldest first, not paginated.' },
  },
  list: {
    filters: {
      organization: ['eq'],
      number: ['eq'],
      status: ['eq', 'in'],
      created_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      organization: true,
      number: true,
      status: true,
    },
    defaultSort: '-created_at',
    search: { fields: ['organization', 'number', 'status', 'reference'], text: 'organization, number, status, reference and the primary site address' },
  },
  hooks: {
    // Deleting a customer discards its sites (with their linkages) and removes its contact linkages; the
    // contacts themselves stay (they may be linked elsewhere).
    async afterDelete({ tx, ctx, row, resources }) {
      await resources('site').removeWhere(tx, ctx, { customer_id: row.id });
      await unlinkRecords(tx, ctx, 'Customer', [row.id]);
    },
  },
});
