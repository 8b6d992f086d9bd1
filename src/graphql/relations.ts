import type { ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { requireScope } from '../kernel/auth.ts';
import {
  childRelationsOf,
  relationsOf,
  type BatchedRelation,
  type ReferenceTarget,
  type RelationDefinition,
  type Relations,
} from '../kernel/relation.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { WireShape } from '../kernel/wire-shape.ts';
import type { Builder, GraphQLContext } from './builder.ts';
import { loadersOf } from './loaders.ts';
import { camelCase } from './naming.ts';
import type { RecordShape, ResourceTypes } from './resource-schema.ts';
import { selectedChildren } from './selection.ts';
import { wireObject } from './wire-object.ts';

// The relation fields of the schema, generated from the declarations (src/kernel/relation.ts): for each resource
// its derived references and declared relations, for each child entry type (Lineitem) its references, for each
// wire shape reached (ContactLinkage) its declared relations. Every field reads through the operation's loaders
// (loaders.ts): batched, tenant-scoped, live records only, serialized by the domain, so a record reached through
// a relation has the wire shape and the ETag of the same record read by id. A
// relation needs the read scope of what it returns; without it the field is null with auth.scope_missing and the
// rest of the result stands. Relations are not paginated. A record's child collections are read only when the
// query selects them below the relation.

/** What a model's records are served as: a declared resource's record type, or a reference target's object. */
type Target =
  | { kind: 'resource'; def: ResourceDefinition; ref: ObjectRef<any, RecordShape>; scope: Scope }
  | { kind: 'target'; target: ReferenceTarget; ref: ObjectRef<any, any>; scope: Scope | null };

/** A record reached through a relation; `typename` picks the member of a union. */
type Reached = RecordShape & { typename?: string };

function present<T>(values: readonly (T | null | Error)[]): T[] {
  const failed = values.find((value) => value instanceof Error);
  if (failed) throw failed;
  return values.filter((value): value is T => value !== null);
}

function describe(description: string, needs: string | null): string {
  return needs === null ? description : `${description} Needs ${needs}.`;
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

  /** The value a target serves for an id, read through the operation's loaders. */
  const load = async (ctx: GraphQLContext, target: Target, ids: string[], info: GraphQLResolveInfo, typename?: string): Promise<unknown[]> => {
    const loaders = loadersOf(ctx);
    if (target.kind === 'target') return present(await loaders.target(target.target).loadMany(ids));
    const records = present(await loaders.record(target.def.name, selectedChildren(target.def, info)).loadMany(ids));
    return typename ? records.map((single): Reached => ({ ...single, typename })) : records;
  };

  /**
   * The fields of `relations` on `parent`, whose value's served object is `objectOf(value)`; `children` are the
   * parent's child collections (a through relation may go via one).
   */
  const register = (parent: ObjectRef<any, any>, owner: string, relations: Relations, objectOf: (value: any) => Record<string, unknown>, children: readonly string[] = []) => {
    for (const [name, relation] of Object.entries(relations)) {
      const where = `${owner}.${name}`;
      const field = relationField(name, relation, where);
      builder.objectField(parent, camelCase(name), (t) =>
        t.field({
          type: field.type,
          // A list that needs no scope cannot fail on its own (Job.assignees); everything else may be null.
          nullable: !(Array.isArray(field.type) && field.scopes.length === 0 && !field.needs),
          description: describe(relation.description, field.needs ?? (field.scopes.length > 0 ? field.scopes.join(' and ') : null)),
          ...(field.scopes[0] ? { authScopes: { scope: field.scopes[0] } } : {}),
          resolve: (value: unknown, _args: unknown, ctx: GraphQLContext, info: GraphQLResolveInfo) => {
            for (const scope of field.scopes.slice(1)) requireScope(ctx.principal, scope);
            return field.resolve(objectOf(value), ctx, info);
          },
        } as never),
      );
    }

    function relationField(name: string, relation: RelationDefinition, where: string): { type: unknown; scopes: Scope[]; needs?: string; resolve(object: Record<string, unknown>, ctx: GraphQLContext, info: GraphQLResolveInfo): Promise<unknown> } {
      const scopesOf = (...scopes: (Scope | null)[]) => [...new Set(scopes.filter((scope): scope is Scope => scope !== null))];
      switch (relation.kind) {
        case 'reference': {
          const target = targetOf(relation.model, where);
          return {
            type: target.ref,
            scopes: scopesOf(target.scope),
            resolve: async (object, ctx, info) => {
              const id = object[relation.column];
              return id === null || id === undefined ? null : ((await load(ctx, target, [String(id)], info))[0] ?? null);
            },
          };
        }
        case 'collection': {
          const target = targetOf(relation.model, where);
          if (target.kind !== 'resource') throw new Error(`${where}: a collection relation returns records of a declared resource`);
          return {
            type: [target.ref],
            scopes: [target.scope],
            resolve: async (object, ctx, info) => {
              return loadersOf(ctx).recordsBy(target.def.name, relation.column, selectedChildren(target.def, info)).load(object.id as string);
            },
          };
        }
        case 'batched': {
          shapes.set(relation.shape.name, relation.shape);
          const ref = wireObject(builder, relation.shape);
          return {
            type: relation.many ? [ref] : ref,
            scopes: scopesOf(relation.scope),
            resolve: async (object, ctx) => {
              const key = relation.key(object);
              return key === null ? (relation.many ? [] : null) : loadersOf(ctx).batched(relation).load(key);
            },
          };
        }
        case 'through': {
          const target = targetOf(relation.model, where);
          const via = relations[relation.via];
          if (via?.kind !== 'batched' && !children.includes(relation.via)) throw new Error(`${where}: via ${relation.via} is neither a batched relation nor a child collection`);
          const viaRelation = via?.kind === 'batched' ? via : null;
          return {
            type: relation.many ? [target.ref] : target.ref,
            scopes: scopesOf(target.scope, viaRelation?.scope ?? null),
            resolve: async (object, ctx, info) => {
              const key = viaRelation?.key(object);
              const entries = (viaRelation ? (key ? await loadersOf(ctx).batched(viaRelation).load(key) : []) : (object[relation.via] ?? [])) as Record<string, unknown>[];
              const kept = relation.where ? entries.filter(relation.where) : entries;
              const ids = (relation.many ? kept : kept.slice(0, 1)).map(relation.idOf);
              const values = await load(ctx, target, ids, info);
              return relation.many ? values : (values[0] ?? null);
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
                  description: relation.union.description,
                  types: members.map(([, member]) => member.ref),
                  resolveType: (value) => (value as Reached).typename!,
                }),
              )
              .get(relation.union.name)!;
          return {
            type: union,
            scopes: [],
            needs: `the read scope of its type (${members.map(([, member]) => member.scope).join(', ')})`,
            resolve: async (object, ctx, info) => {
              const target = byType.get(object[relation.typeColumn] as string);
              const id = object[relation.idColumn];
              if (!target || target.kind !== 'resource' || typeof id !== 'string') return null;
              requireScope(ctx.principal, target.scope);
              return (await load(ctx, target, [id], info, target.def.className))[0] ?? null;
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
      const ref = children[name]!;
      if (childTypesDone.has(ref)) continue;
      childTypesDone.add(ref);
      register(ref, collection.label, childRelationsOf(collection), (value: Record<string, unknown>) => value);
    }
  }
  // Shapes served by batched relations (ContactLinkage) have relations of their own.
  for (const shape of shapes.values()) {
    if (shape.relations) register(wireObject(builder, shape), shape.name, shape.relations, (value: Record<string, unknown>) => value);
  }
}
