import DataLoader from 'dataloader';
import { runAsTenant } from '../kernel/context.ts';
import type { WireRecord } from '../kernel/resource-service.ts';
import type { TenantClient } from '../kernel/tenancy.ts';
import { linkageOrder, serializeLinkage, type LinkageRow, type WireLinkage } from '../resources/contacts/contact-linkage.service.ts';
import { tenantQuery } from '../kernel/tenant-sql.ts';
import type { GraphQLContext } from './builder.ts';
import type { WireOf } from '../kernel/wire-shape.ts';
import type { userShape } from '../resources/accounts/user.shape.ts';
import type { systemOptionShape } from '../resources/lookups/lookup.shapes.ts';

type WireSystemOption = WireOf<typeof systemOptionShape>;

// Batched reads behind the relation fields (relations.ts), one set per GraphQL operation. Every field of one
// kind asks its loader for one key; DataLoader gathers the keys asked for in the same tick into one batch, and
// each batch is ONE SQL statement (two for contacts: the rows and their phone numbers), whatever the number of
// parents. So `customers(limit: 50) { nodes { sites { ... } contacts { ... } } }` costs the list statement plus
// one statement per relation level, not one per customer.
//
// Reads go through the tenant-scoped client (domain.db) inside the caller's tenant, so they see only the
// caller's account, and they read only live rows (deleted_at IS NULL). Records are read and serialized by the
// resource's own service (getMany, listBy), so a record reached through a relation has exactly the wire shape
// of the same record read by id or listed.
//
// Loaders cache what they read for the rest of the operation; a mutation clears them (clearLoaders) so
// selections after a write never see rows read before it.

/** `${type}:${id}`: the key of a record that sites or linkages hang from. */
export type ParentKey = `${'Customer' | 'Lead' | 'Site'}:${string}`;

export interface RelationLoaders {
  /**
   * A live record of a resource by id, wire-serialized; null when absent or deleted. `children`: the child
   * collections to read (the ones the query selects; the others are served empty); omitted: all of them.
   */
  record(name: RecordName, children?: readonly string[]): DataLoader<string, WireRecord | null>;
  /** Live sites of `Customer:<id>` or `Lead:<id>`, in the parent's order (position, then creation). */
  sitesOf: DataLoader<ParentKey, WireRecord[]>;
  /** Linkages to `Customer|Lead|Site:<id>` whose contact is live, oldest first. */
  linkagesTo: DataLoader<ParentKey, WireLinkage[]>;
  /** Linkages of a live contact, oldest first. */
  linkagesOf: DataLoader<string, WireLinkage[]>;
  /** Live records of a resource whose `column` is the key (Site.systems, Customer.jobs ...), oldest first. */
  recordsBy(name: RecordName, column: string, children?: readonly string[]): DataLoader<string, WireRecord[]>;
  /** Users of the caller's account by id (assignees), active or not; null when absent. */
  user: DataLoader<string, WireUser | null>;
  /** Entries of the shared system options catalog by id (System.systemOption, Site.systemOption); null when absent. */
  systemOption: DataLoader<string, WireSystemOption | null>;
}

/** Resources that relations return. */
export type RecordName = 'customer' | 'lead' | 'site' | 'contact' | 'system' | 'item' | 'tax_rate' | 'job' | 'estimate';

/** A user of the account as relations show it (assignees). */
export type WireUser = WireOf<typeof userShape>;

type Row = Record<string, unknown> & { id: string };

const perOperation = new WeakMap<GraphQLContext, RelationLoaders>();

/** The loaders of this operation (made on first use). */
export function loadersOf(ctx: GraphQLContext): RelationLoaders {
  let loaders = perOperation.get(ctx);
  if (!loaders) {
    loaders = createLoaders(ctx);
    perOperation.set(ctx, loaders);
  }
  return loaders;
}

/** Forgets everything read so far in this operation. */
export function clearLoaders(ctx: GraphQLContext): void {
  perOperation.delete(ctx);
}

/** Waits for a mutation's write, then clears the loaders, so the selections after it read the written state. */
export async function written<T>(ctx: GraphQLContext, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } finally {
    clearLoaders(ctx);
  }
}

function groupBy<T>(rows: T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(row);
  }
  return groups;
}

/** Splits `${type}:${id}` keys by type. */
function idsByType(keys: readonly ParentKey[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const key of keys) {
    const [type, id] = key.split(':') as [string, string];
    (out.get(type) ?? out.set(type, new Set()).get(type)!).add(id);
  }
  return new Map([...out].map(([type, ids]) => [type, [...ids]]));
}

function createLoaders(ctx: GraphQLContext): RelationLoaders {
  const { domain } = ctx;
  const db: TenantClient = domain.db;
  // Batches run after the resolvers that asked for them; they run in the caller's tenant explicitly, so the
  // tenant-scoped client never depends on which async context DataLoader schedules them from.
  const asTenant = <K, V>(batch: (keys: readonly K[]) => Promise<V[]>) => (keys: readonly K[]) => runAsTenant(ctx.principal.accountId, () => batch(keys));

  // One loader per resource and set of child collections: DataLoader caches by key, and a record read without
  // its lines must not answer a selection that wants them.
  const records = new Map<string, DataLoader<string, WireRecord | null>>();
  const record = (name: RecordName, children?: readonly string[]) => {
    const cacheKey = `${name}|${children?.join(',') ?? '*'}`;
    let loader = records.get(cacheKey);
    if (!loader) {
      const service = domain.resource(name);
      loader = new DataLoader<string, WireRecord | null>(
        asTenant((ids) => service.getMany(db, ids, { children })),
      );
      records.set(cacheKey, loader);
    }
    return loader;
  };

  const sitesOf = new DataLoader<ParentKey, WireRecord[]>(
    asTenant(async (keys) => {
      const byType = idsByType(keys);
      const service = domain.resource('site');
      // One statement, in the order of the SQL function that also chooses a parent's primary site.
      const rows = await tenantQuery<Row>(
        db,
        `SELECT s.* FROM sites s WHERE s.account_id = $1::uuid AND (s.customer_id = ANY($2::uuid[]) OR s.lead_id = ANY($3::uuid[])) AND s.deleted_at IS NULL ORDER BY fl_site_order_key(s)`,
        byType.get('Customer') ?? [],
        byType.get('Lead') ?? [],
      );
      const groups = groupBy(rows, (row) => `${row.siteable_type as string}:${row.siteable_id as string}`);
      return keys.map((key) => (groups.get(key) ?? []).map((row) => service.serialize(row)));
    }),
  );

  const linkagesTo = new DataLoader<ParentKey, WireLinkage[]>(
    asTenant(async (keys) => {
      const byType = idsByType(keys);
      const rows = (await db.contactLinkage.findMany({
        where: {
          OR: [...byType.entries()].map(([type, ids]) => ({ linkable_type: type, linkable_id: { in: ids } })),
          contact: { deleted_at: null, account_id: ctx.principal.accountId },
        },
        orderBy: [...linkageOrder],
      })) as LinkageRow[];
      const groups = groupBy(rows, (row) => `${row.linkable_type}:${row.linkable_id}`);
      return keys.map((key) => (groups.get(key) ?? []).map(serializeLinkage));
    }),
  );

  const linkagesOf = new DataLoader<string, WireLinkage[]>(
    asTenant(async (contactIds) => {
      const rows = (await db.contactLinkage.findMany({
        where: { contact_id: { in: [...new Set(contactIds)] }, contact: { deleted_at: null, account_id: ctx.principal.accountId } },
        orderBy: [...linkageOrder],
      })) as LinkageRow[];
      const groups = groupBy(rows, (row) => row.contact_id);
      return contactIds.map((id) => (groups.get(id) ?? []).map(serializeLinkage));
    }),
  );

  const byColumn = new Map<string, DataLoader<string, WireRecord[]>>();
  const recordsBy = (name: RecordName, column: string, children?: readonly string[]) => {
    const cacheKey = `${name}.${column}|${children?.join(',') ?? '*'}`;
    let loader = byColumn.get(cacheKey);
    if (!loader) {
      const service = domain.resource(name);
      loader = new DataLoader<string, WireRecord[]>(
        asTenant((keys) => service.listBy(db, column, keys, { children })),
      );
      byColumn.set(cacheKey, loader);
    }
    return loader;
  };

  const user = new DataLoader<string, WireUser | null>(
    asTenant(async (ids) => {
      const wanted = [...new Set(ids)].filter((id) => /^\d{1,18}$/.test(id)).map((id) => BigInt(id));
      const rows = wanted.length === 0 ? [] : await db.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true, email: true, role: true } });
      const byId = new Map(rows.map((row) => [String(row.id), { id: Number(row.id), name: row.name, email: row.email, role: row.role }]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  );

  // The catalog is small, shared by every account and read-only: a batch reads it whole through the service
  // that serves GET /system_options (same entries, same shape), one statement per batch.
  const systemOption = new DataLoader<string, WireSystemOption | null>(async (ids) => {
    const { data } = await domain.lookups.systemOptions([]);
    const byId = new Map(data.map((option) => [option.id, option]));
    return ids.map((id) => byId.get(id) ?? null);
  });

  return { record, sitesOf, linkagesTo, linkagesOf, recordsBy, user, systemOption };
}
