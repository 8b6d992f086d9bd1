import type { FieldSpec } from '../../kernel/fields.ts';
import { wireShape } from '../../kernel/wire-shape.ts';

// The answers of the webhook endpoint actions: one delivery attempt (GET .../deliveries, POST .../test), a
// rotated secret and a replay's count.

export const webhookDeliveryShape = wireShape({
  name: 'WebhookDelivery',
  description: 'One attempt to deliver an event to an endpoint (a retry is another attempt of the same event, with the same {event_id}).',
  fields: {
    id: { kind: 'uuid' },
    endpoint_id: { kind: 'uuid', description: 'The endpoint the event was sent to.' },
    event_id: { kind: 'uuid', description: 'The event delivered: the `webhook-id` header and the body\'s `id`.' },
    topic: { kind: 'string', description: 'The topic of the event.' },
    attempt: { kind: 'integer', description: '1 for the first attempt of the event, then 2, 3 ... for its retries.' },
    status_code: { kind: 'integer', nullable: true, description: 'The HTTP status the endpoint answered; null when no answer came (timeout, network, TLS).' },
    duration_ms: { kind: 'integer', description: 'From the start of the request to the end of the answer, in milliseconds.' },
    error: { kind: 'string', nullable: true, description: 'Why the attempt failed; null when it succeeded (2xx).' },
    next_attempt_at: { kind: 'datetime', nullable: true, description: 'When the next attempt is due; null when none is (a success, a 410, or the schedule is spent).' },
    created_at: { kind: 'datetime', description: 'When the attempt ended.' },
  },
});

export const webhookSecretShape = wireShape({
  name: 'WebhookSecret',
  description: 'A new signing secret: shown once. The previous secret keeps signing, beside the new one, until {previous_secret_expires_at}.',
  fields: {
    endpoint_id: { kind: 'uuid', description: 'The endpoint whose secret was rotated.' },
    secret: { kind: 'string', description: 'The new secret, in the form Standard Webhooks libraries take (whsec, an underscore, then base64): verify signatures with it.' },
    previous_secret_expires_at: { kind: 'datetime', description: 'Until then deliveries carry a signature with each secret.' },
  },
});

export const webhookReplayShape = wireShape({
  name: 'WebhookReplay',
  description: 'What a replay queued: the events re-sent to the endpoint, with their original ids.',
  fields: {
    endpoint_id: { kind: 'uuid', description: 'The endpoint the events were queued for.' },
    queued: { kind: 'integer', description: 'How many events were queued for delivery.' },
    event_ids: { kind: 'string[]', description: 'Their ids, oldest first.' },
  },
});

export const webhookTopicShape = wireShape({
  name: 'WebhookTopic',
  description: 'A topic this key can subscribe to now (a webhook endpoint, a GraphQL `events` subscription).',
  fields: {
    name: { kind: 'string', description: 'The topic: `<resource>.<action>`, lowercase and dotted.' },
    resource: { kind: 'string', description: 'The class of the record its events carry in `data.object`.' },
    description: { kind: 'string', description: 'What an event of the topic means, and what its `data` carries beside the record.' },
  },
});

/** The body of POST .../replay (under "replay"): the action declares it, the service validates with it. */
export const replayFields = {
  event_ids: { kind: 'string[]', create: 'optional', update: 'not_accepted', max: 1000, description: 'Ids of the events to re-send.' },
  since: { kind: 'datetime', create: 'optional', update: 'not_accepted', description: 'Re-send the events from this time on.' },
  until: { kind: 'datetime', create: 'optional', update: 'not_accepted', description: 'Up to this time (exclusive); default now.' },
} as const satisfies Record<string, FieldSpec>;

/** The most attempts GET .../deliveries answers, and how many it answers without `limit`. */
export const DELIVERY_LOG = 100;

/** The query parameters of GET .../deliveries: the action declares them, the kernel checks them, the service reads them. */
export const deliveriesQueryFields = {
  limit: {
    kind: 'integer',
    create: 'optional',
    update: 'not_accepted',
    range: [1, DELIVERY_LOG],
    description: `At most this many attempts, the latest: 1 to ${DELIVERY_LOG} (default ${DELIVERY_LOG}).`,
  },
} as const satisfies Record<string, FieldSpec>;
