import type { Logger } from 'pino';
import { newId } from '../../kernel/ids.ts';
import { runAsTenant } from '../../kernel/context.ts';
import type { ResourceLookup } from '../../kernel/resource.ts';
import type { DomainSettings } from '../../kernel/settings.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { CURRENT_VERSION } from '../../kernel/versioning.ts';
import { envelopeOf } from '../../kernel/envelope.ts';
import { answerSummary, postJson, type OutboundResult } from './outbound.ts';
import { signedHeaders } from './signing.ts';
import { lockedEndpoint, signingSecrets } from './verification.ts';
import { deliverable } from './endpoint-states.ts';

// One delivery attempt of one event to one endpoint (a job of the queue, src/events/queue.ts), and what it
// does to the endpoint: the delivery log row, the failure count, the circuit breaker (pause after
// WEBHOOK_PAUSE_AFTER_FAILURES consecutive failures, for WEBHOOK_PAUSE_SECONDS), disabling (a 410 answer, or
// failing continuously for WEBHOOK_DISABLE_AFTER_DAYS) and the time of the next attempt (WEBHOOK_RETRY_SCHEDULE,
// with jitter). Delivery counters are not part of the endpoint's version (its ETag): only the breaker's and
// disabling's transitions are record writes, with their lifecycle events.

export interface DeliveryJob {
  accountId: string;
  endpointId: string;
  eventId: string;
  /** 1 for the first attempt. */
  attempt: number;
}

export type AttemptOutcome =
  /** `requestMs`: how long the endpoint took to answer (or to fail), as the delivery log's duration_ms. */
  | { kind: 'delivered'; requestMs: number }
  /** Nothing to do: the endpoint is gone, disabled or unverified, or the event was purged. */
  | { kind: 'dropped'; reason: string }
  /** The endpoint is paused: the same attempt waits until then. */
  | { kind: 'deferred'; until: Date }
  | { kind: 'failed'; retryAt: Date | null; requestMs: number };

const SYSTEM = { system: 'webhook_delivery' } as const;

/** The delay before retry n (1-based) with ±10 % jitter, or null when the schedule is spent. */
export function retryDelayMs(schedule: readonly number[], attempt: number): number | null {
  const seconds = schedule[attempt - 1];
  if (seconds === undefined) return null;
  return Math.round(seconds * 1000 * (0.9 + Math.random() * 0.2));
}

export function failureOf(result: OutboundResult): string | null {
  if (result.failure) return result.failure.message;
  if (result.status! >= 200 && result.status! <= 299) return null;
  return answerSummary(result);
}

export class WebhookDeliverer {
  constructor(
    private readonly db: TenantClient,
    private readonly settings: DomainSettings,
    private readonly resources: ResourceLookup,
    private readonly logger: Logger,
  ) {}

  private now(): Date {
    return this.resources('webhook_endpoint').now();
  }

  /** Runs one attempt (options.test: the test action's delivery, allowed while paused, clears the breaker on success). */
  attempt(job: DeliveryJob, options: { test?: boolean } = {}): Promise<AttemptOutcome & { deliveryId?: string }> {
    return runAsTenant(job.accountId, async (): Promise<AttemptOutcome & { deliveryId?: string }> => {
      const endpoint = await this.db.webhookEndpoint.findUnique({ where: { id: job.endpointId } });
      if (!endpoint) return { kind: 'dropped', reason: 'endpoint deleted' };
      if (endpoint.status === 'disabled') return { kind: 'dropped', reason: 'endpoint disabled' };
      // Nothing is sent to a URL that did not echo a challenge, not even a test (src/resources/webhooks/endpoint-states.ts).
      if (!deliverable(endpoint)) return { kind: 'dropped', reason: 'endpoint not verified' };
      const startedAt = this.now();
      if (!options.test && endpoint.paused_until && endpoint.paused_until > startedAt) return { kind: 'deferred', until: endpoint.paused_until };
      const event = await this.db.event.findUnique({ where: { id: job.eventId } });
      if (!event) return { kind: 'dropped', reason: 'event purged' };
      const body = JSON.stringify(envelopeOf(event, endpoint.api_version || CURRENT_VERSION));
      const headers = signedHeaders(await signingSecrets(this.db, this.settings, endpoint, startedAt), event.id, startedAt, body);
      const result = await postJson(endpoint.url, headers, body, { allowPrivateNetworks: this.settings.webhooks.allowPrivateNetworks, allowLoopback: this.settings.webhooks.allowLoopback, timeoutMs: this.settings.webhooks.timeoutMs });
      const failure = failureOf(result);
      const endedAt = this.now();
      const gone = !result.failure && result.status === 410;
      const delay = failure && !gone && !options.test ? retryDelayMs(this.settings.webhooks.retrySchedule, job.attempt) : null;
      const retryAt = delay === null ? null : new Date(endedAt.getTime() + delay);
      const deliveryId = newId();
      await inTransaction(this.db, async (tx) => {
        await tx.webhookDelivery.create({
          data: {
            id: deliveryId,
            endpoint_id: endpoint.id,
            event_id: event.id,
            topic: event.topic,
            attempt: job.attempt,
            status_code: result.status,
            duration_ms: Math.round(result.durationMs),
            error: failure,
            next_attempt_at: retryAt,
            created_at: endedAt,
          } as never,
        });
        const endpoints = this.resources('webhook_endpoint');
        if (!failure) {
          // A success clears the breaker (a test delivery's success too: spec, Events 4).
          await tx.webhookEndpoint.updateMany({
            where: { id: endpoint.id },
            data: { consecutive_failures: 0, failing_since: null, last_delivery_at: endedAt, last_delivery_status: result.status, last_error: null, ...(endpoint.paused_until ? { paused_until: null } : {}) },
          });
          return;
        }
        if (options.test) {
          await tx.webhookEndpoint.updateMany({ where: { id: endpoint.id }, data: { last_delivery_at: endedAt, last_delivery_status: result.status, last_error: failure } });
          return;
        }
        // Attempts to one endpoint run concurrently (several workers, several processes): the counters are read
        // again under the row's lock, so no failure is lost and one pause or disable is decided once.
        const current = await lockedEndpoint(tx, endpoint.id);
        if (!current || current.status === 'disabled') return;
        const failures = current.consecutive_failures + 1;
        const failingSince = current.failing_since ?? startedAt;
        await tx.webhookEndpoint.updateMany({
          where: { id: endpoint.id },
          data: { consecutive_failures: failures, failing_since: failingSince, last_delivery_at: endedAt, last_delivery_status: result.status, last_error: failure },
        });
        const origin = { accountId: job.accountId, ...SYSTEM };
        const failingMs = endedAt.getTime() - failingSince.getTime();
        if (gone || failingMs >= this.settings.webhooks.disableAfterDays * 86_400_000) {
          const disabled = await endpoints.touchWithin(tx, origin, endpoint.id, { status: 'disabled', paused_until: null });
          await endpoints.announceWithin(tx, origin, disabled, 'disabled', { reason: gone ? 'gone' : 'failing' });
        } else if (failures >= this.settings.webhooks.pauseAfterFailures && !(current.paused_until && current.paused_until > endedAt)) {
          const paused = await endpoints.touchWithin(tx, origin, endpoint.id, { paused_until: new Date(endedAt.getTime() + this.settings.webhooks.pauseSeconds * 1000) });
          await endpoints.announceWithin(tx, origin, paused, 'paused');
        }
      });
      if (failure) this.logger.info({ endpoint_id: endpoint.id, event_id: event.id, attempt: job.attempt, status: result.status }, 'webhook delivery failed');
      const requestMs = result.durationMs;
      return failure ? { kind: 'failed', retryAt, requestMs, deliveryId } : { kind: 'delivered', requestMs, deliveryId };
    });
  }
}

