import { action, type ActionDefinition } from '../../kernel/action.ts';

// POST /tickets/{id}/convert, GraphQL convertTicket, through domain.ticketConversion.

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const ticketActions: readonly ActionDefinition[] = [
  action({
    name: 'convertTicket',
    method: 'post',
    path: '/convert',
    // A conversion writes the ticket and creates a job.
    scopes: ['tickets:write', 'jobs:write'],
    summary: 'Convert a ticket into a job',
    description:
      "In one transaction: creates a job from the ticket (its customer, site and contact; {title} from the subject, {scope_of_work} from the description, {priority} as Low, Normal, High or Urgent; the optional {job} overrides or adds job fields), records the ticket on the job ({ticket_id}) and the job on the ticket ({converted_job_id}, {converted_at}), and moves the ticket to Resolved when that status is live. The job obeys the rules of a job create: a ticket without a site converts when {job} names one ({site_id}) or the AddressRequired module is No, else validation.failed names {site_id}. A Closed ticket is refused with ticket.closed (reopen it first); a ticket converts once: converting it again is refused with ticket.already_converted.",
    body: {
      overrides: 'job',
      except: { customer_id: "is the ticket's customer (change the ticket's customer first)" },
      key: 'job',
      required: false,
      description:
        "Job fields that override or add to the values taken from the ticket ({site_id} for a ticket without a site, {scheduled_start}, {job_type}, {assignments} ...), with the rules of a job create; the customer is the ticket's. Optional: without it the job is made from the ticket alone.",
    },
    response: {
      records: { ticket: 'ticket', job: 'job' },
      status: 201,
      location: 'job',
      description:
        "{ticket}: the ticket, now with {converted_job_id} and {converted_at} (status Resolved when that status is live); {job}: the new job, with {ticket_id}, the ticket's {customer_id}, {site_id} and {contact_id}, its subject as {title}, its description as {scope_of_work} and its priority.",
    },
    run: ({ domain, ctx, id, input }) => domain.ticketConversion.convert(ctx, id, input),
    events: ['job.created', 'ticket.updated'],
    errors: ['validation.failed', 'ticket.closed', 'ticket.already_converted'],
    includes: [{ kind: 'create', resource: 'job' }],
    graphql: { bodyArg: 'job' },
  }),
];
