import { nestedScopes, parentsOf } from '../../kernel/nesting.ts';
import { notFound } from '../../kernel/errors.ts';
import { runAsTenant } from '../../kernel/context.ts';
import { camelCase } from '../../kernel/naming.ts';
import { requestContext, type Builder } from './builder.ts';
import { connectionCost, pageRead } from './connections.ts';
import { graphqlText } from './descriptions.ts';
import { written } from './loaders.ts';
import type { ResourceTypes } from './resource-schema.ts';
import { payloadOf } from './user-errors.ts';
import { recordInput } from './write-input.ts';
import { recordValues } from './write-body.ts';

// GraphQL of nested resources (src/kernel/nesting.ts; notes): a connection of the records on each parent's type
// (Job.notes(first, after, filter, sort), the list conventions, needing the parent's read scope) and the create
// mutation naming the parent by its id (ids are unique across resources, as node(id) reads them):
// create<Class>(parentId, input), needing <scope>:write and the parent's read scope. Get, update and delete are
// the resource's own (resource-queries.ts, resource-mutations.ts); the service checks the parent's scope there.

export function registerNested(builder: Builder, types: ReadonlyMap<string, ResourceTypes>): void {
  const all = [...types.values()].map((entry) => entry.def);
  for (const { def, list, payload } of types.values()) {
    const parents = parentsOf(def, all);
    if (parents.length === 0) continue;
    const noun = def.name.replace(/_/g, ' ');
    const plural = def.plural.replace(/_/g, ' ');
    for (const { type, parent } of parents) {
      const parentRef = types.get(parent.name)!.record;
      const parentNoun = parent.name.replace(/_/g, ' ');
      builder.objectField(parentRef, camelCase(def.plural), (t) =>
        t.field({
          type: list.connectionRef,
          nullable: true,
          description: `The ${plural} of this ${parentNoun}, a page at a time (newest first unless sorted), filtered and sorted by the arguments; a cursor is bound to this ${parentNoun}. Needs ${nestedScopes(def, parent, 'read').join(' and ')}.`,
          authScopes: { scope: nestedScopes(def, parent, 'read')[0] },
          complexity: connectionCost,
          args: list.args(t),
          resolve: async (object, args, ctx, info) => {
            const { after } = args as { after?: string | null };
            const result = await ctx.domain.resource(def.name).listUnder(requestContext(ctx), type, String(object.record.id), list.request(args, after), pageRead(def, info));
            return { nodes: result.data, hasNextPage: result.hasMore, hasPreviousPage: Boolean(after), cursorAt: result.cursorAt };
          },
        }),
      );
    }
    const types_ = parents.map(({ type }) => type);
    const inputRef = recordInput(builder, def, `Create${def.className}Input`, 'create', `The fields of a new ${noun}.`);
    builder.mutationField(`create${def.className}`, (t) =>
      t.field({
        type: payload(),
        nullable: true,
        description: graphqlText(
          `Adds ${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun} to a record (${types_.join(', ')}), named by its id; the record must be live in the account (the error resource.not_found otherwise) and does not change. Needs ${def.scope}:write and the read scope of the record's resource.`,
        ),
        authScopes: { scope: `${def.scope}:write` as never },
        args: {
          parentId: t.arg.id({ required: true, description: `The id of the record the ${noun} is on.` }),
          input: t.arg({ type: inputRef, required: true, description: `The fields of the new ${noun}.` }),
        },
        resolve: (_root, args, ctx) =>
          payloadOf(async () => {
            const context = requestContext(ctx);
            const parentId = String(args.parentId).toLowerCase();
            const located = await runAsTenant(context.principal.accountId, () => ctx.domain.locator.locate([parentId]));
            const parent = parents.find((entry) => entry.parent.name === located.get(parentId));
            if (!parent) throw notFound('Record');
            return written(ctx, ctx.domain.resource(def.name).createUnder(context, parent.type, parentId, recordValues(def, 'create', args.input as Record<string, unknown>)));
          }, { input: 'input', id: 'parentId' }),
      }),
    );
  }
}
