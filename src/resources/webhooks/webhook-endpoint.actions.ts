import { action, type ActionDefinition } from '../../kernel/action.ts';
import { DELIVERY_LOG, deliveriesQueryFields, replayFields, webhookDeliveryShape, webhookReplayShape, webhookSecretShape } from './webhook.shapes.ts';

// POST /webhooks/endpoints/{id}/verify, /test, /replay, /rotate_secret and GET .../deliveries(?limit=), through
// domain.webhooks (src/resources/webhooks/webhook.service.ts).

/** The causes of a failed verification handshake (src/resources/webhooks/verification.ts). */
export const verificationCodes = ['verification.echo_mismatch', 'verification.timeout', 'verification.ssl_error', 'verification.network_unreachable', 'verification.unknown_error', 'verification.failed'] as const;

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const webhookEndpointActions: readonly ActionDefinition[] = [
  action({
    name: 'verifyWebhookEndpoint',
    method: 'post',
    path: '/verify',
    scopes: ['webhooks:write'],
    summary: 'Run the verification handshake again',
    description:
      'Sends the endpoint a signed {"type": "webhook_endpoint.verification", "challenge": "..."}, which it must answer with 2xx and the challenge as its body (verbatim; surrounding whitespace ignored) or as {"challenge": "..."}. Success makes the endpoint verified at its URL (webhook_endpoint.verified); a failure is refused with the code of its cause and {endpoint_id}, and the endpoint stays as it was (verification.failed too when the endpoint changed while the handshake ran). Refused on a disabled endpoint (endpoint.disabled) and a paused one (endpoint.paused).',
    body: { empty: true, required: false, description: 'Empty.' },
    response: { records: { webhook_endpoint: 'webhook_endpoint' }, status: 200, description: '{webhook_endpoint}: the endpoint, verified.' },
    run: ({ domain, ctx, id }) => domain.webhooks.verify(ctx, id),
    events: ['webhook_endpoint.updated', 'webhook_endpoint.verified'],
    errors: ['endpoint.disabled', 'endpoint.paused', ...verificationCodes],
  }),
  action({
    name: 'testWebhookEndpoint',
    method: 'post',
    path: '/test',
    scopes: ['webhooks:write'],
    summary: 'Send a test event to the endpoint now',
    description:
      'Appends a webhook_endpoint.test event (the endpoint as data.object) and delivers it to this endpoint at once, signed like every delivery; answers the attempt, successful or not (a failed test is not retried and does not count toward the circuit breaker). Allowed while the endpoint is paused: a successful test clears the failure count and the pause (spec, Events 4). Refused on a disabled endpoint (endpoint.disabled) and an unverified one (validation.failed: nothing is sent to a URL that has not echoed a challenge).',
    body: { empty: true, required: false, description: 'Empty.' },
    response: { shape: webhookDeliveryShape, key: 'delivery', status: 200, description: 'The attempt: its status code, duration and error.' },
    run: ({ domain, ctx, id }) => domain.webhooks.test(ctx, id),
    events: ['webhook_endpoint.test'],
    errors: ['endpoint.disabled', 'validation.failed'],
  }),
  action({
    name: 'replayWebhookEndpoint',
    method: 'post',
    path: '/replay',
    scopes: ['webhooks:write'],
    summary: 'Re-send past events to the endpoint',
    description:
      'Queues past events of the endpoint\'s topics (those still kept: events are kept for a configured number of days, 30 by default) for delivery to this endpoint only, with their original ids (the `webhook-id` a receiver deduplicates by): either {event_ids} (1 to 1000; ids of other topics or accounts are skipped) or {since} (and optionally {until}) by event time (at most 10,000 events). Refused on a disabled endpoint (endpoint.disabled), a paused one (endpoint.paused) and an unverified one (validation.failed).',
    body: {
      fields: replayFields,
      mode: 'create',
      key: 'replay',
      required: true,
      description: 'Which events: {event_ids}, or {since} (and {until}).',
    },
    response: { shape: webhookReplayShape, key: 'replay', status: 200, description: 'How many events were queued, and their ids.' },
    run: ({ domain, ctx, id, input }) => domain.webhooks.replay(ctx, id, input),
    events: [],
    errors: ['validation.failed', 'endpoint.disabled', 'endpoint.paused'],
  }),
  action({
    name: 'rotateWebhookEndpointSecret',
    method: 'post',
    path: '/rotate_secret',
    scopes: ['webhooks:write'],
    summary: 'Rotate the signing secret',
    description:
      'Makes a new signing secret and answers it (shown only here). For 24 hours deliveries are signed with both the new and the previous secret (two signatures in `webhook-signature`), so a receiver can switch without losing deliveries. Refused on a disabled endpoint (endpoint.disabled) and a paused one (endpoint.paused).',
    body: { empty: true, required: false, description: 'Empty.' },
    response: { shape: webhookSecretShape, key: 'secret', status: 200, description: 'The new secret and until when the previous one still signs.' },
    run: ({ domain, ctx, id }) => domain.webhooks.rotateSecret(ctx, id),
    events: ['webhook_endpoint.updated'],
    errors: ['endpoint.disabled', 'endpoint.paused'],
  }),
  action({
    name: 'listWebhookEndpointDeliveries',
    method: 'get',
    path: '/deliveries',
    scopes: ['webhooks:read'],
    summary: "List an endpoint's delivery attempts",
    description: `The latest delivery attempts of the endpoint (test deliveries included), newest first: event id, topic, attempt number, HTTP status, duration, error and next attempt time. At most ${DELIVERY_LOG}; fewer with {limit}. Not paginated.`,
    query: { fields: deliveriesQueryFields },
    response: { list: webhookDeliveryShape, status: 200, description: 'The attempts, newest first.' },
    run: ({ domain, ctx, id, input }) => domain.webhooks.deliveries(ctx, id, input),
    events: [],
    errors: [],
    graphql: { field: 'webhookEndpointDeliveries' },
  }),
];
