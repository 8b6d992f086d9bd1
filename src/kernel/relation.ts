import type { FieldSpec } from './fields.ts';
import type { ModelName } from './model-delegates.ts';
import type { ChildCollection, ReadOnlyField, ResourceDefinition, ResourceLookup } from './resource.ts';
import type { Scope } from './scopes.ts';
import type { TenantClient } from './tenancy.ts';
import type { WireShape } from './wire-shape.ts';

// Relations: how a served object (a record, a child entry, a wire shape) reaches other served objects. They are
// declarations; the adapters generate fields from them (GraphQL: one field per relation, batched per operation).
//
// - Forward links are derived: a field (or read-only field) with `references: { model }` gives the relation named
//   after it without `_id` (customer_id -> customer, converted_job_id -> converted_job), to the record of that
//   model (a declared resource, or a reference target such as the system options catalog).
// - Reverse and polymorphic links are declared in the `relations` block of a resource or a wire shape.
//
// Every relation needs the read scope of what it returns (a resource's `<scope>:read`, or the scope a reference
// target or a batched relation declares); reads see only the caller's account and only live records.

/** What a batched read gets besides its keys. Runs in the caller's tenant. */
export interface RelationReadArgs {
  db: TenantClient;
  resources: ResourceLookup;
}

/**
 * Records of a Prisma model that is not a declared resource but that fields reference (users, the system options
 * catalog): the shape they are served in, the scope needed to read them (null: any key that reads the parent)
 * and their batched read by id.
 */
export interface ReferenceTarget {
  model: ModelName;
  shape: WireShape;
  scope: Scope | null;
  /** Served objects aligned with `ids`: null where absent. */
  load(ids: readonly string[], args: RelationReadArgs): Promise<(Record<string, unknown> | null)[]>;
}

/** A record of `model` whose id is the parent's `column` (null when unset, absent or not live). */
export interface ReferenceRelation {
  kind: 'reference';
  column: string;
  model: ModelName;
  description: string;
}

/**
 * Live records of `model` whose `column` is the parent's id, in the target resource's sibling order (or `order`).
 * With `via`, the column is one of a link table's (a child collection of the target, e.g. job_assets.asset_id) and
 * the records are those whose id is the link's `key` (job_id): the jobs that name an asset.
 */
export interface CollectionRelation {
  kind: 'collection';
  model: ModelName;
  column: string;
  /** The link table holding `column`, and its column with the target's id. */
  via?: CollectionVia;
  /** SQL ORDER BY over the target's row alias `t` instead of its sibling order (an asset's service history). */
  order?: string;
  description: string;
}

/** The link table of a collection relation: `table`.`key` is the target's id (CollectionRelation.via). */
export interface CollectionVia {
  table: string;
  key: string;
}

/**
 * Objects read in batches by a key the parent's id gives (`key`), with `load` (one statement per batch, results
 * aligned with the keys). Relations that share a `load` function share its batches, whatever their parents.
 */
export interface BatchedRelation {
  kind: 'batched';
  shape: WireShape;
  scope: Scope | null;
  many: boolean;
  /** The batch key of a parent, from its id alone (a read serves only the fields its query selects, and always the id). */
  key(parentId: string): string | null;
  load(keys: readonly string[], args: RelationReadArgs): Promise<unknown[]>;
  description: string;
}

/**
 * Records of `model` reached through the entries of another relation or a child collection of the same parent
 * (`via`): each entry gives an id (`idOf`); `where` keeps some entries. The relation needs the scope of `via`
 * too. With many false, the first kept entry's record (null when none).
 */
export interface ThroughRelation {
  kind: 'through';
  via: string;
  model: ModelName;
  many: boolean;
  idOf(entry: Record<string, unknown>): string;
  where?(entry: Record<string, unknown>): boolean;
  description: string;
}

/** One record of one of several resources: `typeColumn` says which (its values are the keys of `models`), `idColumn` which one. */
export interface PolymorphicRelation {
  kind: 'polymorphic';
  typeColumn: string;
  idColumn: string;
  /** Value of typeColumn -> model. */
  models: Record<string, ModelName>;
  /** The union type of the targets (GraphQL). */
  union: { name: string; description: string };
  description: string;
}

export type RelationDefinition = ReferenceRelation | CollectionRelation | BatchedRelation | ThroughRelation | PolymorphicRelation;

/** Relations by name (snake_case, as wire names; GraphQL serves them in camelCase). */
export type Relations = Record<string, RelationDefinition>;

function referenceRelations(fields: Record<string, FieldSpec | ReadOnlyField>, noun: string): Relations {
  const out: Relations = {};
  for (const [column, spec] of Object.entries(fields)) {
    if (!spec.references) continue;
    if (!column.endsWith('_id')) throw new Error(`${noun}.${column} references ${spec.references.model}: a reference column's name ends with _id`);
    out[column.slice(0, -3)] = {
      kind: 'reference',
      column,
      model: spec.references.model,
      description: `The ${spec.references.label} that {${column}} refers to; null when it is unset or deleted.`,
    };
  }
  return out;
}

const ofResource = new WeakMap<ResourceDefinition, Relations>();

/** A resource's relations: derived from its references, then its declared block. */
export function relationsOf(def: ResourceDefinition): Relations {
  let relations = ofResource.get(def);
  if (!relations) {
    relations = { ...referenceRelations({ ...def.fields, ...def.readOnly }, def.name), ...def.relations };
    ofResource.set(def, relations);
  }
  return relations;
}

/** The relations of one entry of a child collection (derived from its references). */
export function childRelationsOf(collection: ChildCollection): Relations {
  return referenceRelations({ ...collection.fields, ...collection.readOnly }, collection.label);
}
