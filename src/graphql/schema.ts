import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { resources } from '../domain.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import { createBuilder } from './builder.ts';
import { registerIdentity } from './identity.ts';
import { registerLookups } from './lookups.ts';
import { registerResource } from './resource-schema.ts';
import { registerSharedTypes } from './shared-types.ts';

/** The GraphQL schema: identity, lookups and every declared resource. Needs no database. */
export function buildSchema(definitions: readonly ResourceDefinition[] = resources): GraphQLSchema {
  const builder = createBuilder();
  builder.queryType({ description: 'Reads. Every request needs Authorization: Bearer <API key>.' });
  builder.mutationType({ description: 'Writes, through the same services and rules as REST.' });
  const shared = registerSharedTypes(builder);
  registerIdentity(builder);
  registerLookups(builder);
  for (const def of definitions) registerResource(builder, def, shared);
  return builder.toSchema();
}

/** schema.graphql as committed: the printed schema, types in alphabetical order, with a trailing newline. */
export function printedSchema(schema: GraphQLSchema = buildSchema()): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
