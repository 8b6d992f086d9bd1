import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { checkActiveUser } from '../accounts/active-user.ts';
import { taskRelation } from '../tasks/taskables.ts';

// Deals: a sales opportunity of a customer or of a lead (exactly one, fixed at create; a lead's deals move to its
// customer when the lead is converted, src/resources/leads/lead-conversion.service.ts). The stage is the status.
// Estimates quote for a deal of their customer (estimate.deal_id, src/resources/estimates/estimate-deal.ts).

export const dealResource = defineResource({
  name: 'deal',
  description:
    "A sales opportunity with a customer or a lead: what it is worth, its stage (the status), how likely it is to close and when. Estimates may quote for it; when its lead is converted, the deal moves to the new customer.",
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the opportunity.' },
    customer_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'immutable',
      references: { model: 'customer', live: true, label: 'Customer' },
      description: 'The customer the deal is with; null while the deal is with a lead.',
      writeRule: 'Exactly one of {customer_id} and {lead_id} on create; neither changes afterwards (converting the lead moves its deals to the customer).',
    },
    lead_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'immutable',
      references: { model: 'lead', live: true, label: 'Lead' },
      description: 'The lead the deal is with; null once the deal is with a customer.',
      writeRule: 'Exactly one of {customer_id} and {lead_id} on create; neither changes afterwards.',
    },
    value_amount: {
      kind: 'decimal',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: "What the deal is worth, in the account's currency (0 or more).",
      writeRule: 'Default: 0.',
    },
    expected_close_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the deal is expected to close.' },
    probability_percent: { kind: 'integer', range: [0, 100], create: 'optional', update: 'optional', description: 'How likely the deal is to be won, in percent (0 to 100).' },
    source: { kind: 'string', create: 'optional', update: 'optional', description: 'Where the deal came from (referral, web form, trade show ...).' },
    owner_id: {
      kind: 'int64',
      create: 'optional',
      update: 'optional',
      references: { model: 'user', label: 'user of this account' },
      description: 'Id of the user of the account who owns the deal.',
      writeRule: 'Must be an active user when it is set or changed.',
    },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free-text description of the deal.' },
  },
  conventions: { number: true, status: { defaults: ['Prospecting', 'Proposal', 'Negotiation', 'Won', 'Lost'] }, labels: true, customFields: true, softDelete: true },
  relations: {
    estimates: { kind: 'collection', model: 'estimate', column: 'deal_id', description: 'Live estimates quoting for the deal, oldest first, not paginated.' },
    tasks: taskRelation('Deal'),
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      customer_id: ['eq'],
      lead_id: ['eq'],
      owner_id: ['eq'],
      value_amount: rangeOps,
      expected_close_date: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      number: true,
      name: true,
      status: true,
      value_amount: true,
      expected_close_date: { nullable: true },
    },
    defaultSort: '-created_at',
    search: { fields: ['name', 'number', 'status', 'source'], text: 'name, number, status and source' },
  },
  hooks: {
    async beforeWrite({ tx, mode, values, existing, errors }) {
      if (mode === 'create') {
        const parties = [values.customer_id, values.lead_id].filter((v) => v !== undefined && v !== null).length;
        if (parties !== 1 && !errors.customer_id && !errors.lead_id) {
          const message = parties === 0 ? 'is missing (give exactly one of customer_id and lead_id)' : 'cannot be given with lead_id (give exactly one of customer_id and lead_id)';
          addError(errors, 'customer_id', message);
          addError(errors, 'lead_id', parties === 0 ? 'is missing (give exactly one of customer_id and lead_id)' : 'cannot be given with customer_id (give exactly one of customer_id and lead_id)');
        }
      }
      await checkActiveUser(tx, 'owner_id', values.owner_id, existing?.owner_id, errors);
    },
  },
});
