import type { BatchedRelation, Relations, RelationReadArgs } from '../../kernel/relation.ts';
import { linkageOrder, serializeLinkage, type LinkageRow, type WireLinkage } from './contact-linkage.service.ts';
import { linkageShape } from './contact-linkage.shape.ts';
import type { LinkableType } from './linkables.ts';

// The relations contact linkages give: a linkable record's contacts, linkages and primary contact, and a
// contact's linkages. Linkages are read in batches (one statement for every record of every linkable type asked
// for in the same tick), only those whose contact is live, oldest link first.

function groupBy<T>(rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(row);
  }
  return groups;
}

/** Linkages to `<LinkableType>:<id>` keys whose contact is live, oldest first, aligned with the keys. */
async function linkagesTo(keys: readonly string[], { db }: RelationReadArgs): Promise<WireLinkage[][]> {
  const idsByType = new Map<string, Set<string>>();
  for (const key of keys) {
    const [type, id] = key.split(':') as [string, string];
    (idsByType.get(type) ?? idsByType.set(type, new Set()).get(type)!).add(id);
  }
  const rows = (await db.contactLinkage.findMany({
    where: {
      OR: [...idsByType].map(([type, ids]) => ({ linkable_type: type, linkable_id: { in: [...ids] } })),
      contact: { deleted_at: null },
    },
    orderBy: [...linkageOrder],
  })) as LinkageRow[];
  const groups = groupBy(rows, (row) => `${row.linkable_type}:${row.linkable_id}`);
  return keys.map((key) => (groups.get(key) ?? []).map(serializeLinkage));
}

/** Linkages of live contacts, oldest first, aligned with the contact ids. */
async function linkagesOf(contactIds: readonly string[], { db }: RelationReadArgs): Promise<WireLinkage[][]> {
  const rows = (await db.contactLinkage.findMany({
    where: { contact_id: { in: [...new Set(contactIds)] }, contact: { deleted_at: null } },
    orderBy: [...linkageOrder],
  })) as LinkageRow[];
  const groups = groupBy(rows, (row) => row.contact_id);
  return contactIds.map((id) => (groups.get(id) ?? []).map(serializeLinkage));
}

/** contacts, contact_linkages and primary_contact of a linkable record (`noun` names it in descriptions). */
export function contactRelations(type: LinkableType, noun: string): Relations {
  const contactLinkages: BatchedRelation = {
    kind: 'batched',
    shape: linkageShape,
    scope: 'contacts:read',
    many: true,
    key: (parentId) => `${type}:${parentId}`,
    load: linkagesTo,
    description: `The linkages of contacts to this ${noun}, oldest first.`,
  };
  return {
    contacts: {
      kind: 'through',
      via: 'contact_linkages',
      model: 'contact',
      many: true,
      idOf: (linkage) => linkage.contact_id as string,
      description: `Live contacts linked to this ${noun}, oldest link first.`,
    },
    contact_linkages: contactLinkages,
    primary_contact: {
      kind: 'through',
      via: 'contact_linkages',
      model: 'contact',
      many: false,
      idOf: (linkage) => linkage.contact_id as string,
      where: (linkage) => linkage.primary === true,
      description: `The primary contact of this ${noun}, null when no contact is linked.`,
    },
  };
}

/** A contact's linkages. */
export const contactLinkagesRelation: BatchedRelation = {
  kind: 'batched',
  shape: linkageShape,
  scope: 'contacts:read',
  many: true,
  key: (parentId) => parentId,
  load: linkagesOf,
  description: "The contact's linkages, oldest first.",
};
