import type { RecordInput, Single } from '../../kernel/resource-service.ts';
import { bodyKeyOf, type ResourceDefinition } from '../../kernel/resource.ts';
import { requestContext, type GraphQLContext } from './builder.ts';

/**
 * A financial create through the idempotency store REST uses (src/kernel/idempotency.ts): keyed on the mutation's
 * name and its values. A retry with the same key and input gets the same record, read again (its current state:
 * GraphQL selects what it wants, so the stored response is the record's id).
 */
export async function idempotentCreate(ctx: GraphQLContext, def: ResourceDefinition, key: unknown, values: RecordInput): Promise<Single> {
  const service = ctx.domain.resource(def.name);
  // The fingerprint is of the values under the record's key, as it was before the service took values: a key
  // stored then still matches its retry.
  const request = { key, method: 'GRAPHQL', path: `create${def.className}`, body: { [bodyKeyOf(def)]: values } };
  const render = (single: Single) => ({ status: 200, headers: {}, body: '', recordId: single.record.id as string });
  const outcome = await ctx.domain.idempotency.run(requestContext(ctx), request, render, (scoped) => service.create(scoped, values));
  return outcome.replayed ? service.get(requestContext(ctx), outcome.response.recordId) : outcome.result;
}
