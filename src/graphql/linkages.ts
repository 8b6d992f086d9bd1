import { requireScope } from '../kernel/auth.ts';
import type { WireLinkage } from '../resources/contacts/contact-linkage.service.ts';
import { convertLeadScopes } from '../resources/leads/lead-conversion.service.ts';
import { requestContext, type Builder } from './builder.ts';
import { written } from './loaders.ts';
import type { RelationTypes } from './relations.ts';
import { recordInput, toWireBody, type ResourceTypes } from './resource-schema.ts';
import type { SharedTypes } from './shared-types.ts';

// Operations over the services that are not one of the five standard ones: a contact's linkages
// (domain.linkages; REST /contacts/{id}/linkages) and lead conversion (domain.leadConversion; REST
// POST /leads/{id}/convert). Each resolver sends the service exactly the body REST would send
// ({"linkage": {...}} and {"customer": {...}} in wire names), so rules and error codes are the REST ones
// (contact.primary_linkage, lead.already_converted, validation.failed naming the camelCase field ...).

/** GraphQL input (camelCase) -> wire record (snake_case) for the given fields; omitted stays omitted, null stays null. */
function wireRecord(input: Record<string, unknown>, fields: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, wire] of Object.entries(fields)) if (input[name] !== undefined) out[wire] = input[name];
  return out;
}

const linkFields = { linkableId: 'linkable_id', linkableType: 'linkable_type', relationshipType: 'relationship_type', primary: 'primary' };
const linkageUpdateFields = { relationshipType: 'relationship_type', primary: 'primary' };

export function registerLinkageOperations(builder: Builder, relations: RelationTypes, shared: SharedTypes): void {
  const { ContactLinkage } = relations;

  const LinkContactInput = builder.inputType('LinkContactInput', {
    description: 'A new linkage (REST POST /contacts/{id}/linkages body).',
    fields: (t) => ({
      linkableId: t.id({ required: true, description: 'Id of the Customer, Lead or Site to link to.' }),
      linkableType: t.string({ required: true, description: 'Customer, Lead or Site.' }),
      relationshipType: t.string({ description: 'associated (default), billing, technical or decision_maker.' }),
      primary: t.boolean({
        description: "true makes the contact the record's primary (demoting the previous one). The first contact linked to a record is its primary whatever this says.",
      }),
    }),
  });

  const UpdateContactLinkageInput = builder.inputType('UpdateContactLinkageInput', {
    description: 'Changes to a linkage (REST PATCH /contacts/{id}/linkages/{linkage_id} body).',
    fields: (t) => ({
      relationshipType: t.string({ description: 'associated, billing, technical or decision_maker.' }),
      primary: t.boolean({
        description: 'true makes it the primary (demoting the previous one); false is accepted only on a linkage that is not primary (otherwise 409 contact.primary_linkage).',
      }),
    }),
  });

  const ContactLinkagePayload = builder.objectRef<{ linkage: WireLinkage }>('ContactLinkagePayload').implement({
    description: 'The linkage as written.',
    fields: (t) => ({ linkage: t.field({ type: ContactLinkage, resolve: (parent) => parent.linkage }) }),
  });

  builder.queryField('contactLinkages', (t) =>
    t.field({
      type: [ContactLinkage],
      nullable: true,
      description: "A live contact's linkages, oldest first, unpaginated (needs contacts:read); as GET /api/v2/contacts/{id}/linkages.",
      authScopes: { scope: 'contacts:read' },
      args: { contactId: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.domain.linkages.list(requestContext(ctx), String(args.contactId)),
    }),
  );

  builder.mutationFields((t) => ({
    linkContact: t.field({
      type: ContactLinkagePayload,
      nullable: true,
      description: 'Links a contact to a Customer, Lead or Site (needs contacts:write); as POST /api/v2/contacts/{id}/linkages. No ifMatch.',
      authScopes: { scope: 'contacts:write' },
      args: { contactId: t.arg.id({ required: true }), input: t.arg({ type: LinkContactInput, required: true }) },
      resolve: async (_root, args, ctx) => ({
        linkage: await written(ctx, ctx.domain.linkages.create(requestContext(ctx), String(args.contactId), { linkage: wireRecord(args.input, linkFields) })),
      }),
    }),
    updateContactLinkage: t.field({
      type: ContactLinkagePayload,
      nullable: true,
      description: 'Changes the relationship type or makes the linkage primary (needs contacts:write); as PATCH /api/v2/contacts/{id}/linkages/{linkage_id}. No ifMatch.',
      authScopes: { scope: 'contacts:write' },
      args: {
        contactId: t.arg.id({ required: true }),
        linkageId: t.arg.id({ required: true }),
        input: t.arg({ type: UpdateContactLinkageInput, required: true }),
      },
      resolve: async (_root, args, ctx) => ({
        linkage: await written(
          ctx,
          ctx.domain.linkages.update(requestContext(ctx), String(args.contactId), String(args.linkageId), { linkage: wireRecord(args.input, linkageUpdateFields) }),
        ),
      }),
    }),
    unlinkContact: t.field({
      type: shared.DeletedRecord,
      nullable: true,
      description:
        "Removes a linkage; the contact stays (needs contacts:write); as DELETE /api/v2/contacts/{id}/linkages/{linkage_id}. The primary contact's linkage is refused with contact.primary_linkage. Returns the linkage id.",
      authScopes: { scope: 'contacts:write' },
      args: { contactId: t.arg.id({ required: true }), linkageId: t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => {
        await written(ctx, ctx.domain.linkages.remove(requestContext(ctx), String(args.contactId), String(args.linkageId)));
        return { id: String(args.linkageId) };
      },
    }),
  }));
}

export function registerLeadConversion(builder: Builder, types: { lead: ResourceTypes; customer: ResourceTypes }): void {
  const customerDef = types.customer.def;
  const ConvertLeadCustomerInput = recordInput(
    builder,
    customerDef,
    'ConvertLeadCustomerInput',
    'create',
    "Customer fields that override or add to those taken from the lead (organization defaults to the lead's organization or name).",
    true,
  );

  const ConvertLeadPayload = builder.objectRef<{ lead: { record: Record<string, unknown>; etag: string }; customer: { record: Record<string, unknown>; etag: string } }>('ConvertLeadPayload').implement({
    description: 'The converted lead and the customer made from it; each carries its new ETag (lead.etag, customer.etag).',
    fields: (t) => ({
      lead: t.field({ type: types.lead.record, resolve: (parent) => parent.lead }),
      customer: t.field({ type: types.customer.record, resolve: (parent) => parent.customer }),
    }),
  });

  builder.mutationField('convertLead', (t) =>
    t.field({
      type: ConvertLeadPayload,
      nullable: true,
      description:
        `Creates a customer from the lead and moves the lead's sites and contact linkages to it, in one transaction (needs ${convertLeadScopes.join(' and ')}); as POST /api/v2/leads/{id}/convert. A lead converts once (lead.already_converted).`,
      authScopes: { authenticated: true },
      args: {
        id: t.arg.id({ required: true }),
        customer: t.arg({ type: ConvertLeadCustomerInput, description: 'Optional overrides of the customer fields.' }),
      },
      resolve: async (_root, args, ctx) => {
        for (const scope of convertLeadScopes) requireScope(ctx.principal, scope);
        const body = args.customer ? toWireBody(customerDef, 'create', args.customer as Record<string, unknown>) : {};
        return written(ctx, ctx.domain.leadConversion.convert(requestContext(ctx), String(args.id), body));
      },
    }),
  );
}
