import { newId } from './ids.ts';
import type { RequestContext } from './context.ts';
import type { TenantTx } from './tenancy.ts';

// The outbox: every write appends its event in the same transaction as the change. Webhook delivery, GraphQL
// subscriptions and the change feed (GET /events) read from this table, so an event exists exactly when its
// change committed. Events are numbered (seq) at commit, in commit order (the events_webhooks migration), and
// their topics are catalogued in src/events/topics.ts.

/** What happened to the record: the last word of the topic (`job.status_changed`). */
export type EventAction = 'created' | 'updated' | 'deleted' | 'status_changed' | 'converted' | 'received' | 'verified' | 'paused' | 'disabled' | 'test';

/**
 * Who caused an event that no request made: the delivery worker pausing or disabling an endpoint, the scheduler
 * creating a recurring template's occurrence (with the template: `recurring_job_id`, `recurring_invoice_id`).
 */
export interface SystemOrigin {
  accountId: string;
  system: 'webhook_delivery' | 'recurring_jobs' | 'recurring_invoices';
  /** What the actor names beside the system (the template of an occurrence). */
  about?: Record<string, string>;
}

export interface AppendedEvent {
  /** The record's class: "Job". */
  resource: string;
  /** The topic's first part: "job". */
  topicPrefix: string;
  recordId: string;
  action: EventAction;
  /** The record as REST v2 serves it (after the change; before it, for a delete). */
  payload: unknown;
  /** What `data` carries beside the record: changed_fields, previous_status and status, converted_to. */
  details?: Record<string, unknown>;
  /** The record's ETag after the change (typed GraphQL subscriptions serve it); none for a deletion. */
  etag?: string;
}

/** Appends the event; answers its id. */
export async function appendEvent(tx: TenantTx, origin: RequestContext | SystemOrigin, event: AppendedEvent): Promise<string> {
  const request = 'principal' in origin ? origin : null;
  const id = newId();
  await tx.event.create({
    data: {
      id,
      account_id: request ? request.principal.accountId : (origin as SystemOrigin).accountId,
      topic: `${event.topicPrefix}.${event.action}`,
      resource: event.resource,
      record_id: event.recordId,
      action: event.action,
      payload: event.payload as object,
      details: event.details as object | undefined,
      etag: event.action === 'deleted' ? null : (event.etag ?? null),
      actor: actorOf(origin),
      request_id: request?.requestId ?? null,
    },
  });
  return id;
}

/** The event's actor: the key and user of a request, or the system (a request context may act for one: RequestContext.origin). */
function actorOf(origin: RequestContext | SystemOrigin): Record<string, string | number> {
  const system = 'principal' in origin ? origin.origin : origin;
  if (system) return { system: system.system, ...system.about };
  const { principal } = origin as RequestContext;
  return { key_id: principal.key.id, user_id: Number(principal.user.id) };
}

/** The wire fields whose values differ between two versions of a record (updated_at always moves: left out). */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  names.delete('updated_at');
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}

/**
 * The events of an update: `<resource>.updated` with changed_fields, and, for a resource with the status
 * convention (`status`), `<resource>.status_changed` with the previous and the new status when the status moved.
 */
export async function appendUpdateEvents(
  tx: TenantTx,
  origin: RequestContext | SystemOrigin,
  event: Omit<AppendedEvent, 'action' | 'payload' | 'details'> & { before: Record<string, unknown>; after: Record<string, unknown>; status: boolean },
): Promise<void> {
  const { before, after, status, ...about } = event;
  await appendEvent(tx, origin, { ...about, action: 'updated', payload: after, details: { changed_fields: changedFields(before, after) } });
  if (status && before.status !== after.status) {
    await appendEvent(tx, origin, { ...about, action: 'status_changed', payload: after, details: { previous_status: before.status, status: after.status } });
  }
}
