import type { ObjectRef } from '@pothos/core';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import { readScopeOf } from '../../kernel/nesting.ts';
import { serves } from '../../kernel/resource.ts';
import type { ListRequest } from '../../kernel/listing.ts';
import type { Single } from '../../kernel/resource-service.ts';
import type { Page } from './connections.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { connectionArgs, connectionCost, connectionType, pageRead } from './connections.ts';
import { selectedRead } from './selection.ts';
import type { SharedTypes } from './shared-types.ts';
import { camelCase } from '../../kernel/naming.ts';
import { vocabularyType } from './vocabularies.ts';
import { enumTexts, listTexts, resourceTexts } from './descriptions.ts';
import { filterFields, listRequest } from './list-arguments.ts';
import type { RecordShape } from './record-type.ts';

/**
 * The queries of a resource: <name>(id), and <plural>(first, after, filter, sort), a connection of its records
 * with the <Class>Filter and <Class>Sort inputs its list declares (none when it declares no filter or sort).
 */
export function registerResourceQueries(builder: Builder, def: ResourceDefinition, shared: SharedTypes, recordRef: ObjectRef<any, RecordShape>): ListArguments {
  const typeName = def.className;
  // A nested resource's record needs its parent's read scope, known once it is found (the service checks it).
  const readScope = readScopeOf(def);
  const readAuth = readScope ? { scope: readScope } : { authenticated: true };
  const service = (ctx: GraphQLContext) => ctx.domain.resource(def.name);
  // Pothos types field options by literal type names; these are computed from the declaration.
  type AnyOptions = never;

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

  const listArgs = (t: any) =>
    ({
      ...connectionArgs(t),
      ...(filterRef ? { filter: t.arg({ type: filterRef, description: listTexts.filterArg }) } : {}),
      ...(sortRef ? { sort: t.arg({ type: sortRef, description: listTexts.sortArg(def) }) } : {}),
    }) as never;
  const listOf = (args: unknown, after: string | null | undefined) => {
    const { first, filter, sort } = args as { first?: number | null; filter?: Record<string, unknown> | null; sort?: { field: string; direction: string } | null };
    return listRequest(filters, { first, after }, filter, sort);
  };
  const answer: ListArguments = { connectionRef, args: listArgs, request: listOf };

  builder.queryFields((t) => ({
    [camelCase(def.name)]: t.field({
      type: recordRef,
      nullable: true,
      description: resourceTexts(def).get,
      authScopes: readAuth,
      args: { id: t.arg.id({ required: true, description: resourceTexts(def).getId }) },
      resolve: async (_root, args, ctx, info) => {
        return service(ctx).get(requestContext(ctx), String(args.id), selectedRead(def, info));
      },
    }),
    // A nested resource is listed under its parents only (src/graphql/schema/nested.ts).
    ...(serves(def, 'list') && {
      [camelCase(def.plural)]: t.field({
        type: connectionRef,
        nullable: true,
        description: resourceTexts(def).list,
        authScopes: readAuth,
        complexity: connectionCost,
        args: listArgs(t),
        resolve: async (_root, args, ctx, info) => {
          const { after } = args as { after?: string | null };
          const result = await service(ctx).list(requestContext(ctx), listOf(args, after), pageRead(def, info));
          return { nodes: result.data, hasNextPage: result.hasMore, hasPreviousPage: Boolean(after), cursorAt: result.cursorAt };
        },
      }),
    }),
  }));
  return answer;
}

/** A resource's connection type and list arguments (filter, sort), for lists of it elsewhere (a parent's notes). */
export interface ListArguments {
  connectionRef: ObjectRef<any, Page<Single>>;
  /** The arguments of a connection field of the records: first, after, filter, sort. */
  args(t: unknown): never;
  /** The kernel's list request of such a field's arguments. */
  request(args: unknown, after: string | null | undefined): ListRequest;
}
