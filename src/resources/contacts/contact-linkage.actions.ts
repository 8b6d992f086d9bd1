import { action, type ActionDefinition } from '../../kernel/action.ts';
import { linkageFields, linkageShape } from './contact-linkage.shape.ts';

// A contact's linkages (REST /contacts/{id}/linkages, GraphQL contactLinkages, linkContact, updateContactLinkage,
// unlinkContact), through domain.linkages. No If-Match: linkages carry no ETag.

// The primary rules are the linkage's own (ContactLinkage's description); each action points at them.
const rules = 'The primary rules are in the ContactLinkage description.';

const linkageId = { linkage_id: 'Linkage id (UUID v7) of this contact. Unknown, of another contact or of another account: 404 resource.not_found.' };
const events = {
  created: ['contact_linkage.created', 'contact_linkage.updated'],
  updated: ['contact_linkage.updated'],
  deleted: ['contact_linkage.deleted'],
} as const;

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const contactLinkageActions: readonly ActionDefinition[] = [
  action({
    name: 'listContactLinkages',
    method: 'get',
    path: '/linkages',
    scopes: ['contacts:read'],
    summary: "List a contact's linkages",
    description: 'Every linkage of a live contact, oldest first; not paginated, and takes no list parameters.',
    response: { list: linkageShape, status: 200, description: 'The linkages, oldest first.' },
    run: ({ domain, ctx, id }) => domain.linkages.list(ctx, id),
    events: [],
    errors: [],
    graphql: { field: 'contactLinkages', idArg: 'contactId' },
  }),
  action({
    name: 'createContactLinkage',
    method: 'post',
    path: '/linkages',
    scopes: ['contacts:write'],
    summary: 'Link a contact to a customer, lead or site',
    description: `A record of another account or none, or a record the contact is already linked to, is refused with validation.failed naming {linkable_id}. ${rules}`,
    body: {
      fields: linkageFields,
      mode: 'create',
      key: 'linkage',
      required: true,
      topLevel: true,
      description: 'A new linkage.',
    },
    response: {
      shape: linkageShape,
      key: 'linkage',
      status: 201,
      location: (linkage) => `/contacts/${linkage.contact_id as string}/linkages/${linkage.id as string}`,
      description: 'The new linkage.',
    },
    run: ({ domain, ctx, id, input }) => domain.linkages.create(ctx, id, input),
    events: events.created,
    errors: ['validation.failed'],
    graphql: { field: 'linkContact', idArg: 'contactId' },
  }),
  action({
    name: 'updateContactLinkage',
    method: 'patch',
    path: '/linkages/{linkage_id}',
    params: linkageId,
    scopes: ['contacts:write'],
    summary: 'Change a linkage (relationship type, primary)',
    description: `{linkable_id} and {linkable_type} cannot be changed (validation.failed): link the contact to the new record instead. ${rules}`,
    body: {
      fields: linkageFields,
      mode: 'update',
      key: 'linkage',
      required: true,
      topLevel: true,
      description: 'Changes to a linkage: {relationship_type} and/or {primary}.',
    },
    response: { shape: linkageShape, key: 'linkage', status: 200, description: 'The linkage as written.' },
    run: ({ domain, ctx, id, params, input }) => domain.linkages.update(ctx, id, params.linkage_id, input),
    events: events.updated,
    errors: ['validation.failed', 'contact.primary_linkage'],
    graphql: { idArg: 'contactId' },
  }),
  action({
    name: 'deleteContactLinkage',
    method: 'delete',
    path: '/linkages/{linkage_id}',
    params: linkageId,
    scopes: ['contacts:write'],
    summary: 'Unlink a contact',
    description: `Removes the link; the contact stays. ${rules}`,
    response: { status: 204, description: 'Unlinked.' },
    run: ({ domain, ctx, id, params }) => domain.linkages.remove(ctx, id, params.linkage_id),
    events: events.deleted,
    errors: ['contact.primary_linkage'],
    graphql: { field: 'unlinkContact', idArg: 'contactId' },
  }),
];
