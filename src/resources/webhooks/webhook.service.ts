import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import { addError, throwIfErrors, zodIssuesToErrors } from '../../kernel/body.ts';
import { valueSchema } from '../../kernel/fields.ts';
import { printable } from '../../kernel/storable.ts';
import { DELIVERY_LOG, replayFields } from './webhook.shapes.ts';
import type { RequestContext } from '../../kernel/context.ts';
import { runAsTenant } from '../../kernel/context.ts';
import { AppError, notFound, validationError, type FieldErrors } from '../../kernel/errors.ts';
import { parseTimestamp } from '../../kernel/dates.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { ResourceLookup } from '../../kernel/resource.ts';
import type { Single } from '../../kernel/resource-service.ts';
import type { DomainSettings } from '../../kernel/settings.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import type { AttemptOutcome, DeliveryJob, WebhookDeliverer } from './delivery.ts';
import { keyring } from './keyring.ts';
import { encryptSecret, newSigningSecret } from './secrets.ts';
import { verifyEndpoint } from './verification.ts';
import { checkDeliverable, checkLifecycle } from './endpoint-states.ts';
import { subscribableTopics, type TopicCatalog } from '../../kernel/topics.ts';
import { grants, type Scope } from '../../kernel/scopes.ts';

// The webhook endpoint actions (src/resources/webhooks/webhook-endpoint.actions.ts): verify, test, replay,
// rotate_secret and the delivery log. Lifecycle rules (spec, webhook endpoint states; src/resources/webhooks/endpoint-states.ts):
// a disabled endpoint refuses them with endpoint.disabled; a paused one refuses verify, replay and rotate_secret
// with endpoint.paused, while test is allowed (its success clears the pause); test and replay send nothing to an
// unverified endpoint (validation.failed on status).

/** Where replays queue their deliveries: the app's job queue (src/events/queue.ts). */
export interface DeliverySink {
  enqueue(jobs: DeliveryJob[]): Promise<void>;
}

const ROTATION_OVERLAP_MS = 24 * 3_600_000;
const MAX_REPLAY = 10_000;

export class WebhookService {
  /** Set by the app when its queue starts; replays need it. */
  sink: DeliverySink | null = null;

  constructor(
    private readonly db: TenantClient,
    private readonly settings: DomainSettings,
    private readonly resources: ResourceLookup,
    readonly deliverer: WebhookDeliverer,
    private readonly catalog: TopicCatalog,
  ) {}

  private async row(id: string) {
    const row = isUuid(id) ? await this.db.webhookEndpoint.findUnique({ where: { id } }) : null;
    if (!row) throw notFound('Webhook endpoint');
    return row;
  }

  private now(): Date {
    return this.resources('webhook_endpoint').now();
  }

  verify(ctx: RequestContext, id: string): Promise<{ webhook_endpoint: Single }> {
    return runAsTenant(ctx.principal.accountId, async () => ({
      webhook_endpoint: await verifyEndpoint({ ctx, db: this.db, settings: this.settings, resources: this.resources }, id),
    }));
  }

  /** Sends a webhook_endpoint.test event to this endpoint now and answers the attempt. */
  test(ctx: RequestContext, id: string): Promise<Record<string, unknown>> {
    return runAsTenant(ctx.principal.accountId, async () => {
      const row = await this.row(id);
      checkDeliverable(row, this.now(), true);
      const endpoints = this.resources('webhook_endpoint');
      const eventId = await inTransaction(this.db, async (tx) => {
        return endpoints.announceWithin(tx, ctx, await endpoints.getWithin(tx, id), 'test');
      });
      const outcome: AttemptOutcome & { deliveryId?: string } = await this.deliverer.attempt({ accountId: ctx.principal.accountId, endpointId: id, eventId, attempt: 1 }, { test: true });
      if (!outcome.deliveryId) {
        // The endpoint changed between the check and the attempt (disabled, moved to another URL): its refusal now.
        checkDeliverable(await this.row(id), this.now(), true);
        throw new AppError('endpoint.disabled', 'The endpoint was disabled while the test ran.');
      }
      return deliveryWire(await this.db.webhookDelivery.findUniqueOrThrow({ where: { id: outcome.deliveryId } }));
    });
  }

  replay(ctx: RequestContext, id: string, input: ActionInput): Promise<Record<string, unknown>> {
    return runAsTenant(ctx.principal.accountId, async () => {
      // The documented order: the endpoint (404), then the body (422), then its state.
      const row = await this.row(id);
      const request = replayRequest(readActionInput(input, 'replay'));
      checkDeliverable(row, this.now());
      if (!this.sink) throw new Error('the job queue is not running');
      const events = await this.db.event.findMany({
        where: {
          topic: { in: row.topics.filter((topic) => topic !== 'webhook_endpoint.test') },
          ...('event_ids' in request ? { id: { in: request.event_ids } } : { created_at: { gte: request.since, ...(request.until ? { lt: request.until } : {}) } }),
        },
        orderBy: { seq: 'asc' },
        take: MAX_REPLAY + 1,
        select: { id: true },
      });
      if (events.length > MAX_REPLAY) throw validationError({ since: [`selects more than ${MAX_REPLAY} events: replay a shorter range`] });
      await this.sink.enqueue(events.map((event) => ({ accountId: ctx.principal.accountId, endpointId: id, eventId: event.id, attempt: 1 })));
      return { endpoint_id: id, queued: events.length, event_ids: events.map((event) => event.id) };
    });
  }

  rotateSecret(ctx: RequestContext, id: string): Promise<Record<string, unknown>> {
    return runAsTenant(ctx.principal.accountId, async () => {
      const row = await this.row(id);
      const now = this.now();
      checkLifecycle(row, now);
      const secret = newSigningSecret();
      const expires = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      await inTransaction(this.db, async (tx) => {
        await this.resources('webhook_endpoint').touchWithin(tx, ctx, id, {
          secret_ciphertext: encryptSecret(await keyring(tx, this.settings.webhooks), secret),
          previous_secret_ciphertext: row.secret_ciphertext,
          previous_secret_expires_at: expires,
        });
      });
      return { endpoint_id: id, secret, previous_secret_expires_at: expires.toISOString() };
    });
  }

  /** GET /webhooks/available_topics: what this key can subscribe to now. */
  availableTopics(ctx: RequestContext): { name: string; resource: string; description: string }[] {
    return subscribableTopics(this.catalog, ctx.principal.account.modules, (scope) => grants(ctx.principal.key.scopes, `${scope}:read` as Scope));
  }

  /** The latest attempts, newest first: `limit` of them (deliveriesQueryFields), DELIVERY_LOG without it. */
  deliveries(ctx: RequestContext, id: string, input: ActionInput): Promise<Record<string, unknown>[]> {
    return runAsTenant(ctx.principal.accountId, async () => {
      // The documented order: the endpoint (404), then the parameters (422).
      await this.row(id);
      const { limit } = input() as { limit?: number };
      const rows = await this.db.webhookDelivery.findMany({ where: { endpoint_id: id }, orderBy: [{ created_at: 'desc' }, { id: 'desc' }], take: limit ?? DELIVERY_LOG });
      return rows.map(deliveryWire);
    });
  }
}

type DeliveryRow = { id: string; endpoint_id: string; event_id: string; topic: string; attempt: number; status_code: number | null; duration_ms: number; error: string | null; next_attempt_at: Date | null; created_at: Date };

function deliveryWire(row: DeliveryRow): Record<string, unknown> {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    topic: row.topic,
    attempt: row.attempt,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

/** Which events a replay re-sends, from its input: {event_ids: [...]} or {since, until?}. */
function replayRequest(r: Record<string, unknown>): { event_ids: string[] } | { since: Date; until: Date | null } {
  const errors: FieldErrors = {};
  for (const key of Object.keys(r)) if (!Object.hasOwn(replayFields, key)) addError(errors, printable(key), 'is not a replay field (event_ids, since, until)');
  const given = (Object.keys(replayFields) as (keyof typeof replayFields)[]).filter((key) => r[key] !== undefined && r[key] !== null);
  for (const key of given) {
    const parsed = valueSchema(replayFields[key]).safeParse(r[key]);
    if (!parsed.success) Object.assign(errors, zodIssuesToErrors(parsed.error, key));
  }
  throwIfErrors(errors);
  if (given.includes('event_ids')) {
    const ids = r.event_ids as string[];
    if (given.length > 1) addError(errors, 'event_ids', 'cannot be combined with since and until');
    if (ids.length === 0) addError(errors, 'event_ids', 'must list at least one event id');
    ids.forEach((id, index) => {
      if (!isUuid(id)) addError(errors, `event_ids.${index}`, 'is not a valid UUID');
    });
    throwIfErrors(errors);
    return { event_ids: [...new Set(ids)] };
  }
  const since = given.includes('since') ? parseTimestamp(r.since as string) : null;
  const until = given.includes('until') ? parseTimestamp(r.until as string) : null;
  if (!since) addError(errors, 'since', 'is required (an ISO 8601 timestamp) unless event_ids is given');
  if (since && until && until <= since) addError(errors, 'until', 'must be after since');
  throwIfErrors(errors);
  return { since: since!, until };
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    webhooks: WebhookService;
  }
}
