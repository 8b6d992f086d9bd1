import { rangeOps } from '../../kernel/listing.ts';
import { requirePermission, type Role } from '../../kernel/permissions.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { lineitemCollection } from '../lineitems/lineitems.ts';
import { refreshParentTotals } from '../lineitems/parent-totals.ts';
import { checkWorkLocation } from '../jobs/work-location.ts';
import { checkDefaultTaxRate } from '../tax-rates/active-tax-rate.ts';
import { taskRelation } from '../tasks/taskables.ts';
import { checkEstimateDeal } from './estimate-deal.ts';
import { estimateActions } from './estimate.actions.ts';

/**
 * Statuses that record the customer's decision (or sending it): only roles with estimates.decide may move an
 * estimate into them or out of them (Sent -> Draft would undo a decision as surely as Draft -> Sent makes one).
 * Re-sending the current status is no move, so it needs no permission.
 */
export const decisionStatuses = ['Sent', 'Accepted', 'Declined'];

/** The decision gate of an update that sets `status` (one place; REST PATCH and GraphQL updateEstimate reach it). */
function checkDecision(role: Role, from: unknown, to: unknown): void {
  if (typeof to !== 'string' || to === from) return;
  if (!decisionStatuses.includes(to) && !(typeof from === 'string' && decisionStatuses.includes(from))) return;
  requirePermission(role, 'estimates.decide', `The ${role} role may not move an estimate from ${String(from)} to ${to}: ${decisionStatuses.join(', ')} record a decision.`);
}

export const estimateResource = defineResource({
  name: 'estimate',
  description: 'A pre-sale quote. {amount} is computed by the server from the lines and tax; an accepted estimate converts to a job.',
  fields: {
    customer_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'customer', live: true, label: 'Customer' }, description: 'The customer the estimate is for.' },
    project_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'project', live: true, label: 'Project' },
      description: 'The project the estimate belongs to; null when none.',
      writeRule: 'Must be a project of {customer_id}.',
    },
    site_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The service address.',
      writeRule: 'Required unless the AddressRequired module is No; must belong to {customer_id}.',
    },
    contact_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'contact', live: true, label: 'Contact' }, description: 'The contact for the estimate.' },
    system_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'system', live: true, label: 'System' },
      description: 'The system (equipment) the estimate is for.',
      writeRule: 'Required when the System module is on and {site_id} is set; must belong to the site.',
    },
    title: { kind: 'string', create: 'optional', update: 'optional', description: 'Short title of the estimate.' },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free-text description of the estimate.' },
    scope_of_work: { kind: 'text', create: 'optional', update: 'optional', description: 'Scope of work: what is to be done.' },
    estimate_date: { kind: 'date', create: 'optional', update: 'optional', description: 'Issue date.' },
    expiration_date: { kind: 'date', create: 'optional', update: 'optional', description: 'The last day the estimate is valid.' },
    job_type: { kind: 'string', create: 'optional', update: 'optional', description: 'Kind of job the estimate is for (free text).' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Partner-defined reference.' },
    customer_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Customer-facing, shown on the estimate PDF.' },
    tax_rate_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'taxRate', live: true, label: 'TaxRate' }, description: 'The default tax rate of new lines.', writeRule: 'Must be an active tax rate when it is set.' },

    deal_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'deal', live: true, label: 'Deal' },
      description: 'The deal the estimate quotes for.',
      writeRule: 'Must be a deal of {customer_id} (a deal still with a lead takes estimates once the lead is converted).',
    },
  },
  readOnly: {
    amount: { kind: 'decimal', nullable: false, description: 'Sum of the line totals (tax included), computed by the server.' },
    converted_job_id: { kind: 'uuid', nullable: true, references: { model: 'job', label: 'Job' }, description: 'The job made when the estimate was converted.' },
    converted_invoice_id: { kind: 'uuid', nullable: true, references: { model: 'invoice', label: 'Invoice' }, description: 'The invoice made when the estimate was invoiced directly (without a job).' },
    converted_at: { kind: 'datetime', nullable: true, description: 'When the estimate was converted into a job or invoiced; null until then.' },
  },
  children: { lineitems: lineitemCollection('estimate_id') },
  relations: { tasks: taskRelation('Estimate') },
  conventions: { number: true, status: { defaults: ['Draft', 'Sent', 'Accepted', 'Declined'] }, labels: true, customFields: true, softDelete: true },
  events: { extra: [{ action: 'converted', description: 'An accepted estimate was converted into a job or an invoice; `data.converted_to` names it (`job_id` or `invoice_id`).' }] },
  errors: { update: ['auth.permission_denied'] },
  list: {
    filters: {
      status: ['eq', 'in'],
      customer_id: ['eq'],
      deal_id: ['eq'],
      project_id: ['eq'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, number: true, status: true },
    defaultSort: '-created_at',
    search: { fields: ['number', 'status', 'amount'], text: 'number, amount, status and customer organization' },
  },
  actions: estimateActions,
  hooks: {
    async beforeWrite(args) {
      const { ctx, mode, values, existing } = args;
      if (mode === 'update') checkDecision(ctx.principal.user.role, existing?.status, values.status);
      await checkWorkLocation(args, 'with_site');
      await checkDefaultTaxRate(args);
      await checkEstimateDeal(args);
    },
    async afterWrite({ tx, row }) {
      // amount, then search_text (fl_estimate_search_text, which includes the amount; triggers refresh it when
      // the customer is renamed).
      await refreshParentTotals(tx, 'estimate', row.id);
    },
  },
});
