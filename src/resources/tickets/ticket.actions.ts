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
      "In one transaction: creates a job from the ticket (customer, site, contact; {title} from the subject, {scope_of_work} from the description, {priority} as Low, Normal, High or Urgent), records the ticket on the job ({ticket_id}) and the job on the ticket ({converted_job_id}, {converted_at}), and moves the ticket to Resolved when that status is live. The job obeys the rules of a job create: without a site on the ticket or in {job}, validation.failed names {site_id} unless the AddressRequired module is No. A Closed ticket is refused with ticket.closed; a ticket converts once: again is refused with ticket.already_converted.",
    body: {
      overrides: 'job',
      except: {
        customer_id: "is the ticket's customer (change the ticket's customer first)",
        lineitems: 'are added on the job once it exists',
        assignments: 'are made on the job once it exists',
      },
      key: 'job',
      required: false,
      description:
        "Job fields that override or add to the values taken from the ticket ({site_id} for a ticket without a site, {scheduled_start}, {job_type} ...), with the rules of a job create; the customer is the ticket's, lines and assignments are added on the job. Optional: without it the job is made from the ticket alone.",
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
