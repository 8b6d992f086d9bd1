import { Kind, type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { childRelationsOf, relationsOf } from '../../kernel/relation.ts';
import { childOutputFields, outputFields, type ChildCollection, type ResourceDefinition } from '../../kernel/resource.ts';
import type { ReadOptions } from '../../kernel/resource-service.ts';
import { camelCase } from '../../kernel/naming.ts';

// What a query selects below a resolver's field, so that a read loads only what will be served (only the columns
// and child collections of the fields selected). Fragments are expanded; @skip and @include
// are not evaluated, so a skipped selection still counts (the read is then unneeded, never missing).

/** Calls `visit` for every field selected in `sets` (one call per selection: an alias is another), fragments expanded. */
export function eachSelectedField(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[], visit: (field: FieldNode) => void): void {
  for (const set of sets) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) visit(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) eachSelectedField(info, [selection.selectionSet], visit);
      else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) eachSelectedField(info, [fragment.selectionSet], visit);
      }
    }
  }
}

/** The selection sets under the resolver's field. */
export function fieldSelections(info: GraphQLResolveInfo): SelectionSetNode[] {
  return info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
}

function fieldsOf(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[], out: Map<string, SelectionSetNode[]>): void {
  eachSelectedField(info, sets, (field) => {
    const subs = out.get(field.name.value) ?? out.set(field.name.value, []).get(field.name.value)!;
    if (field.selectionSet) subs.push(field.selectionSet);
  });
}

/** Names of the fields selected under the resolver's field, at `path` below it (e.g. ["nodes"] for a page). */
export function selectedFields(info: GraphQLResolveInfo, path: readonly string[] = []): Set<string> {
  let sets = fieldSelections(info);
  for (const step of path) {
    const fields = new Map<string, SelectionSetNode[]>();
    fieldsOf(info, sets, fields);
    sets = fields.get(step) ?? [];
  }
  const fields = new Map<string, SelectionSetNode[]>();
  fieldsOf(info, sets, fields);
  return new Set(fields.keys());
}

/**
 * Answers per field of the operation: graphql-js hands every item of a list the same fieldNodes array, so a
 * relation resolved for each of 1,000 rows walks its selection once.
 */
const answered = new WeakMap<readonly object[], Map<ResourceDefinition, Map<readonly (readonly string[])[], ReadOptions>>>();

/** The selection directly under the resolver's field. */
const HERE: readonly (readonly string[])[] = [[]];

const needsOf = new WeakMap<ResourceDefinition, Map<string, readonly string[]>>();

/**
 * The wire fields each field of a resource's record type reads from the served record: a field its own wire field
 * (a child collection its collection), a relation the fields it follows (a reference its id field, a polymorphic
 * relation its type and id fields, a relation through a child collection that collection; the others only the
 * record's id, always served), etag and __typename nothing. A field missing here (added to the type elsewhere)
 * makes the read serve every field.
 */
function fieldNeeds(def: ResourceDefinition): Map<string, readonly string[]> {
  let needs = needsOf.get(def);
  if (needs) return needs;
  needs = new Map<string, readonly string[]>([
    ['etag', []],
    ['__typename', []],
  ]);
  const served = new Set(outputFields(def).map((field) => field.name));
  for (const name of served) needs.set(camelCase(name), [name]);
  for (const [name, relation] of Object.entries(relationsOf(def))) {
    const follows =
      relation.kind === 'reference'
        ? [relation.column]
        : relation.kind === 'polymorphic'
          ? [relation.typeColumn, relation.idColumn]
          : relation.kind === 'through' && def.children?.[relation.via]
            ? [relation.via]
            : [];
    if (follows.every((wire) => served.has(wire))) needs.set(camelCase(name), follows);
  }
  needsOf.set(def, needs);
  return needs;
}

/**
 * What a read of `def` must serve for the selection under the resolver's field (at each of `paths` below it, e.g.
 * ["nodes"] and ["edges", "node"] for a connection): ReadOptions.fields with the wire fields the selected fields
 * read, so only their columns and child collections are read. Every field when something selected has no
 * declared needs. Names selected in a fragment on another type (a union's other members) are not fields of this
 * resource's type and are left out.
 */
export function selectedRead(def: ResourceDefinition, info: GraphQLResolveInfo, paths: readonly (readonly string[])[] = HERE): ReadOptions {
  // Cached per field of the operation, resource and paths (callers pass constant path lists): a relation resolved
  // for each of a thousand rows asks a thousand times.
  const perField = answered.get(info.fieldNodes) ?? answered.set(info.fieldNodes, new Map()).get(info.fieldNodes)!;
  const known = perField.get(def) ?? perField.set(def, new Map()).get(def)!;
  const cached = known.get(paths);
  if (cached) return cached;
  const needs = fieldNeeds(def);
  const wanted = new Set<string>();
  let every = false;
  for (const path of paths) {
    for (const name of selectedFields(info, path)) {
      const follows = needs.get(name);
      if (!follows) {
        if (name in typeFields(info, def.className)) every = true;
        continue;
      }
      for (const wire of follows) {
        const collection = def.children?.[wire];
        // A child collection's field: the fields of its entries that its page (nodes, edges.node) selects.
        if (collection && !collection.valueField && follows.length === 1 && camelCase(wire) === name) {
          for (const entry of entryFields(collection, info, [...path, name])) wanted.add(entry === null ? wire : `${wire}.${entry}`);
        } else wanted.add(wire);
      }
    }
  }
  let result: ReadOptions = {};
  if (!every) {
    // In declaration order, so equal selections share one projection (and one loader); a whole collection
    // replaces its entries' fields.
    const fields: string[] = [];
    for (const field of outputFields(def)) {
      if (wanted.has(field.name)) fields.push(field.name);
      else if (field.children) for (const entry of childOutputFields(field.children)) if (wanted.has(`${field.name}.${entry.name}`)) fields.push(`${field.name}.${entry.name}`);
    }
    result = { fields };
  }
  known.set(paths, result);
  return result;
}

function typeFields(info: GraphQLResolveInfo, typeName: string): Record<string, unknown> {
  return (info.schema.getType(typeName) as GraphQLObjectType | undefined)?.getFields() ?? {};
}

/**
 * The served fields of a collection's entries that the page at `path` selects (under nodes and edges.node): a
 * field its own field, a reference its id field; [null] (every field) when something else is selected.
 */
function entryFields(collection: ChildCollection, info: GraphQLResolveInfo, path: readonly string[]): (string | null)[] {
  const served = new Map(childOutputFields(collection).map((field) => [camelCase(field.name), field.name]));
  for (const [name, relation] of Object.entries(childRelationsOf(collection))) {
    if (relation.kind === 'reference') served.set(camelCase(name), relation.column);
  }
  const out = new Set<string>();
  for (const at of [[...path, 'nodes'], [...path, 'edges', 'node']]) {
    for (const name of selectedFields(info, at)) {
      const wire = served.get(name);
      if (wire) out.add(wire);
      else if (name !== '__typename') return [null];
    }
  }
  // A page that selects no entry field (only pageInfo) still needs the entries, to know what follows.
  return out.size > 0 ? [...out] : ['id'];
}
