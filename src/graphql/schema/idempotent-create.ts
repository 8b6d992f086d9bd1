import type { RecordInput } from '../../kernel/resource-service.ts';
import { bodyKeyOf, type ResourceDefinition } from '../../kernel/resource.ts';
import { asServed } from '../../kernel/record-serialization.ts';
import { Single } from '../../kernel/served-record.ts';
import { requestContext, type GraphQLContext } from './builder.ts';

/**
 * A financial create through the idempotency store REST uses (src/kernel/idempotency.ts): keyed on the mutation's
 * name and its values. A retry with the same key and input gets the same record as the first answer did (as
 * created, with its ETag then), as a REST retry does.
 */
export async function idempotentCreate(ctx: GraphQLContext, def: ResourceDefinition, key: unknown, values: RecordInput): Promise<Single> {
  const service = ctx.domain.resource(def.name);
  // The fingerprint is of the values under the record's key, as it was before the service took values: a key
  // stored then still matches its retry.
  const request = { key, method: 'GRAPHQL', path: `create${def.className}`, body: { [bodyKeyOf(def)]: values } };
  const outcome = await ctx.domain.idempotency.run(requestContext(ctx), request, (scoped) => service.create(scoped, values));
  // A key stored before the store kept records (2026-11-28) has the record's id: it is read again.
  if ('legacy' in outcome) return service.get(requestContext(ctx), outcome.legacy.recordId);
  return served(def, outcome.records[def.name]);
}

/** A stored record as GraphQL reads a served one (its child entries read through ChildEntry, record-source.ts). */
export function served(def: ResourceDefinition, single: Single): Single {
  return new Single(asServed(def, single.record), single.etag);
}
