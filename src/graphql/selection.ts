import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { relationsOf } from '../kernel/relation.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import { camelCase } from './naming.ts';

// What a query selects below a resolver's field, so that a read loads only what will be served (a record's child
// collections are read only when one of their fields is selected). Fragments are expanded; @skip and @include
// are not evaluated, so a skipped selection still counts (the read is then unneeded, never missing).

function fieldsOf(info: GraphQLResolveInfo, sets: readonly SelectionSetNode[], out: Map<string, SelectionSetNode[]>): void {
  for (const set of sets) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const subs = out.get(selection.name.value) ?? out.set(selection.name.value, []).get(selection.name.value)!;
        if (selection.selectionSet) subs.push(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        fieldsOf(info, [selection.selectionSet], out);
      } else {
        const fragment = info.fragments[selection.name.value];
        if (fragment) fieldsOf(info, [fragment.selectionSet], out);
      }
    }
  }
}

/** Names of the fields selected under the resolver's field, at `path` below it (e.g. ["nodes"] for a page). */
export function selectedFields(info: GraphQLResolveInfo, path: readonly string[] = []): Set<string> {
  let sets = info.fieldNodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
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
const answered = new WeakMap<readonly object[], Map<string, string[]>>();

/** The child collections of `def` the query selects under the resolver's field (at `path`), by their names in def.children. */
export function selectedChildren(def: ResourceDefinition, info: GraphQLResolveInfo, path: readonly string[] = []): string[] {
  const children = Object.keys(def.children ?? {});
  if (children.length === 0) return [];
  const known = answered.get(info.fieldNodes) ?? answered.set(info.fieldNodes, new Map()).get(info.fieldNodes)!;
  const key = `${def.name}|${path.join('.')}`;
  const cached = known.get(key);
  if (cached) return cached;
  const selected = selectedFields(info, path);
  const needed = new Set(children.filter((name) => selected.has(camelCase(name))));
  // A relation through a child collection (Job.assignees, via assignments) needs that collection read.
  for (const [field, relation] of Object.entries(relationsOf(def))) {
    if (relation.kind === 'through' && selected.has(camelCase(field))) needed.add(relation.via);
  }
  const result = children.filter((name) => needed.has(name));
  known.set(key, result);
  return result;
}
