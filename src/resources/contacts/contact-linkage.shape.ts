import type { FieldSpec } from '../../kernel/fields.ts';
import type { ModelName } from '../../kernel/model-delegates.ts';
import { servedFields, wireShape } from '../../kernel/wire-shape.ts';
import { linkableTypes, type LinkableType } from './linkables.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

// A contact linkage: one link between a contact and a Customer, Lead or Site (REST /contacts/{id}/linkages,
// GraphQL linkContact, Contact.linkages ...). Its written fields and the served object.

export const relationshipTypes = vocabulary('RelationshipType', ['associated', 'billing', 'technical', 'decision_maker'], {
  description: 'How a contact relates to the record it is linked to.',
  describe: (type) =>
    ({
      associated: 'Associated with the record, in no particular role (the default).',
      billing: 'The contact for invoices and payments.',
      technical: 'The contact for the work itself: access, equipment, the job on site.',
      decision_maker: 'The person who decides: accepts estimates, approves work.',
    })[type],
});

/** The written fields of a linkage with their create/update rules (contact-linkage.service.ts checks them). */
export const linkageFields = {
  linkable_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, description: 'Id of the Customer, Lead or Site the contact is linked to.', writeRule: 'A live record of this account.' },
  linkable_type: { kind: 'string', enum: linkableTypes, create: 'required', update: 'not_accepted', nullable: false, description: 'The type of the linked record: Customer, Lead or Site.' },
  relationship_type: {
    kind: 'string',
    enum: relationshipTypes,
    create: 'optional',
    update: 'optional',
    nullable: false,
    description: 'How the contact relates to the record.',
    writeRule: 'Default associated.',
  },
  primary: {
    kind: 'boolean',
    create: 'optional',
    update: 'optional',
    nullable: false,
    description: "Whether the contact is the record's primary contact; at most one per record.",
  },
} as const satisfies Record<string, FieldSpec>;

export const linkageShape = wireShape({
  name: 'ContactLinkage',
  description:
    "One link between a contact and a Customer, Lead or Site. Linkages have no ETag: their writes need none. Primary rules: (1) the first contact linked to a record becomes its primary whatever primary says; (2) a later link is not primary unless primary is true, which moves the primary to this contact and demotes the previous one; (3) updating primary to true does the same; primary false is accepted only on a linkage that is not primary (on the primary it is refused with contact.primary_linkage; make another contact primary instead); (4) removing the primary's linkage is refused with contact.primary_linkage (link the replacement first); (5) at most one primary per record, also under concurrent requests.",
  fields: {
    id: { kind: 'uuid' },
    contact_id: { kind: 'uuid', description: 'The id of the linked contact.' },
    ...servedFields(linkageFields),
    created_at: { kind: 'datetime' },
    updated_at: { kind: 'datetime' },
  },
  relations: {
    contact: { kind: 'reference', column: 'contact_id', model: 'contact', description: 'The contact.' },
    linkable: {
      kind: 'polymorphic',
      typeColumn: 'linkable_type',
      idColumn: 'linkable_id',
      models: { Customer: 'customer', Lead: 'lead', Site: 'site' } satisfies Record<LinkableType, ModelName>,
      union: { name: 'Linkable', description: 'A record a contact can be linked to.' },
      description: 'The linked record, while it is live.',
    },
  },
});
