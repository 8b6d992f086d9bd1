import DataLoader from 'dataloader';
import { runAsTenant } from '../../kernel/context.ts';
import type { BatchedRelation, CollectionRelation, ReferenceTarget, RelationReadArgs } from '../../kernel/relation.ts';
import type { ReadOptions, Single } from '../../kernel/resource-service.ts';
import type { GraphQLContext } from './builder.ts';

// Batched reads behind the relation fields (relations.ts), one set per GraphQL operation. Every field of one kind
// asks its loader for one key; DataLoader gathers the keys asked for in the same tick into one batch, and each
// batch is ONE read of the domain (the resource service's getMany or listBy, a reference target's load, a batched
// relation's load), plus one statement per child collection the query selects. So
// `customers(limit: 50) { nodes { sites { ... } contacts { ... } } }` costs the list statement plus one
// statement per relation level, not one per customer.
//
// What is read, how (live rows only, order, children) and its wire shape belong to the domain; this file only
// batches and caches. Batches run in the caller's tenant (runAsTenant), whichever async context DataLoader
// schedules them from, through the tenant-scoped client.
//
// Loaders cache what they read for the rest of the operation; a mutation clears them (clearLoaders) so
// selections after a write never see rows read before it.

export interface RelationLoaders {
  /** Live records of a resource by id with their ETags, serving what `read` names (ReadOptions.fields); null when absent. */
  record(resource: string, read: ReadOptions): DataLoader<string, Single | null>;
  /** Live records of a resource whose `column` is the key, with their ETags, in the resource's sibling order: the first `perKey` of each key. */
  recordsBy(resource: string, column: string, read: ReadOptions, perKey: number, how?: Pick<CollectionRelation, 'via' | 'order'>): DataLoader<string, Single[]>;
  /** Served objects of a reference target by id; null when absent. */
  target(target: ReferenceTarget): DataLoader<string, Record<string, unknown> | null>;
  /** A batched relation's reads by key; relations with the same load share one loader. */
  batched(relation: BatchedRelation): DataLoader<string, unknown>;
}

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

const perHolder = new WeakMap<object, RelationLoaders>();

/**
 * Makes this operation read through the loaders of `holder`, shared by every operation resolving it: one event
 * fanned out to many subscriptions of one account reads each relation once, and each event reads afresh (a
 * subscription lives long; what it read for one event must not answer the next).
 */
export function shareLoaders(ctx: GraphQLContext, holder: object): void {
  let loaders = perHolder.get(holder);
  if (!loaders) perHolder.set(holder, (loaders = createLoaders(ctx)));
  perOperation.set(ctx, loaders);
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

/** A read's fields as a key (computed once per ReadOptions object: selectedRead hands out one per selection). */
const keys = new WeakMap<ReadOptions, string>();
function fieldsKey(read: ReadOptions): string {
  let key = keys.get(read);
  if (key === undefined) keys.set(read, (key = read.fields ? read.fields.join(',') : '*'));
  return key;
}

function createLoaders(ctx: GraphQLContext): RelationLoaders {
  const { domain } = ctx;
  const args: RelationReadArgs = { db: domain.db, resources: (name) => domain.resource(name) };
  const loader = <K, V>(batch: (keys: readonly K[]) => Promise<V[]>) =>
    new DataLoader<K, V>((keys) => runAsTenant(ctx.principal.accountId, () => batch(keys)));

  // One loader per key below: DataLoader caches by key, and a record read without some fields (its lines, its
  // customer_id) must not answer a selection that wants them.
  const made = new Map<unknown, DataLoader<string, any>>();
  const once = <V>(key: unknown, make: () => DataLoader<string, V>): DataLoader<string, V> =>
    made.get(key) ?? made.set(key, make()).get(key)!;

  return {
    record: (resource, read) => once(`record:${resource}|${fieldsKey(read)}`, () => loader((ids) => domain.resource(resource).getMany(domain.db, ids, read))),
    recordsBy: (resource, column, read, perKey, how = {}) =>
      once(`by:${resource}.${how.via ? `${how.via.table}.` : ''}${column}|${how.order ?? ''}|${fieldsKey(read)}|${perKey}`, () =>
        loader((keys) => domain.resource(resource).listBy(domain.db, column, keys, { ...read, perKey, via: how.via, order: how.order })),
      ),
    target: (target) => once(target, () => loader((ids) => target.load(ids, args))),
    batched: (relation) => once(relation.load, () => loader((keys) => relation.load(keys, args))),
  };
}
