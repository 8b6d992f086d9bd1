import type { ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { requireScope } from '../../kernel/auth.ts';
import {
  childRelationsOf,
  relationsOf,
  type ReferenceTarget,
  type RelationDefinition,
  type Relations,
} from '../../kernel/relation.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import type { ReadOptions, Single } from '../../kernel/resource-service.ts';
import type { Scope } from '../../kernel/scopes.ts';
import type { WireShape } from '../../kernel/wire-shape.ts';
import type { Builder, GraphQLContext } from './builder.ts';
import { loadersOf } from './loaders.ts';
import { camelCase } from '../../kernel/naming.ts';
import type { RecordShape } from './record-type.ts';
import type { ResourceTypes } from './resource-schema.ts';
import { selectedRead } from './selection.ts';
import { typenameOf, withTypename } from './record-source.ts';
import { collectionCost, connectionArgs, connectionType, pageRead, type Page } from './connections.ts';
import { COLLECTION_DEFAULT_FIRST, cutPage, sliceBounds, type SliceArgs, type SliceBinding, type SliceBounds } from '../../kernel/slice-page.ts';
import { graphqlText, relationText } from './descriptions.ts';
import { wireObject } from './wire-object.ts';

// The relation fields of the schema, generated from the declarations (src/kernel/relation.ts): for each resource
// its derived references and declared relations, for each child entry type (Lineitem) its references, for each
// wire shape reached (ContactLinkage) its declared relations. Every field reads through the operation's loaders
// (loaders.ts): batched, tenant-scoped, live records only, serialized by the domain, so a record reached through
// a relation has the wire shape and the ETag of the same record read by id. A
// relation needs the read scope of what it returns; without it the field is null with auth.scope_missing and the
// rest of the result stands. A read serves only the fields the query selects below the relation (selectedRead).

/** What a model's records are served as: a declared resource's record type, or a reference target's object. */
type Target =
  | { kind: 'resource'; def: ResourceDefinition; ref: ObjectRef<any, RecordShape>; scope: Scope }
  | { kind: 'target'; target: ReferenceTarget; ref: ObjectRef<any, any>; scope: Scope | null };


function present<T>(values: readonly (T | null | Error)[]): T[] {
  const failed = values.find((value) => value instanceof Error);
  if (failed) throw failed;
  return values.filter((value): value is T => value !== null);
}

/** How a relation to one resolves: its value for a parent. */
interface OneResolution {
  many: false;
  type: unknown;
  scopes: Scope[];
  needs?: string;
  one(object: Record<string, unknown>, ctx: GraphQLContext, info: GraphQLResolveInfo): unknown;
}

/** How a relation to many resolves: the whole collection (or its first entries) and the values of one page of it. */
interface ManyResolution {
  many: true;
  node: ObjectRef<any, any>;
  typeName: string;
  scopes: Scope[];
  /** The entries of the collection (cheap: ids, linkages or records): all, or at least its first `upTo`. */
  entries(object: Record<string, unknown>, ctx: GraphQLContext, info: GraphQLResolveInfo, upTo: number): unknown[] | Promise<unknown[]>;
  /** The nodes of one page's entries (through relations read their records here). */
  nodes?(entries: unknown[], ctx: GraphQLContext, info: GraphQLResolveInfo): Promise<unknown[]>;
}

type Resolution = OneResolution | ManyResolution;

/** One page of a relation to many: its entries up to the page's end (and one more, to know whether another page follows), cut, then their nodes. */
async function relationPage(field: ManyResolution, object: Record<string, unknown>, ctx: GraphQLContext, info: GraphQLResolveInfo, bounds: SliceBounds, binding: SliceBinding): Promise<Page<unknown>> {
  const entries = field.entries(object, ctx, info, bounds.offset + bounds.first + 1);
  const page = cutPage(entries instanceof Promise ? await entries : entries, bounds, binding);
  return field.nodes ? page.withNodes(await field.nodes(page.nodes, ctx, info)) : page;
}

export function registerRelations(builder: Builder, types: ReadonlyMap<string, ResourceTypes>, referenceTargets: readonly ReferenceTarget[]): void {
  const targets = new Map<string, Target>();
  for (const { def, record } of types.values()) targets.set(def.model, { kind: 'resource', def, ref: record, scope: `${def.scope}:read` as Scope });
  for (const target of referenceTargets) targets.set(target.model, { kind: 'target', target, ref: wireObject(builder, target.shape), scope: target.scope });
  const targetOf = (model: string, where: string): Target => {
    const target = targets.get(model);
    if (!target) throw new Error(`${where}: no resource or reference target for model ${model}`);
    return target;
  };
  const unions = new Map<string, unknown>();
  const shapes = new Map<string, WireShape>();

  /** The values a target serves for ids, read through the operation's loaders; `read`: what a resource's read serves. */
  const load = async (ctx: GraphQLContext, target: Target, ids: string[], read: ReadOptions, typename?: string): Promise<unknown[]> => {
    const loaders = loadersOf(ctx);
    if (target.kind === 'target') return present(await loaders.target(target.target).loadMany(ids));
    const records = present(await loaders.record(target.def.name, read).loadMany(ids));
    return typename ? records.map((single) => withTypename(single, typename)) : records;
  };
  /** The value a target serves for one id (null when absent), read through the operation's loaders. */
  const loadOne = (ctx: GraphQLContext, target: Target, id: string, read: ReadOptions): Promise<unknown> => {
    const loaders = loadersOf(ctx);
    return target.kind === 'target' ? loaders.target(target.target).load(id) : loaders.record(target.def.name, read).load(id);
  };
  /** What a read of a target serves for a selection (under the field, or under a connection's nodes). */
  const readOf = (target: Target, info: GraphQLResolveInfo, paged: boolean): ReadOptions =>
    target.kind !== 'resource' ? {} : paged ? pageRead(target.def, info) : selectedRead(target.def, info);
  /** A target's type name and noun, for its connection type. */
  const nodeType = (target: Target) => (target.kind === 'resource' ? target.def.className : target.target.shape.name);

  /**
   * The fields of `relations` on `parent`, whose value's served object is `objectOf(value)`; `children` are the
   * parent's child collections (a through relation may go via one). A relation to many is a connection.
   */
  const register = (parent: ObjectRef<any, any>, owner: string, relations: Relations, objectOf: (value: any) => Record<string, unknown>, children: readonly string[] = []) => {
    for (const [name, relation] of Object.entries(relations)) {
      const where = `${owner}.${camelCase(name)}`;
      const field = relationField(relation, where);
      const needs = field.many ? field.scopes.join(' and ') || null : (field.needs ?? (field.scopes.length > 0 ? field.scopes.join(' and ') : null));
      // The scopes are checked here, not by scope-auth's authScopes: the same requireScope error, without a plugin
      // step on each of the thousand relations a board resolves.
      const guard = (ctx: GraphQLContext) => {
        for (const scope of field.scopes) requireScope(ctx.principal, scope);
      };
      builder.objectField(parent, camelCase(name), (t) =>
        field.many
          ? t.field({
              type: connectionType(builder, field.node, field.typeName, field.typeName.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()),
              // A collection that needs no scope cannot fail on its own (Job.assignees); everything else may be null.
              nullable: field.scopes.length > 0,
              description: relationText(relation.description, needs),
              args: connectionArgs(t, COLLECTION_DEFAULT_FIRST),
              complexity: collectionCost,
              resolve: (value: unknown, args: SliceArgs, ctx: GraphQLContext, info: GraphQLResolveInfo): Promise<Page<unknown>> => {
                guard(ctx);
                const object = objectOf(value);
                const binding = { cursors: ctx.domain.cursors, account: ctx.principal.accountId, collection: where, parentId: String(object.id) };
                const bounds = sliceBounds(args, binding);
                return bounds instanceof Promise
                  ? bounds.then((read) => relationPage(field, object, ctx, info, read, binding))
                  : relationPage(field, object, ctx, info, bounds, binding);
              },
            } as never)
          : t.field({
              type: field.type,
              nullable: true,
              description: relationText(relation.description, needs),
              resolve: (value: unknown, _args: unknown, ctx: GraphQLContext, info: GraphQLResolveInfo) => {
                guard(ctx);
                return field.one(objectOf(value), ctx, info);
              },
            } as never),
      );
    }

    function relationField(relation: RelationDefinition, where: string): Resolution {
      const scopesOf = (...scopes: (Scope | null)[]) => [...new Set(scopes.filter((scope): scope is Scope => scope !== null))];
      switch (relation.kind) {
        case 'reference': {
          const target = targetOf(relation.model, where);
          return {
            many: false,
            type: target.ref,
            scopes: scopesOf(target.scope),
            one: (object, ctx, info) => {
              const id = object[relation.column];
              return id === null || id === undefined ? null : loadOne(ctx, target, String(id), readOf(target, info, false));
            },
          };
        }
        case 'collection': {
          const target = targetOf(relation.model, where);
          if (target.kind !== 'resource') throw new Error(`${where}: a collection relation returns records of a declared resource`);
          return {
            many: true,
            node: target.ref,
            typeName: nodeType(target),
            scopes: [target.scope],
            entries: (object, ctx, info, upTo) => loadersOf(ctx).recordsBy(target.def.name, relation.column, readOf(target, info, true), upTo, relation).load(object.id as string),
          };
        }
        case 'batched': {
          shapes.set(relation.shape.name, relation.shape);
          const ref = wireObject(builder, relation.shape);
          const loadKey = async (object: Record<string, unknown>, ctx: GraphQLContext) => {
            const key = relation.key(String(object.id));
            return key === null ? null : loadersOf(ctx).batched(relation).load(key);
          };
          if (relation.many) {
            return { many: true, node: ref, typeName: relation.shape.name, scopes: scopesOf(relation.scope), entries: async (object, ctx) => ((await loadKey(object, ctx)) as unknown[] | null) ?? [] };
          }
          return { many: false, type: ref, scopes: scopesOf(relation.scope), one: async (object, ctx) => (await loadKey(object, ctx)) ?? null };
        }
        case 'through': {
          const target = targetOf(relation.model, where);
          const via = relations[relation.via];
          if (via?.kind !== 'batched' && !children.includes(relation.via)) throw new Error(`${where}: via ${relation.via} is neither a batched relation nor a child collection`);
          const viaRelation = via?.kind === 'batched' ? via : null;
          const kept = (all: Record<string, unknown>[]) => (relation.where ? all.filter(relation.where) : all);
          // Through a child collection the entries are already on the record: no promise.
          const entries = (object: Record<string, unknown>, ctx: GraphQLContext): Record<string, unknown>[] | Promise<Record<string, unknown>[]> => {
            if (!viaRelation) return kept((object[relation.via] ?? []) as Record<string, unknown>[]);
            const key = viaRelation.key(String(object.id));
            return key ? (loadersOf(ctx).batched(viaRelation).load(key) as Promise<Record<string, unknown>[]>).then(kept) : [];
          };
          const scopes = scopesOf(target.scope, viaRelation?.scope ?? null);
          if (relation.many) {
            return {
              many: true,
              node: target.ref,
              typeName: nodeType(target),
              scopes,
              entries,
              nodes: (page, ctx, info) => load(ctx, target, (page as Record<string, unknown>[]).map(relation.idOf), readOf(target, info, true)),
            };
          }
          return {
            many: false,
            type: target.ref,
            scopes,
            one: async (object, ctx, info) => {
              const [first] = await entries(object, ctx);
              return first ? ((await load(ctx, target, [relation.idOf(first)], readOf(target, info, false)))[0] ?? null) : null;
            },
          };
        }
        case 'polymorphic': {
          const members = Object.entries(relation.models).map(([type, model]) => [type, targetOf(model, where)] as const);
          for (const [, member] of members) if (member.kind !== 'resource') throw new Error(`${where}: a polymorphic relation returns records of declared resources`);
          const byType = new Map(members);
          const union =
            unions.get(relation.union.name) ??
            unions
              .set(
                relation.union.name,
                builder.unionType(relation.union.name, {
                  description: graphqlText(relation.union.description),
                  types: members.map(([, member]) => member.ref),
                  resolveType: (value) => typenameOf(value as Single)!,
                }),
              )
              .get(relation.union.name)!;
          return {
            many: false,
            type: union,
            scopes: [],
            needs: `the read scope of its type (${members.map(([, member]) => member.scope).join(', ')})`,
            one: async (object, ctx, info) => {
              const target = byType.get(object[relation.typeColumn] as string);
              const id = object[relation.idColumn];
              if (!target || target.kind !== 'resource' || typeof id !== 'string') return null;
              requireScope(ctx.principal, target.scope);
              return (await load(ctx, target, [id], readOf(target, info, false), target.def.className))[0] ?? null;
            },
          };
        }
      }
    }
  };

  const childTypesDone = new Set<unknown>();
  for (const { def, record, children } of types.values()) {
    register(record, def.className, relationsOf(def), (value: RecordShape) => value.record, Object.keys(def.children ?? {}));
    for (const [name, collection] of Object.entries(def.children ?? {})) {
      const ref = children[name];
      // A list of values (ChildCollection.valueField) has no entry type.
      if (!ref || childTypesDone.has(ref)) continue;
      childTypesDone.add(ref);
      register(ref, collection.label, childRelationsOf(collection), (value: Record<string, unknown>) => value);
    }
  }
  // Shapes served by batched relations (ContactLinkage) have relations of their own.
  for (const shape of shapes.values()) {
    if (shape.relations) register(wireObject(builder, shape), shape.name, shape.relations, (value: Record<string, unknown>) => value);
  }
}
