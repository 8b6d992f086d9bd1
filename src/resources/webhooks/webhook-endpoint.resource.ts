import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';
import { urlRefusal } from './outbound.ts';
import { encryptSecret, newSigningSecret } from './secrets.ts';
import { keyring } from './keyring.ts';
import { checkTopics } from './topic-rules.ts';
import { verificationCodes, webhookEndpointActions } from './webhook-endpoint.actions.ts';
import { verifyEndpoint, withSecret } from './verification.ts';
import { handshakeDue, patchOutcome, type EndpointState, type EndpointStatus } from './endpoint-states.ts';

// Partner endpoints that receive events (docs/webhooks.md). Registered unverified; the verification handshake
// runs after the record committed (afterCommit) and decides the answer: 201 verified, or 422 with the cause's
// verification.* code and the endpoint's id (it stays stored, unverified, and POST .../verify retries). The
// signing secret is made here, stored encrypted, and shown only in the create and rotate_secret answers.

export const webhookEndpointStatuses = vocabulary('WebhookEndpointStatus', ['unverified', 'verified', 'disabled'], {
  description: 'The state of a webhook endpoint (a paused endpoint is verified, with {paused_until} in the future).',
  describe: (status) =>
    ({
      unverified: 'Registered, not verified: receives no deliveries until the verification handshake succeeds.',
      verified: 'Verified: receives the events of its topics.',
      disabled: 'Disabled (by the caller, by a 410 answer or after failing for days): receives nothing until re-enabled.',
    })[status],
});

export const webhookEndpointResource = defineResource({
  name: 'webhook_endpoint',
  path: 'webhooks/endpoints',
  bodyKey: 'endpoint',
  scope: 'webhooks',
  rateBucket: 'webhook_ingest',
  description:
    'A partner URL that receives the events of its topics, signed (Standard Webhooks) with its secret. Registering it runs the verification handshake; deliveries are retried on a schedule, paused by a circuit breaker after consecutive failures and stopped when it is disabled.',
  fields: {
    url: {
      kind: 'url',
      create: 'required',
      update: 'optional',
      nullable: false,
      description: 'Where events are POSTed.',
      writeRule: 'An absolute http or https URL without credentials, whose host resolves to public addresses only. Changing it makes an enabled endpoint unverified (its circuit breaker cleared) and runs the verification again; a disabled endpoint stays disabled and is verified at the new URL only once it echoes there.',
    },
    topics: {
      kind: 'string[]',
      create: 'required',
      update: 'optional',
      nullable: false,
      max: 200,
      description: 'The topics delivered to the endpoint, by name; the list of available webhook topics names those this key can subscribe to.',
      writeRule: 'At least one; each a topic this account can subscribe to now, whose resource the key may read. Duplicates are dropped.',
    },
    description: { kind: 'text', max: 500, create: 'optional', update: 'optional', description: 'What the endpoint is for.' },
    status: {
      kind: 'string',
      enum: webhookEndpointStatuses,
      create: 'not_accepted',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'unverified, verified or disabled.',
      writeRule:
        'disabled stops deliveries; on a disabled endpoint, verified or unverified re-enables it (its failure count and pause are cleared). An endpoint is verified only at a URL that echoed a challenge: an unverified endpoint becomes verified only by the verification handshake (the verify action runs it again), and re-enabling with verified an endpoint whose URL changed since it last echoed runs the handshake (422 verification.* when it fails; the endpoint is then enabled, unverified).',
    },
  },
  readOnly: {
    paused_until: { kind: 'datetime', nullable: true, description: 'Set by the circuit breaker: deliveries wait until then (none are dropped).' },
    consecutive_failures: { kind: 'integer', nullable: false, description: 'Failed delivery attempts since the last success.' },
    failing_since: { kind: 'datetime', nullable: true, description: 'When the current run of failures began.' },
    last_delivery_at: { kind: 'datetime', nullable: true, description: 'When the last delivery attempt ended.' },
    last_delivery_status: { kind: 'integer', nullable: true, description: 'The HTTP status of the last attempt (null when no answer came).' },
    last_error: { kind: 'string', nullable: true, description: 'Why the last failed attempt failed.' },
    api_version: { kind: 'string', nullable: false, description: "The API version of the records in deliveries: the creating key's version." },
  },
  conventions: {},
  events: {
    extra: [
      { action: 'verified', description: 'The endpoint passed the verification handshake and receives deliveries.' },
      { action: 'paused', description: 'The circuit breaker paused the endpoint after consecutive failed attempts; `data.object.paused_until` says until when.' },
      { action: 'disabled', description: 'The endpoint was disabled: it answered 410 Gone, or failed continuously for days.' },
      { action: 'test', description: 'A test event sent by POST /webhooks/endpoints/{id}/test, to that endpoint only.' },
    ],
  },
  list: {
    filters: { status: ['eq'], created_at: rangeOps },
    sorts: { created_at: true, updated_at: true },
    defaultSort: 'created_at',
  },
  errors: {
    create: ['validation.no_topics', 'topic.not_available', ...verificationCodes],
    update: ['validation.no_topics', 'topic.not_available', ...verificationCodes],
  },
  actions: webhookEndpointActions,
  hooks: {
    async beforeWrite({ tx, ctx, mode, values, existing, errors, settings, topics }) {
      if ('topics' in values) values.topics = checkTopics(ctx, values.topics ?? [], topics, errors);
      if ('url' in values && values.url && !errors.url) {
        const refusal = await urlRefusal(values.url, { allowPrivateNetworks: settings.webhooks.allowPrivateNetworks, allowLoopback: settings.webhooks.allowLoopback, timeoutMs: settings.webhooks.verifyTimeoutMs });
        if (refusal) addError(errors, 'url', refusal);
      }
      const extra = values as Record<string, unknown>;
      if (mode === 'create') {
        extra.status = 'unverified';
        extra.api_version = ctx.principal.key.apiVersion;
        extra.secret_ciphertext = encryptSecret(await keyring(tx, settings.webhooks), newSigningSecret());
        return;
      }
      const outcome = patchOutcome(existing as unknown as EndpointState, { status: values.status as EndpointStatus | undefined, url: values.url });
      if ('refused' in outcome) addError(errors, 'status', outcome.refused);
      else Object.assign(extra, outcome.columns);
    },
    async afterCommit(args) {
      const { mode, single, before, input } = args;
      if (mode === 'create' || handshakeDue(before!, single.record, input.status)) {
        const verified = await verifyEndpoint(args, single.record.id as string);
        return mode === 'create' ? withSecret(args, verified) : verified;
      }
      return single;
    },
  },
});

