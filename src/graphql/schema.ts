import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { resources } from '../domain.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import { createBuilder } from './builder.ts';
import { registerIdentity } from './identity.ts';
import { registerLookups } from './lookups.ts';
import type { RecordName } from './loaders.ts';
import { registerRelations } from './relations.ts';
import { registerDispatchBoard } from './dispatch.ts';
import { registerWorkRelations } from './work.ts';
import { registerActions } from './actions.ts';
import { registerResource, type ResourceTypes } from './resource-schema.ts';
import { registerSharedTypes } from './shared-types.ts';

/**
 * The GraphQL schema: identity, lookups, every declared resource with its actions, and — when customers, leads,
 * sites and contacts are all declared — their relations; with systems, items, tax rates, jobs and estimates too,
 * the work relations and the dispatch board. Needs no database.
 */
export function buildSchema(definitions: readonly ResourceDefinition[] = resources): GraphQLSchema {
  const builder = createBuilder();
  builder.queryType({ description: 'Reads. Every request needs Authorization: Bearer <API key>.' });
  builder.mutationType({ description: 'Writes, through the same services and rules as REST.' });
  const shared = registerSharedTypes(builder);
  registerIdentity(builder);
  registerLookups(builder);
  const types = new Map<string, ResourceTypes>();
  for (const def of definitions) types.set(def.name, registerResource(builder, def, shared));
  const related: RecordName[] = ['customer', 'lead', 'site', 'contact'];
  if (related.every((name) => types.has(name))) {
    const byName = Object.fromEntries(related.map((name) => [name, types.get(name)!])) as Record<RecordName, ResourceTypes>;
    registerRelations(builder, byName);
  }
  const work: RecordName[] = [...related, 'system', 'item', 'tax_rate', 'job', 'estimate'];
  if (work.every((name) => types.has(name))) {
    const byName = Object.fromEntries(work.map((name) => [name, types.get(name)!])) as Record<RecordName, ResourceTypes>;
    registerWorkRelations(builder, byName);
    registerDispatchBoard(builder, byName.job);
  }
  for (const def of definitions) registerActions(builder, def, types, shared);
  return builder.toSchema();
}

/** schema.graphql as committed: the printed schema, types in alphabetical order, with a trailing newline. */
export function printedSchema(schema: GraphQLSchema = buildSchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
