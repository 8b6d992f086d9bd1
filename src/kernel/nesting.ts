import { relationsOf, type PolymorphicRelation } from './relation.ts';
import type { ResourceDefinition } from './resource.ts';
import type { Scope } from './scopes.ts';

// Nested resources (ResourceDefinition.nested): records that belong to a record of one of several other resources
// (a note on a job), through a polymorphic relation. What follows from the declaration, for every adapter: which
// resources are the parents, the parent path segment, and the scopes. A nested resource has no read scope of its
// own: reading one of its records needs the read scope of the parent's resource, writing also `<scope>:write`.

/** The parent relation of a nested resource: its polymorphic relation, by the name `nested.relation` gives. */
export interface Nesting {
  relation: PolymorphicRelation;
  /** The column of the parent's type (its class name: "Job"). */
  typeColumn: string;
  /** The column of the parent's id. */
  idColumn: string;
}

/** The nesting of a nested resource; undefined for any other. */
export function nestingOf(def: ResourceDefinition): Nesting | undefined {
  if (!def.nested) return undefined;
  const relation = relationsOf(def)[def.nested.relation];
  if (!relation || relation.kind !== 'polymorphic') throw new Error(`${def.name}: nested.relation ${def.nested.relation} is not a polymorphic relation`);
  return { relation, typeColumn: relation.typeColumn, idColumn: relation.idColumn };
}

/** One parent resource of a nested resource: the parent type (class name) and its declaration. */
export interface NestedParent {
  type: string;
  parent: ResourceDefinition;
}

/** The parent resources of a nested resource, in the order of its relation's types. */
export function parentsOf(def: ResourceDefinition, all: readonly ResourceDefinition[]): NestedParent[] {
  const nesting = nestingOf(def);
  if (!nesting) return [];
  return Object.entries(nesting.relation.models).map(([type, model]) => {
    const parent = all.find((candidate) => candidate.model === model);
    if (!parent || parent.className !== type) throw new Error(`${def.name}: parent type ${type} is not a declared resource of model ${model}`);
    return { type, parent };
  });
}

/** The nested resources whose records a record of `parent` can have, each with the type that names the parent. */
export function childrenOf(parent: ResourceDefinition, all: readonly ResourceDefinition[]): { def: ResourceDefinition; type: string }[] {
  return all.flatMap((def) => parentsOf(def, all).filter((entry) => entry.parent === parent).map((entry) => ({ def, type: entry.type })));
}

/** The read scope of a resource's records: its own `<scope>:read`; null for a nested resource (its parent's). */
export function readScopeOf(def: ResourceDefinition): Scope | null {
  return def.nested ? null : (`${def.scope}:read` as Scope);
}

/** The scopes a nested record needs under a parent of `parent`'s resource: the parent's read scope, and to write, `<scope>:write`. */
export function nestedScopes(def: ResourceDefinition, parent: ResourceDefinition, access: 'read' | 'write'): Scope[] {
  const read = `${parent.scope}:read` as Scope;
  return access === 'read' ? [read] : [`${def.scope}:write` as Scope, read];
}

/** The scopes of the catalog a resource adds: `<scope>:read` and `<scope>:write`, a nested resource only its write scope. */
export function catalogScopes(def: ResourceDefinition): Scope[] {
  return def.nested ? [`${def.scope}:write` as Scope] : [`${def.scope}:read` as Scope, `${def.scope}:write` as Scope];
}
