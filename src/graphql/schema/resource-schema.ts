import type { ObjectRef } from '@pothos/core';
import type { ChildCollection, ResourceDefinition } from '../../kernel/resource.ts';
import type { Builder } from './builder.ts';
import type { SharedTypes } from './shared-types.ts';
import { childTypes, type ChildTypes } from './child-types.ts';
import { registerRecordType, type RecordShape } from './record-type.ts';
import { registerResourceQueries, type ListArguments } from './resource-queries.ts';
import { registerResourceMutations } from './resource-mutations.ts';

// GraphQL for a declared resource, generated from its ResourceDefinition alone: the object type (from
// outputFields), create and update inputs (from def.fields and def.conventions), the list arguments (from
// def.list), the queries <name>(id) and <plural>(...), and the mutations create/update/delete<Class>. Every
// resolver calls the resource's ResourceService with the kernel's own terms (field values by their declared
// names, a typed list request, the ETag as a value), as REST does, so rules, results and error codes are the
// same on both APIs. A new resource gets GraphQL by being listed in src/resources/index.ts.
//
// The parts: field-types.ts (a field kind's GraphQL type), child-types.ts (the types of child collections),
// record-type.ts (the object type), resource-queries.ts with list-arguments.ts (the queries and the list's
// arguments), resource-mutations.ts with write-input.ts, write-body.ts and idempotent-create.ts (the mutations,
// their inputs, the values they write and a financial create).

/** The types made for a resource, for other parts of the schema (relations, extra operations) to build on. */
export interface ResourceTypes {
  def: ResourceDefinition;
  record: ObjectRef<any, RecordShape>;
  /** The object type of each child collection's entries, by collection name (Job.lineitems -> Lineitem). */
  children: Record<string, ObjectRef<any, Record<string, unknown>>>;
  /** Its connection type and list arguments (a nested resource's connection on each parent: nested.ts). */
  list: ListArguments;
  /** The <Class>Payload of its create and update mutations. */
  payload: ReturnType<typeof registerResourceMutations>;
}

/** Registers a resource's object type, queries and mutations; answers the types made, for the rest of the schema. */
export function registerResource(builder: Builder, def: ResourceDefinition, shared: SharedTypes): ResourceTypes {
  // Child collections: an output type and an input type per collection, shared by every parent that uses it.
  const childRefs = new Map<ChildCollection, ChildTypes>();
  // A list of values (ChildCollection.valueField) is a list of scalars: no entry types.
  for (const children of Object.values(def.children ?? {})) if (!children.valueField) childRefs.set(children, childTypes(builder, children));

  const recordRef = registerRecordType(builder, def, shared, childRefs);
  const list = registerResourceQueries(builder, def, shared, recordRef);
  const payload = registerResourceMutations(builder, def, shared, recordRef);

  const children = Object.fromEntries(
    Object.entries(def.children ?? {})
      .filter(([, collection]) => childRefs.has(collection))
      .map(([name, collection]) => [name, childRefs.get(collection)!.output]),
  );
  return { def, record: recordRef, children, list, payload };
}
