import type { GraphQLResolveInfo } from 'graphql';
import { requireScope } from '../../kernel/auth.ts';
import { AppError } from '../../kernel/errors.ts';
import type { Scope } from '../../kernel/scopes.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { loadersOf } from './loaders.ts';
import type { RecordShape } from './record-type.ts';
import type { ResourceTypes } from './resource-schema.ts';
import { selectedRead } from './selection.ts';
import { withTypename } from './record-source.ts';
import type { SharedTypes } from './shared-types.ts';

// node(id) and nodes(ids): any record by its id alone, for Relay clients (refetching a node) and agents that hold
// ids without their types. The record ids are UUIDs, unique across resources, so they serve as global ids as
// they are. One statement finds which resource each id belongs to (domain.locator), then the records are read
// through the operation's loaders like any relation. Each record needs the read scope of its resource; an id
// that is not a live record of the caller's account is null.

/** The most ids nodes(ids) takes. */
export const MAX_NODE_IDS = 100;

export function registerNode(builder: Builder, types: ReadonlyMap<string, ResourceTypes>, shared: SharedTypes): void {
  /** The records of `ids` (null where absent), or an error for an id whose resource the key may not read. */
  const read = async (ctx: GraphQLContext, ids: readonly string[], info: GraphQLResolveInfo): Promise<(RecordShape | Error | null)[]> => {
    const wanted = ids.map((id) => id.toLowerCase());
    const located = await ctx.domain.locator.locate(wanted);
    return Promise.all(
      wanted.map(async (id) => {
        const name = located.get(id);
        const def = name ? types.get(name)?.def : undefined;
        if (!def) return null;
        if (def.nested) {
          // A nested record (a note) needs its parent's read scope: the service finds it, then checks (404: null).
          try {
            return withTypename(await ctx.domain.resource(def.name).get(requestContext(ctx), id, selectedRead(def, info)), def.className);
          } catch (error) {
            return error instanceof AppError && error.code === 'resource.not_found' ? null : (error as Error);
          }
        }
        try {
          requireScope(ctx.principal, `${def.scope}:read` as Scope);
        } catch (error) {
          return error as Error;
        }
        const single = await loadersOf(ctx).record(def.name, selectedRead(def, info)).load(id);
        return single ? withTypename(single, def.className) : null;
      }),
    );
  };

  builder.queryFields((t) => ({
    node: t.field({
      type: shared.Node,
      nullable: true,
      description: "Any record by its id (a UUID, unique across resources); null when no live record of the key's account has it. Needs the read scope of the record's resource.",
      args: { id: t.arg.id({ required: true, description: 'The id of a record of any resource.' }) },
      resolve: async (_root, args, ctx, info) => {
        const [node] = await read(ctx, [String(args.id)], info);
        if (node instanceof Error) throw node;
        return node ?? null;
      },
    }),
    nodes: t.field({
      type: [shared.Node],
      nullable: { list: false, items: true },
      description: `Records by their ids, in the order given (at most ${MAX_NODE_IDS}); null for an id that is no live record of the key's account, and null with an error for a record whose resource the key may not read.`,
      complexity: (args) => ({ field: 1, multiplier: Math.max(1, args.ids.length) }),
      args: { ids: t.arg.idList({ required: true, description: `The ids of records of any resources, at most ${MAX_NODE_IDS}.` }) },
      resolve: (_root, args, ctx, info) => {
        if (args.ids.length > MAX_NODE_IDS) {
          throw new AppError('pagination.limit_too_large', `nodes takes at most ${MAX_NODE_IDS} ids`, { max_limit: MAX_NODE_IDS });
        }
        return read(ctx, args.ids.map(String), info) as never;
      },
    }),
  }));
}
