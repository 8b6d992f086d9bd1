import { newId } from './ids.ts';
import type { RequestContext } from './context.ts';
import type { TenantTx } from './tenancy.ts';

// The outbox: every write appends its event in the same transaction as the change. Webhook delivery and
// GraphQL subscriptions read from this table, so an event exists exactly when its change committed.

export type EventAction = 'created' | 'updated' | 'deleted';

export async function appendEvent(
  tx: TenantTx,
  ctx: RequestContext,
  event: { resource: string; topicPrefix: string; recordId: string; action: EventAction; payload: unknown },
): Promise<void> {
  await tx.event.create({
    data: {
      id: newId(),
      account_id: ctx.principal.accountId,
      topic: `${event.topicPrefix}.${event.action}`,
      resource: event.resource,
      record_id: event.recordId,
      action: event.action,
      payload: event.payload as object,
      actor: { key_id: ctx.principal.key.id, user_id: Number(ctx.principal.user.id) },
      request_id: ctx.requestId,
    },
  });
}
