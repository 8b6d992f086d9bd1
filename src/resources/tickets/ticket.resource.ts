import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import type { WriteHookArgs } from '../../kernel/resource.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';
import { ticketActions } from './ticket.actions.ts';
import { taskRelation } from '../tasks/taskables.ts';

// Tickets: a customer's service request (a call, an email, a portal form, an integration) before it becomes work.
// It names the customer, perhaps the site and the contact (both the customer's), how urgent it is and how it came
// in; POST /tickets/{id}/convert makes a job of it (ticket-conversion.service.ts). See docs/decisions.md "Tickets".

export const ticketPriorities = vocabulary('TicketPriority', ['low', 'normal', 'high', 'urgent'], {
  description: 'How urgent a ticket is.',
  describe: (value) =>
    ({ low: 'Can wait for a convenient visit.', normal: 'The usual urgency (the default).', high: 'To be handled before normal tickets.', urgent: 'To be handled at once (an outage, a safety issue).' })[value],
});

export const ticketChannels = vocabulary('TicketChannel', ['phone', 'email', 'portal', 'api'], {
  description: 'How a ticket came in.',
  describe: (value) =>
    ({ phone: 'A phone call taken by the office.', email: 'An email from the customer.', portal: "The customer's self-service portal.", api: 'An integration, through the API.' })[value],
});

type TicketPlace = Record<'customer_id' | 'site_id' | 'contact_id', string | null>;

/**
 * The ticket's site and contact must be its customer's: the site a site of the customer, the contact linked to the
 * customer or to one of its live sites (422 naming the field). Checked when any of the three is written.
 */
async function checkBelongsToCustomer({ tx, values, existing, errors }: WriteHookArgs<Partial<TicketPlace>, TicketPlace>): Promise<void> {
  if (errors.customer_id || !('customer_id' in values || 'site_id' in values || 'contact_id' in values)) return;
  const current = (key: keyof TicketPlace) => (key in values ? (values[key] ?? null) : (existing?.[key] ?? null));
  const customerId = current('customer_id');
  if (!customerId) return;
  const siteId = current('site_id');
  if (siteId && !errors.site_id) {
    const [site] = await tenantQuery<{ customer_id: string | null }>(tx, `SELECT customer_id FROM sites WHERE account_id = $1::uuid AND id = $2::uuid`, siteId);
    if (site && site.customer_id !== customerId) addError(errors, 'site_id', 'does not belong to {customer_id}');
  }
  const contactId = current('contact_id');
  if (contactId && !errors.contact_id) {
    const linked = await tenantQuery<{ id: string }>(
      tx,
      `SELECT l.id FROM contact_linkages l
        WHERE l.account_id = $1::uuid AND l.contact_id = $2::uuid
          AND ((l.linkable_type = 'Customer' AND l.linkable_id = $3::uuid)
            OR (l.linkable_type = 'Site' AND l.linkable_id IN (SELECT s.id FROM sites s WHERE s.account_id = $1::uuid AND s.customer_id = $3::uuid AND s.deleted_at IS NULL)))
        LIMIT 1`,
      contactId,
      customerId,
    );
    if (linked.length === 0) addError(errors, 'contact_id', 'does not belong to {customer_id} (link the contact to the customer or one of its sites)');
  }
}

export const ticketResource = defineResource({
  name: 'ticket',
  description:
    "A customer's service request before it becomes work: what is asked ({subject}, {description}), for which customer, site and contact, how urgent it is and how it came in. Converting the ticket makes a job of it.",
  fields: {
    subject: { kind: 'string', create: 'required', update: 'optional', nullable: false, max: 255, description: 'What the customer asks for, in one line.' },
    description: { kind: 'text', create: 'optional', update: 'optional', max: 20000, description: 'The request in full: what the customer reported.' },
    customer_id: { kind: 'uuid', create: 'required', update: 'optional', nullable: false, references: { model: 'customer', live: true, label: 'Customer' }, description: 'The customer who made the request.' },
    site_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The site the request is about.',
      writeRule: 'Must belong to {customer_id}.',
    },
    contact_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'contact', live: true, label: 'Contact' },
      description: 'The contact who made the request.',
      writeRule: 'Must be linked to {customer_id} or to one of its sites.',
    },
    priority: {
      kind: 'string',
      enum: ticketPriorities,
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'How urgent the request is.',
      writeRule: 'Default: normal.',
    },
    channel: { kind: 'string', enum: ticketChannels, create: 'optional', update: 'optional', description: 'How the request came in; null when not recorded.' },
    assignee_id: { kind: 'int64', create: 'optional', update: 'optional', references: { model: 'user', label: 'user of this account' }, description: 'Id of the user of the account who handles the ticket.' },
  },
  readOnly: {
    converted_job_id: { kind: 'uuid', nullable: true, description: 'The job made when the ticket was converted; null until then.' },
    converted_at: { kind: 'datetime', nullable: true, description: 'When the ticket was converted into a job; null until then.' },
  },
  conventions: { number: true, status: { defaults: ['New', 'Open', 'Resolved', 'Closed'] }, labels: true, customFields: true, softDelete: true },
  events: { extra: [{ action: 'converted', description: 'The ticket was converted into a job; `data.converted_to.job_id` names it.' }] },
  relations: {
    tasks: taskRelation('Ticket'),
    job: { kind: 'reference', column: 'converted_job_id', model: 'job', description: 'The job the ticket was converted into; null until then, or when that job was deleted.' },
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      customer_id: ['eq'],
      site_id: ['eq'],
      assignee_id: ['eq'],
      priority: ['eq', 'in'],
      channel: ['eq', 'in'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, number: true, status: true },
    defaultSort: '-created_at',
    search: { fields: ['number', 'subject', 'description', 'status'] },
  },
  actions: ticketActions,
  hooks: {
    async beforeWrite(args) {
      await checkBelongsToCustomer(args);
    },
  },
});
