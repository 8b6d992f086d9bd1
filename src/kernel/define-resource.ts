import type { Prisma } from '../generated/prisma/client.ts';
import type { FieldKind, FieldSpec } from './fields.ts';
import type { ModelName, ModelRow } from './model-delegates.ts';
import { camelCase, pascalCase, pluralOf, type CamelCase, type PluralOf } from './naming.ts';
import { listParameters, type ListSource } from './list-declaration.ts';
import { TAKEN, uniqueFieldIndexes } from './unique-fields.ts';
import type { Single } from './resource-service.ts';
import type { RequestContext } from './context.ts';
import type { AfterWriteArgs, CommitHookArgs, ChildCollection, ChildComputeArgs, DeleteHookArgs, ReadOnlyField, ResourceDefinition, WriteHookArgs } from './resource.ts';

// Typed declarations. A resource is declared with defineResource({...}) and a reusable child collection with
// defineChildCollection({...}). Both return the declaration unchanged (the kernel reads it as a ResourceDefinition /
// ChildCollection); what they add is types:
//
// - literal names are kept: `scope: 'jobs'` stays 'jobs', so the scope catalog (src/resources/catalog.ts) and the
//   `Scope` type ('jobs:read' | ...) are derived from the declarations;
// - `model` must name a delegate of the generated Prisma client ('job', 'jobAssignment' ...), and so must
//   `references.model` of a field;
// - hooks get typed arguments: `values` from the declared fields (below), `existing` and `row` as Prisma reads the
//   model's row; a child collection's `compute` gets its entries typed from the collection's fields.

/** The TypeScript type of each field kind, as validated values reach the hooks (before they are stored). */
interface ValidatedKinds {
  string: string;
  text: string;
  email: string;
  url: string;
  uuid: string;
  integer: number;
  int64: number;
  number: number;
  /** A canonical decimal string ("12.50"). */
  decimal: string;
  boolean: boolean;
  /** YYYY-MM-DD. */
  date: string;
  datetime: Date;
  'string[]': string[];
}

/** The same, as stored through Prisma and read back (a child entry merges the stored child with what was sent). */
interface StoredKinds extends Omit<ValidatedKinds, 'int64' | 'decimal' | 'date'> {
  int64: bigint;
  decimal: string | Prisma.Decimal;
  date: Date;
}

/** A field declared with `nullable: false` or required on create is never null; any other field may be cleared. */
type Clearable<F> = F extends { nullable: false } ? never : F extends { create: 'required' } ? never : null;

/** A field's value: its kind's type (its enum's members when it declares one), or null where it may be cleared. */
type ValueOf<F extends { kind: FieldKind; enum?: readonly string[] }, Kinds extends Record<FieldKind, unknown>> =
  | (F extends { enum: readonly (infer Member)[] } ? Member : Kinds[F['kind']])
  | Clearable<F>;

/** Read-only fields (kept by the service or the database) are nullable as declared. */
type ReadOnlyValueOf<F extends ReadOnlyField, Kinds extends Record<FieldKind, unknown>> =
  | (F extends { enum: readonly (infer Member)[] } ? Member : Kinds[F['kind']])
  | (F extends { nullable: true } ? null : never);

/** Each key is present only when the write carries it, so every key is optional; hooks may set them (-readonly). */
type Values<Fields extends Record<string, FieldSpec>, ReadOnly extends Record<string, ReadOnlyField>, Kinds extends Record<FieldKind, unknown>> = {
  -readonly [K in keyof Fields]?: ValueOf<Fields[K], Kinds>;
} & { -readonly [K in keyof ReadOnly]?: ReadOnlyValueOf<ReadOnly[K], Kinds> };

/** What the kernel's conventions add to a write's values (when the resource has them). A type, not an interface, so
 * that values stay assignable to the kernel's Record<string, unknown>. */
type ConventionValues = {
  number?: string;
  status?: string;
  labels?: string[];
  custom_fields?: Record<string, unknown>;
};

/**
 * The `values` of a resource's write hooks: the declared fields sent (validated), the conventions, and the read-only
 * columns a hook may fill (a site's customer_id).
 */
export type WriteValues<Fields extends Record<string, FieldSpec>, ReadOnly extends Record<string, ReadOnlyField>> = Values<Fields, ReadOnly, ValidatedKinds> &
  ConventionValues;

/** A child entry as its collection's `compute` sees it: the stored child's values, then what was sent. */
export type ChildEntryValues<Fields extends Record<string, FieldSpec>, ReadOnly extends Record<string, ReadOnlyField>> = Values<Fields, ReadOnly, StoredKinds>;

/** The hooks of a resource, typed from its values and its model's row (see ResourceDefinition['hooks']). */
export interface ResourceHooks<Values, Row> {
  beforeWrite?(args: WriteHookArgs<Values, Row>): Promise<void>;
  afterWrite?(args: AfterWriteArgs<Values, Row>): Promise<void>;
  beforeDelete?(args: DeleteHookArgs<Row>): Promise<void>;
  afterDelete?(args: DeleteHookArgs<Row>): Promise<void>;
  afterCommit?(args: CommitHookArgs): Promise<Single>;
  authorizeChange?(args: { ctx: RequestContext; row: Row; operation: 'update' | 'delete' }): void;
}

/** A ResourceDefinition as the kernel reads it, with literal names, a Prisma model and typed hooks. */
export type ResourceDeclaration<
  Name extends string,
  Scope extends string,
  ClassName extends string,
  Model extends ModelName,
  Fields extends Record<string, FieldSpec>,
  ReadOnly extends Record<string, ReadOnlyField>,
> = Omit<ResourceDefinition, 'name' | 'scope' | 'className' | 'model' | 'fields' | 'readOnly' | 'hooks'> & {
  name: Name;
  scope: Scope;
  className: ClassName;
  model: Model;
  fields: Fields;
  readOnly?: ReadOnly;
  hooks?: ResourceHooks<WriteValues<Fields, ReadOnly>, ModelRow<Model>>;
};

/** The names that follow from the noun: written in a declaration only where they differ. */
type DerivedNames = 'plural' | 'table' | 'scope' | 'className' | 'model' | 'list';

/**
 * A declaration as written: the noun (`name`, snake_case singular) and what is the resource's own. The other names
 * follow from the noun (src/kernel/naming.ts) unless written: `plural` (path segment) and `table` are its plural,
 * `scope` the plural, `className` its PascalCase, `model` (the Prisma delegate) its camelCase.
 */
export type ResourceSource<
  Name extends string,
  Scope extends string,
  ClassName extends string,
  Model extends ModelName,
  Fields extends Record<string, FieldSpec>,
  ReadOnly extends Record<string, ReadOnlyField>,
> = Omit<ResourceDeclaration<Name, Scope, ClassName, Model, Fields, ReadOnly>, DerivedNames> & {
  plural?: string;
  table?: string;
  scope?: Scope;
  className?: ClassName;
  model?: Model;
  /** Filters and sorts whose value types follow from the fields (src/kernel/list-declaration.ts). */
  list: ListSource;
};

/** The delegate a noun names when the declaration writes no `model`: never (a compile error) if the client has none. */
type DefaultModel<Name extends string> = CamelCase<Name> extends ModelName ? CamelCase<Name> : never;

/**
 * Declares a resource (see ResourceDefinition for what each key means): the names that follow from the noun are
 * filled in, and the declaration is returned for the kernel to read. The type parameters are inferred from the
 * declaration; nothing is written between the angle brackets.
 */
export function defineResource<
  const Name extends string,
  const Fields extends Record<string, FieldSpec>,
  const Scope extends string = PluralOf<Name>,
  const ClassName extends string = Capitalize<CamelCase<Name>>,
  const Model extends ModelName = DefaultModel<Name>,
  const ReadOnly extends Record<string, ReadOnlyField> = Record<never, ReadOnlyField>,
>(source: ResourceSource<Name, Scope, ClassName, Model, Fields, ReadOnly>): ResourceDeclaration<Name, Scope, ClassName, Model, Fields, ReadOnly> {
  const plural = source.plural ?? pluralOf(source.name);
  return {
    ...source,
    plural,
    table: source.table ?? plural,
    scope: source.scope ?? (plural as Scope),
    className: source.className ?? (pascalCase(source.name) as ClassName),
    model: source.model ?? (camelCase(source.name) as Model),
    list: listParameters(source, source.list),
    // The number convention's index (Prisma's name for @@unique([account_id, number])) and the unique fields'.
    uniqueIndexes: {
      ...(source.conventions.number ? { [`${source.table ?? plural}_account_id_number_key`]: { field: 'number', message: TAKEN } } : {}),
      ...uniqueFieldIndexes({ table: source.table ?? plural, fields: source.fields }),
      ...source.uniqueIndexes,
    },
  };
}

/** A ChildCollection as written in a declaration: `model` a Prisma delegate, `compute` typed from the fields. */
export type ChildCollectionDeclaration<Model extends ModelName, Fields extends Record<string, FieldSpec>, ReadOnly extends Record<string, ReadOnlyField>> = Omit<
  ChildCollection,
  'model' | 'fields' | 'readOnly' | 'compute'
> & {
  model: Model;
  fields: Fields;
  readOnly?: ReadOnly;
  compute?(args: ChildComputeArgs<ChildEntryValues<Fields, ReadOnly>>): Promise<void>;
};

/** Declares a child collection shared by several resources (line items); inline collections need no helper. */
export function defineChildCollection<
  const Model extends ModelName,
  const Fields extends Record<string, FieldSpec>,
  const ReadOnly extends Record<string, ReadOnlyField> = Record<never, ReadOnlyField>,
>(collection: ChildCollectionDeclaration<Model, Fields, ReadOnly>): ChildCollectionDeclaration<Model, Fields, ReadOnly> {
  return collection;
}
