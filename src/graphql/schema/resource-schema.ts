import type { EnumRef, ObjectRef } from '@pothos/core';
import { Single } from '../../kernel/resource-service.ts';
import { bodyKeyOf, childOutputFields, outputFields, serves, type ChildCollection, type RecordFieldInfo, type ResourceDefinition } from '../../kernel/resource.ts';
import type { ValueType } from '../../kernel/listing.ts';
import type { Scope } from '../../kernel/scopes.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { collectionCost, connectionArgs, connectionCost, connectionType, pageRead, pageEntries, type Page } from './connections.ts';
import { COLLECTION_DEFAULT_FIRST, slicePage, type SliceArgs } from '../../kernel/slice-page.ts';
import { selectedRead } from './selection.ts';
import { exposeEntryField, exposeRecordField } from './record-source.ts';
import { written } from './loaders.ts';
import { withArgumentNames } from './errors.ts';
import { payloadOf, type UserError } from './user-errors.ts';
import type { SharedTypes } from './shared-types.ts';
import { camelCase, pascalCase } from '../../kernel/naming.ts';
import { vocabularyType } from './vocabularies.ts';
import { childTexts, enumTexts, inputFieldText, inputTexts, listTexts, outputFieldText, resourceTexts } from './descriptions.ts';

// GraphQL for a declared resource, generated from its ResourceDefinition alone: the object type (from
// outputFields), create and update inputs (from def.fields and def.conventions), the list arguments (from
// def.list), the queries <name>(id) and <plural>(...), and the mutations create/update/delete<Class>. Every
// resolver calls the resource's ResourceService with what REST would pass it (the snake_case body under the
// resource key, the list parameters as [key, value] entries), so rules, results and error codes are the
// REST ones. A new resource gets GraphQL by being listed in src/domain.ts `resources`.

type ScalarName = 'String' | 'Int' | 'Float' | 'Boolean' | 'ID' | 'SafeInt' | 'Decimal' | 'Date' | 'DateTime' | 'JSON';
type FieldKind = RecordFieldInfo['kind'];

const scalarOfKind: Record<Exclude<FieldKind, 'string[]' | 'children'>, ScalarName> = {
  string: 'String',
  text: 'String',
  email: 'String',
  url: 'String',
  integer: 'Int',
  int64: 'SafeInt',
  number: 'Float',
  decimal: 'Decimal',
  boolean: 'Boolean',
  date: 'Date',
  datetime: 'DateTime',
  uuid: 'ID',
  json: 'JSON',
};

/**
 * The GraphQL type of a field kind; with the builder and the field's enum, a named vocabulary's enum type instead
 * (a list of it for a string list; src/graphql/schema/vocabularies.ts).
 */
export function graphqlType(kind: FieldKind): ScalarName | [ScalarName];
export function graphqlType(kind: FieldKind, builder: Builder, values: readonly string[] | undefined): ScalarName | [ScalarName] | EnumRef<any, string> | [EnumRef<any, string>];
export function graphqlType(kind: FieldKind, builder?: Builder, values?: readonly string[]) {
  if (kind === 'children') throw new Error('child collections are typed by their own object type');
  const scalar: ScalarName | [ScalarName] = kind === 'string[]' ? ['String'] : scalarOfKind[kind];
  return builder ? vocabularyType(builder, kind, values, scalar) : scalar;
}

/** The backing value of a record type: the REST wire record and its ETag (every read gives both). */
export type RecordShape = Single;

// ---- Writes: the one declarative mapping between GraphQL input fields and the wire body ----

export interface WritableField {
  wire: string;
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  children?: ChildCollection;
  /** The field's enum (a named vocabulary is typed by its GraphQL enum). */
  enum?: readonly string[];
}

/** Fields accepted by create or update, in wire order, with their GraphQL names. */
export function writableFields(def: ResourceDefinition, mode: 'create' | 'update'): WritableField[] {
  const out: WritableField[] = [];
  const add = (wire: string, kind: FieldKind, required: boolean, description?: string, values?: readonly string[]) =>
    out.push({ wire, name: camelCase(wire), kind, required, description, enum: values });
  if (def.conventions.number) {
    add('number', 'string', false, inputTexts.number(mode));
  }
  for (const [wire, spec] of Object.entries(def.fields)) {
    const rule = mode === 'create' ? spec.create : spec.update;
    if (rule === 'not_accepted') continue;
    add(wire, spec.kind, rule === 'required', inputFieldText(spec, mode), spec.enum);
  }
  if (def.conventions.status && mode === 'update') add('status', 'string', false, inputTexts.status(def));
  if (def.conventions.labels) add('labels', 'string[]', false, inputTexts.labels(def));
  if (def.conventions.customFields) {
    add('custom_fields', 'json', false, inputTexts.customFields(def, mode));
  }
  for (const [wire, children] of Object.entries(def.children ?? {})) {
    out.push({ wire, name: camelCase(wire), kind: 'children', required: false, description: inputTexts.children(children), children });
  }
  return out;
}

/** The GraphQL type name of one entry of a child collection: "phone number" -> PhoneNumber. */
export function childTypeName(children: ChildCollection): string {
  return pascalCase(children.label.replace(/ /g, '_'));
}

/** A child entry given in camelCase -> its wire entry. */
function childToWire(children: ChildCollection, entry: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['id', ...Object.keys(children.fields)]) {
    if (entry[camelCase(key)] !== undefined) out[key] = entry[camelCase(key)];
  }
  return out;
}

/** GraphQL input -> the REST request body `{ <resource>: { snake_case fields } }`; omitted stays omitted, null stays null. */
export function toWireBody(def: ResourceDefinition, mode: 'create' | 'update', input: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of writableFields(def, mode)) {
    const value = input[field.name];
    if (value === undefined) continue;
    record[field.wire] = field.children && Array.isArray(value)
      ? value.map((entry) => childToWire(field.children!, entry as Record<string, unknown>))
      : value;
  }
  return { [bodyKeyOf(def)]: record };
}

// ---- Lists: GraphQL arguments <-> the REST query parameters ----

export interface ListArgument {
  name: string;
  type: ScalarName | [ScalarName] | 'CustomFieldFilter';
  /** The enum of the filtered field (a named vocabulary types the argument by its GraphQL enum). */
  enum?: readonly string[];
  description: string;
  /** The REST parameter it becomes (custom_fields: its prefix), to name the argument in GraphQL messages. */
  key: string;
  /** The [key, value] query entries REST would receive for this argument's value. */
  entries(value: unknown): [string, string][];
}

const filterScalar: Record<ValueType, ScalarName> = { string: 'String', uuid: 'ID', date: 'Date', datetime: 'DateTime', integer: 'SafeInt', boolean: 'Boolean' };
const opSuffix = { gt: 'Gt', gte: 'Gte', lt: 'Lt', lte: 'Lte' } as const;

/** The filter fields of a resource's list (its REST filters, q and custom_fields), each converting itself to the REST query entries. */
export function filterFields(def: ResourceDefinition): ListArgument[] {
  const args: ListArgument[] = [];
  if (def.list.searchable) {
    args.push({ name: 'q', type: 'String', description: listTexts.q(def), key: 'q', entries: (v) => [['q', String(v)]] });
  }
  for (const [field, spec] of Object.entries(def.list.filters)) {
    const scalar = filterScalar[spec.type];
    const name = camelCase(field);
    const values = def.fields[field]?.enum ?? def.readOnly?.[field]?.enum;
    for (const op of spec.ops) {
      if (op === 'eq') {
        args.push({ name, type: scalar, enum: values, description: listTexts.filter(field, op), key: field, entries: (v) => [[field, String(v)]] });
      } else if (op === 'in') {
        args.push({
          name: `${name}In`,
          type: [scalar],
          enum: values,
          description: listTexts.filter(field, op),
          key: `${field}[in]`,
          entries: (v) => [[`${field}[in]`, (v as unknown[]).map(String).join(',')]],
        });
      } else {
        args.push({ name: `${name}${opSuffix[op]}`, type: scalar, enum: values, description: listTexts.filter(field, op), key: `${field}[${op}]`, entries: (v) => [[`${field}[${op}]`, String(v)]] });
      }
    }
  }
  if (def.conventions.customFields) {
    args.push({
      name: 'customFields',
      type: 'CustomFieldFilter',
      description: listTexts.customFields,
      key: 'custom_fields[',
      entries: (v) => (v as { id: string; value: string }[]).map((f) => [`custom_fields[${f.id}]`, f.value] as [string, string]),
    });
  }
  return args;
}

/**
 * A list error of the kernel names the REST parameter at fault ("status[in]: ...", "custom_fields[<id>]: ...");
 * over GraphQL the same error names the argument ("filter.statusIn: ...", "filter.customFields[<id>]: ...").
 */
export function graphqlListError(error: unknown, filters: ListArgument[]): unknown {
  return withArgumentNames(error, [
    ['limit', 'first'],
    ['cursor', 'after'],
    ...filters.map((arg): [string, string] => [arg.key, arg.key.endsWith('[') ? `filter.${arg.name}[` : `filter.${arg.name}`]),
  ]);
}

/** Filter values -> REST query entries; null and omitted fields are absent, as an absent parameter. */
export function listEntries(args: ListArgument[], values: Record<string, unknown>): [string, string][] {
  const entries: [string, string][] = [];
  for (const arg of args) {
    const value = values[arg.name];
    if (value !== undefined && value !== null) entries.push(...arg.entries(value));
  }
  return entries;
}

// ---- Schema registration ----

/** The types made for a resource, for other parts of the schema (relations, extra operations) to build on. */
export interface ResourceTypes {
  def: ResourceDefinition;
  record: ObjectRef<any, RecordShape>;
  /** The object type of each child collection's entries, by collection name (Job.lineitems -> Lineitem). */
  children: Record<string, ObjectRef<any, Record<string, unknown>>>;
}

export function registerResource(builder: Builder, def: ResourceDefinition, shared: SharedTypes): ResourceTypes {
  const typeName = def.className;
  const readScope = `${def.scope}:read` as Scope;
  const writeScope = `${def.scope}:write` as Scope;
  const service = (ctx: GraphQLContext) => ctx.domain.resource(def.name);
  // Pothos types field options by literal type names; these are computed from the declaration.
  type AnyOptions = never;

  // Child collections: an output type and an input type per collection, shared by every parent that uses it.
  const childRefs = new Map<ChildCollection, { output: unknown; input: unknown }>();
  for (const children of Object.values(def.children ?? {})) childRefs.set(children, childTypes(builder, children));

  const recordRef = builder.objectRef<RecordShape>(typeName).implement({
    description: resourceTexts(def).type,
    interfaces: [shared.Node],
    fields: (t) => {
      const fields: Record<string, unknown> = {};
      for (const info of outputFields(def)) {
        const name = camelCase(info.name);
        const collection = info.children;
        fields[name] = collection
          ? // A child collection is a connection over the entries the record holds (read with it when selected).
            t.field({
              type: connectionType(builder, childRefs.get(collection)!.output as ObjectRef<any, Record<string, unknown>>, childTypeName(collection), collection.label),
              description: outputFieldText(info),
              args: connectionArgs(t, COLLECTION_DEFAULT_FIRST),
              complexity: collectionCost,
              resolve: (parent: RecordShape, args: SliceArgs, ctx: GraphQLContext): Page<unknown> | Promise<Page<unknown>> => {
                const binding = { cursors: ctx.domain.cursors, account: ctx.principal.accountId, collection: `${typeName}.${name}`, parentId: String(parent.record.id) };
                return slicePage((parent.record[info.name] as unknown[] | undefined) ?? [], args, binding);
              },
            } as AnyOptions)
          : // Read as a property of the Single (record-source.ts): no resolver.
            (exposeRecordField(name, info.name),
            t.field({ type: graphqlType(info.kind, builder, info.enum), nullable: info.nullable, description: outputFieldText(info) } as AnyOptions));
      }
      fields.etag = t.field({ type: 'String', description: resourceTexts(def).etag } as AnyOptions);
      return fields as never;
    },
  });

  const connectionRef = connectionType(builder, recordRef, typeName, def.name.replace(/_/g, ' '));
  const filters = filterFields(def);
  const filterRef =
    filters.length === 0
      ? null
      : builder.inputType(`${typeName}Filter`, {
          description: listTexts.filterInput(def),
          fields: (t) =>
            Object.fromEntries(
              filters.map((arg) => [
                arg.name,
                arg.type === 'CustomFieldFilter'
                  ? t.field({ type: [shared.CustomFieldFilter], description: arg.description })
                  : t.field({ type: vocabularyType(builder, Array.isArray(arg.type) ? 'string[]' : 'string', arg.enum, arg.type), description: arg.description } as AnyOptions),
              ]),
            ) as never,
        });
  const sorts = Object.keys(def.list.sorts);
  const sortRef =
    sorts.length === 0
      ? null
      : builder.inputType(`${typeName}Sort`, {
          description: listTexts.sortInput(def),
          fields: (t) => ({
            field: t.field({
              type: builder.enumType(`${typeName}SortField`, {
                description: listTexts.sortField(def),
                values: Object.fromEntries(sorts.map((sort) => [sort.toUpperCase(), { value: sort, description: enumTexts.sortField(sort) }])),
              }),
              required: true,
              description: listTexts.sortBy,
            }),
            direction: t.field({ type: shared.SortDirection, defaultValue: 'asc', description: listTexts.sortDirection }),
          }),
        });

  // The payload of create and update, made only when the resource serves one of them.
  let payload: ObjectRef<any, Partial<Single> & { userErrors: UserError[] }> | undefined;
  const payloadRef = () => (payload ??= builder.objectRef<Partial<Single> & { userErrors: UserError[] }>(`${typeName}Payload`).implement({
    description: resourceTexts(def).payload,
    fields: (t) => ({
      [camelCase(def.name)]: t.field({
        type: recordRef,
        nullable: true,
        description: resourceTexts(def).payloadRecord,
        resolve: (parent) => (parent.record ? new Single(parent.record, parent.etag!) : null),
      }),
      etag: t.string({ nullable: true, description: resourceTexts(def).payloadEtag, resolve: (parent) => parent.etag ?? null }),
      userErrors: shared.userErrorsField(t),
    }),
  }));

  const inputRef = (mode: 'create' | 'update') =>
    recordInput(builder, def, `${mode === 'create' ? 'Create' : 'Update'}${typeName}Input`, mode, resourceTexts(def)[mode === 'create' ? 'createInput' : 'updateInput']);

  builder.queryFields((t) => ({
    [camelCase(def.name)]: t.field({
      type: recordRef,
      nullable: true,
      description: resourceTexts(def).get,
      authScopes: { scope: readScope },
      args: { id: t.arg.id({ required: true, description: resourceTexts(def).getId }) },
      resolve: async (_root, args, ctx, info) => {
        return service(ctx).get(requestContext(ctx), String(args.id), selectedRead(def, info));
      },
    }),
    [camelCase(def.plural)]: t.field({
      type: connectionRef,
      nullable: true,
      description: resourceTexts(def).list,
      authScopes: { scope: readScope },
      complexity: connectionCost,
      args: {
        ...connectionArgs(t),
        ...(filterRef ? { filter: t.arg({ type: filterRef, description: listTexts.filterArg }) } : {}),
        ...(sortRef ? { sort: t.arg({ type: sortRef, description: listTexts.sortArg(def) }) } : {}),
      } as never,
      resolve: async (_root, args, ctx, info) => {
        const { first, after, filter, sort } = args as { first?: number | null; after?: string | null; filter?: Record<string, unknown> | null; sort?: { field: string; direction: string } | null };
        const entries: [string, string][] = [...pageEntries(first, after), ...(filter ? listEntries(filters, filter) : [])];
        if (sort) entries.push(['sort', `${sort.direction === 'desc' ? '-' : ''}${sort.field}`]);
        const result = await service(ctx)
          .list(requestContext(ctx), entries, { ...pageRead(def, info), liveStatusesOnly: true })
          .catch((error: unknown) => {
            throw graphqlListError(error, filters);
          });
        return { nodes: result.data, hasNextPage: result.hasMore, hasPreviousPage: Boolean(after), cursorAt: result.cursorAt };
      },
    }),
  }));

  // Where an input error points in update and delete (create takes only its input).
  const mutationArgs = { id: 'id', input: 'input', ifMatch: 'ifMatch' };
  builder.mutationFields((t) => ({
    ...(serves(def, 'create') && {
      [`create${typeName}`]: t.field({
        type: payloadRef(),
        nullable: true,
        description: resourceTexts(def).create,
        authScopes: { scope: writeScope },
        args: {
          input: t.arg({ type: inputRef('create'), required: true, description: resourceTexts(def).createInputArg }),
          ...(def.idempotentCreate ? { idempotencyKey: t.arg.string({ required: true, description: resourceTexts(def).idempotencyKey }) } : {}),
        },
        resolve: (_root, args, ctx) => {
          const body = toWireBody(def, 'create', args.input as Record<string, unknown>);
          if (!def.idempotentCreate) return payloadOf(() => written(ctx, service(ctx).create(requestContext(ctx), body)), { input: 'input' });
          return payloadOf(() => written(ctx, idempotentCreate(ctx, def, (args as { idempotencyKey?: unknown }).idempotencyKey, body)), { input: 'input' });
        },
      }),
    }),
    ...(serves(def, 'update') && {
      [`update${typeName}`]: t.field({
        type: payloadRef(),
        nullable: true,
        description: resourceTexts(def).update,
        authScopes: { scope: writeScope },
        args: {
          id: t.arg.id({ required: true, description: resourceTexts(def).updateId }),
          ifMatch: t.arg.string({ description: resourceTexts(def).ifMatch }),
          input: t.arg({ type: inputRef('update'), required: true, description: resourceTexts(def).updateInputArg }),
        },
        resolve: (_root, args, ctx) =>
          payloadOf(() => written(ctx, service(ctx).update(requestContext(ctx), String(args.id), args.ifMatch ?? undefined, toWireBody(def, 'update', args.input as Record<string, unknown>))), mutationArgs),
      }),
    }),
    ...(serves(def, 'delete') && {
      [`delete${typeName}`]: t.field({
        type: shared.DeletePayload,
        nullable: true,
        description: resourceTexts(def).delete,
        authScopes: { scope: writeScope },
        args: {
          id: t.arg.id({ required: true, description: resourceTexts(def).deleteId }),
          ifMatch: t.arg.string({ description: resourceTexts(def).ifMatch }),
        },
        resolve: (_root, args, ctx) =>
          payloadOf(
            () => written(ctx, service(ctx).remove(requestContext(ctx), String(args.id), args.ifMatch ?? undefined)).then(() => ({ deletedId: String(args.id) })),
            mutationArgs,
          ),
      }),
    }),
  }));

  const children = Object.fromEntries(
    Object.entries(def.children ?? {}).map(([name, collection]) => [name, childRefs.get(collection)!.output as ObjectRef<any, Record<string, unknown>>]),
  );
  return { def, record: recordRef, children };
}

/**
 * A financial create through the idempotency store REST uses (src/kernel/idempotency.ts): keyed on the mutation's
 * name and its input as REST would receive it. A retry with the same key and input gets the same record, read
 * again (its current state: GraphQL selects what it wants, so the stored response is the record's id).
 */
async function idempotentCreate(ctx: GraphQLContext, def: ResourceDefinition, key: unknown, body: Record<string, unknown>): Promise<Single> {
  const service = ctx.domain.resource(def.name);
  const request = { key, method: 'GRAPHQL', path: `create${def.className}`, body };
  const render = (single: Single) => ({ status: 200, headers: {}, body: '', recordId: single.record.id as string });
  const outcome = await ctx.domain.idempotency.run(requestContext(ctx), request, render, (scoped) => service.create(scoped, body));
  return outcome.replayed ? service.get(requestContext(ctx), outcome.response.recordId) : outcome.result;
}

/**
 * The input type of a resource's writable fields (create or update); with allOptional every field may be
 * omitted (overrides applied on top of defaults, as lead conversion's customer).
 */
export function recordInput(builder: Builder, def: ResourceDefinition, name: string, mode: 'create' | 'update', description: string, allOptional = false) {
  type AnyOptions = never;
  return builder.inputType(name, {
    description,
    fields: (t) => {
      const fields: Record<string, unknown> = {};
      for (const field of writableFields(def, mode)) {
        const type = field.children ? [childTypes(builder, field.children).input] : graphqlType(field.kind, builder, field.enum);
        fields[field.name] = t.field({ type, required: field.required && !allOptional, description: field.description } as AnyOptions);
      }
      return fields as never;
    },
  });
}

const childTypeCache = new WeakMap<Builder, Map<string, { output: unknown; input: unknown }>>();

/** Output and input types of a child collection's entries (PhoneNumber, PhoneNumberInput), made once per builder. */
function childTypes(builder: Builder, children: ChildCollection): { output: unknown; input: unknown } {
  const cache = childTypeCache.get(builder) ?? childTypeCache.set(builder, new Map()).get(builder)!;
  const name = childTypeName(children);
  const known = cache.get(name);
  if (known) return known;
  type AnyOptions = never;
  const output = builder.objectRef<Record<string, unknown>>(name).implement({
    description: childTexts.type(children),
    fields: (t) =>
      Object.fromEntries(
        childOutputFields(children).map((info) => [
          camelCase(info.name),
          // Read as a property of the entry (record-source.ts): no resolver.
          (exposeEntryField(camelCase(info.name), info.name),
          t.field({ type: graphqlType(info.kind, builder, info.enum), nullable: info.nullable, description: outputFieldText(info) } as AnyOptions)),
        ]),
      ) as never,
  });
  const input = builder.inputType(`${name}Input`, {
    description: childTexts.input(children),
    fields: (t) =>
      Object.fromEntries([
        ['id', t.field({ type: 'ID', required: false, description: childTexts.inputId(children) } as AnyOptions)],
        ...Object.entries(children.fields).map(([wire, spec]) => [
          camelCase(wire),
          t.field({ type: graphqlType(spec.kind, builder, spec.enum), required: false, description: inputFieldText(spec) } as AnyOptions),
        ]),
      ]) as never,
  });
  const refs = { output, input };
  cache.set(name, refs);
  return refs;
}
