import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { resources, referenceTargets } from '../../domain.ts';
import { createBuilder } from './builder.ts';
import { registerIdentity } from './identity.ts';
import { registerLookups } from './lookups.ts';
import { registerRelations } from './relations.ts';
import { registerNode } from './node.ts';
import { registerNested } from './nested.ts';
import { registerDispatchBoard } from './dispatch.ts';
import { registerActions } from './actions.ts';
import { registerResource, type ResourceTypes } from './resource-schema.ts';
import { registerSharedTypes } from './shared-types.ts';
import { registerSubscriptions } from './subscriptions.ts';

/**
 * The GraphQL schema: identity, lookups, every declared resource with its relations and actions, and the dispatch
 * board. Needs no database.
 */
export function buildSchema(): GraphQLSchema {
  const builder = createBuilder();
  builder.queryType({ description: 'Reads. Every operation needs an API key (a Bearer token); each field says the scope it needs.' });
  builder.mutationType({ description: 'Writes, under the same rules and error codes as the REST API. Each field says the scopes it needs.' });
  const shared = registerSharedTypes(builder);
  registerIdentity(builder);
  registerLookups(builder);
  const types = new Map<string, ResourceTypes>();
  for (const def of resources) types.set(def.name, registerResource(builder, def, shared));
  registerRelations(builder, types, referenceTargets);
  registerNode(builder, types, shared);
  registerNested(builder, types);
  registerDispatchBoard(builder, types.get('job')!);
  for (const def of resources) registerActions(builder, def, types, shared);
  registerSubscriptions(builder, types);
  return builder.toSchema();
}

/** schema.graphql as committed: the printed schema, types in alphabetical order, with a trailing newline. */
export function printedSchema(schema: GraphQLSchema = buildSchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
