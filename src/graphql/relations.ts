import type { ObjectRef } from '@pothos/core';
import { requireScope } from '../kernel/auth.ts';
import type { WireRecord } from '../kernel/resource-service.ts';
import type { Scope } from '../kernel/scopes.ts';
import { linkageShape } from '../resources/contacts/contact-linkage.shape.ts';
import type { WireOf } from '../kernel/wire-shape.ts';
import type { GraphQLResolveInfo } from 'graphql';
import type { Builder, GraphQLContext } from './builder.ts';
import { selectedChildren } from './selection.ts';
import { loadersOf, type ParentKey, type RecordName } from './loaders.ts';
import type { RecordShape, ResourceTypes } from './resource-schema.ts';
import { wireObject } from './wire-object.ts';

// Relations between customers, leads, sites and contacts, in both directions:
//   Customer.sites / .contacts / .contactLinkages / .primaryContact
//   Lead.sites / .contacts / .contactLinkages / .primaryContact / .convertedCustomer
//   Site.customer / .lead / .contacts / .contactLinkages / .primaryContact
//   Contact.linkages, ContactLinkage.contact / .linkable (Customer | Lead | Site)
// Each reads through the operation's loaders (loaders.ts): batched, tenant-scoped, live records only, and
// serialized by the resources' services. A relation needs the read scope of the records it returns (as
// reading them over REST would); without it the field is null with auth.scope_missing and the rest of the
// result stands. Relations are not paginated: a parent's sites, contacts and linkages come whole, in the
// parent's order (sites by position, linkages and contacts oldest link first).

export type LinkableType = 'Customer' | 'Lead' | 'Site';

/** A record reached through a relation: no ETag (read it by id for one). */
function shape(record: WireRecord): RecordShape {
  return { record, etag: null };
}

const recordOfType: Record<LinkableType, RecordName> = { Customer: 'customer', Lead: 'lead', Site: 'site' };
const readScopeOfType: Record<LinkableType, Scope> = { Customer: 'customers:read', Lead: 'leads:read', Site: 'sites:read' };

export interface RelationTypes {
  ContactLinkage: ObjectRef<any, WireOf<typeof linkageShape>>;
}

export function registerRelations(builder: Builder, types: Record<'customer' | 'lead' | 'site' | 'contact', ResourceTypes>): RelationTypes {
  const Customer = types.customer.record;
  const Lead = types.lead.record;
  const Site = types.site.record;
  const Contact = types.contact.record;

  const Linkable = builder.unionType('Linkable', {
    description: 'A record a contact can be linked to.',
    types: [Customer, Lead, Site],
    resolveType: (value) => (value as RecordShape & { linkableType: LinkableType }).linkableType,
  });

  const ContactLinkage = wireObject(builder, linkageShape);

  /** The loader of live records of `name` with the child collections the query selects under this field. */
  const recordLoader = (ctx: GraphQLContext, name: RecordName, info: GraphQLResolveInfo) => loadersOf(ctx).record(name, selectedChildren(ctx.domain.resource(name).def, info));
  const contactsOf = async (ctx: GraphQLContext, key: ParentKey, info: GraphQLResolveInfo) => {
    const linkages = await loadersOf(ctx).linkagesTo.load(key);
    const contacts = await recordLoader(ctx, 'contact', info).loadMany(linkages.map((linkage) => linkage.contact_id));
    const failed = contacts.find((c) => c instanceof Error);
    if (failed) throw failed;
    return (contacts as (WireRecord | null)[]).filter((c) => c !== null).map(shape);
  };
  const primaryContactOf = async (ctx: GraphQLContext, key: ParentKey, info: GraphQLResolveInfo) => {
    const primary = (await loadersOf(ctx).linkagesTo.load(key)).find((linkage) => linkage.primary);
    const contact = primary ? await recordLoader(ctx, 'contact', info).load(primary.contact_id) : null;
    return contact ? shape(contact) : null;
  };

  builder.objectFields(ContactLinkage, (t) => ({
    contact: t.field({
      type: Contact,
      nullable: true,
      description: 'The contact (needs contacts:read).',
      authScopes: { scope: 'contacts:read' },
      resolve: async (linkage, _args, ctx, info) => {
        const contact = await recordLoader(ctx, 'contact', info).load(linkage.contact_id);
        return contact ? shape(contact) : null;
      },
    }),
    linkable: t.field({
      type: Linkable,
      nullable: true,
      description: 'The linked record (needs the read scope of its type: customers:read, leads:read or sites:read).',
      resolve: async (linkage, _args, ctx, info) => {
        const type = linkage.linkable_type as LinkableType;
        requireScope(ctx.principal, readScopeOfType[type]);
        const record = await recordLoader(ctx, recordOfType[type], info).load(linkage.linkable_id);
        return record ? { ...shape(record), linkableType: type } : null;
      },
    }),
  }));

  // Fields every linkable record has: its contacts, its linkages and its primary contact.
  const contactFields = (ref: ObjectRef<any, RecordShape>, type: LinkableType, noun: string) =>
    builder.objectFields(ref, (t) => ({
      contacts: t.field({
        type: [Contact],
        nullable: true,
        description: `Live contacts linked to this ${noun}, oldest link first (needs contacts:read).`,
        authScopes: { scope: 'contacts:read' },
        resolve: (parent, _args, ctx, info) => contactsOf(ctx, `${type}:${parent.record.id as string}`, info),
      }),
      contactLinkages: t.field({
        type: [ContactLinkage],
        nullable: true,
        description: `The linkages of contacts to this ${noun}, oldest first (needs contacts:read).`,
        authScopes: { scope: 'contacts:read' },
        resolve: (parent, _args, ctx) => loadersOf(ctx).linkagesTo.load(`${type}:${parent.record.id as string}`),
      }),
      primaryContact: t.field({
        type: Contact,
        nullable: true,
        description: `The primary contact of this ${noun}, null when no contact is linked (needs contacts:read).`,
        authScopes: { scope: 'contacts:read' },
        resolve: (parent, _args, ctx, info) => primaryContactOf(ctx, `${type}:${parent.record.id as string}`, info),
      }),
    }));
  contactFields(Customer, 'Customer', 'customer');
  contactFields(Lead, 'Lead', 'lead');
  contactFields(Site, 'Site', 'site');

  const sitesField = (ref: ObjectRef<any, RecordShape>, type: 'Customer' | 'Lead', noun: string) =>
    builder.objectField(ref, 'sites', (t) =>
      t.field({
        type: [Site],
        nullable: true,
        description: `Live sites of this ${noun} by position (the first is its primary billing address) (needs sites:read).`,
        authScopes: { scope: 'sites:read' },
        resolve: async (parent, _args, ctx) => (await loadersOf(ctx).sitesOf.load(`${type}:${parent.record.id as string}`)).map(shape),
      }),
    );
  sitesField(Customer, 'Customer', 'customer');
  sitesField(Lead, 'Lead', 'lead');

  /** A record by id through its loader, or null (no id, deleted, or another tenant's). */
  const byId = async (ctx: GraphQLContext, name: RecordName, id: unknown, info: GraphQLResolveInfo) => {
    if (typeof id !== 'string') return null;
    const record = await recordLoader(ctx, name, info).load(id);
    return record ? shape(record) : null;
  };

  builder.objectFields(Site, (t) => ({
    customer: t.field({
      type: Customer,
      nullable: true,
      description: 'The parent customer; null when the site belongs to a lead (needs customers:read).',
      authScopes: { scope: 'customers:read' },
      resolve: (site, _args, ctx, info) => (site.record.siteable_type === 'Customer' ? byId(ctx, 'customer', site.record.siteable_id, info) : null),
    }),
    lead: t.field({
      type: Lead,
      nullable: true,
      description: 'The parent lead; null when the site belongs to a customer (needs leads:read).',
      authScopes: { scope: 'leads:read' },
      resolve: (site, _args, ctx, info) => (site.record.siteable_type === 'Lead' ? byId(ctx, 'lead', site.record.siteable_id, info) : null),
    }),
  }));

  builder.objectField(Lead, 'convertedCustomer', (t) =>
    t.field({
      type: Customer,
      nullable: true,
      description: 'The customer the lead was converted into, while it is live (needs customers:read).',
      authScopes: { scope: 'customers:read' },
      resolve: (lead, _args, ctx, info) => byId(ctx, 'customer', lead.record.converted_customer_id, info),
    }),
  );

  builder.objectField(Contact, 'linkages', (t) =>
    t.field({
      type: [ContactLinkage],
      nullable: true,
      description: "The contact's linkages, oldest first (as GET /contacts/{id}/linkages; needs contacts:read).",
      authScopes: { scope: 'contacts:read' },
      resolve: (contact, _args, ctx) => loadersOf(ctx).linkagesOf.load(contact.record.id as string),
    }),
  );

  return { ContactLinkage };
}
