import { action, type ActionDefinition } from '../../kernel/action.ts';

// POST /leads/{id}/convert and GraphQL convertLead, through domain.leadConversion.

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const leadActions: readonly ActionDefinition[] = [
  action({
    name: 'convertLead',
    method: 'post',
    path: '/convert',
    // A conversion writes the lead and creates a customer.
    scopes: ['leads:write', 'customers:write'],
    summary: 'Convert a lead into a customer',
    description:
      'In one transaction: creates a customer from the lead (the optional {customer} overrides or adds customer fields), moves the lead\'s sites, contact linkages (primary contacts stay primary) and deals to it and marks the lead converted (status Converted when that status is live). A lead converts once: converting it again is refused with lead.already_converted.',
    body: {
      overrides: 'customer',
      key: 'customer',
      required: false,
      description:
        "Customer fields that override or add to the values taken from the lead ({organization}: the lead's organization, else its first and last name; {description}; {assignee_id}; {main_phone}: the lead's phone). Same rules as a customer create; unknown fields are refused. Optional: without it the customer is made from the lead alone.",
    },
    response: {
      records: { lead: 'lead', customer: 'customer' },
      status: 201,
      location: 'customer',
      description:
        "{lead}: the lead, now with {converted_customer_id} and {converted_at} (status Converted when that status is live); {customer}: the new customer, owning the lead's sites, contact linkages and deals.",
    },
    run: ({ domain, ctx, id, input }) => domain.leadConversion.convert(ctx, id, input),
    events: ['customer.created', 'lead.updated', 'site.updated', 'contact_linkage.updated', 'deal.updated'],
    errors: ['lead.already_converted'],
    includes: [{ kind: 'create', resource: 'customer' }],
    graphql: { bodyArg: 'customer' },
  }),
];
