import type { EventAction } from '../kernel/events.ts';
import { topics } from './topics.ts';
import { unavailableReason, type Topic } from '../kernel/topics.ts';

// The machine-readable description of the events, written once for both documents that publish it: the OpenAPI
// document's `webhooks` (src/rest/openapi/webhook-operations.ts) and the AsyncAPI document (asyncapi.ts). Both put
// these schemas under components.schemas with the same names, and both already hold the records' component
// schemas (`Customer`, `Job`, ...) the bodies refer to, so a `$ref: '#/components/schemas/...'` resolves in either.
//
// The schemas are plain JSON Schema in the subset both dialects read alike (OpenAPI 3.1's 2020-12 and AsyncAPI's
// draft-07 superset): no `$ref` with siblings, no 2020-12-only keywords. They are open (no additionalProperties:
// false): a version may add fields, and a receiver must not refuse a body for that.

export type JsonSchema = { [keyword: string]: unknown };

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The envelope every event shares (src/kernel/envelope.ts). */
export const EVENT_SCHEMA = 'Event';

/**
 * What `data` carries beside `object`, per action: the component describing those fields, or null. Every action
 * is listed (a new one does not compile until it is placed here); the fields are those the writers pass as
 * details: appendUpdateEvents (src/kernel/events.ts), the conversions and the delivery worker's disabling.
 */
const detailsOf: Record<EventAction, string | null> = {
  created: null,
  updated: 'EventChangedFields',
  deleted: null,
  status_changed: 'EventStatusChange',
  converted: 'EventConversion',
  received: 'EventReceipt',
  verified: null,
  paused: null,
  disabled: 'EventDisableReason',
  test: null,
};

/** The shared components: the envelope and the details of the actions that add fields to `data`. */
function sharedSchemas(): Record<string, JsonSchema> {
  return {
    [EVENT_SCHEMA]: {
      type: 'object',
      description:
        'An event: the body of every webhook delivery, and the `envelope` of a GraphQL `events` subscription message, as the same JSON. `data.object` is the record as REST serves it; the fields beside it depend on the action (the topic\'s schema names them).',
      required: ['id', 'type', 'timestamp', 'api_version', 'data'],
      properties: {
        id: { type: 'string', format: 'uuid', description: 'The event id (UUID v7), also the `webhook-id` header: the same on every retry and replay. Deduplicate by it: delivery is at least once.' },
        type: { type: 'string', pattern: '^[a-z_]+\\.[a-z_]+$', description: 'The topic, `<resource>.<action>`.' },
        timestamp: { type: 'string', format: 'date-time', description: 'When the write that emitted the event happened (UTC). Deliveries may arrive out of order: timestamp, then id, orders them.' },
        api_version: { type: 'string', description: 'The API version `data.object` is served in: the webhook endpoint\'s `api_version` (the version of the key that registered it).' },
        data: {
          type: 'object',
          description: 'The record, and what the action adds beside it.',
          required: ['object'],
          properties: { object: { type: 'object', description: 'The record as GET of its resource serves it: after the change, or as it was before a delete.' } },
        },
      },
    },
    EventChangedFields: {
      type: 'object',
      description: 'What an `*.updated` event adds to `data`.',
      required: ['changed_fields'],
      properties: {
        changed_fields: {
          type: 'array',
          items: { type: 'string' },
          description: 'The wire fields whose served values differ from before the write, sorted; updated_at is left out and a child collection counts as one field.',
        },
      },
    },
    EventStatusChange: {
      type: 'object',
      description: 'What a `*.status_changed` event adds to `data` (the same write also emits `*.updated`).',
      required: ['previous_status', 'status'],
      properties: {
        previous_status: { type: 'string', description: 'The status before the write.' },
        status: { type: 'string', description: 'The status after it, as in `data.object.status`.' },
      },
    },
    EventConversion: {
      type: 'object',
      description: 'What a `*.converted` event adds to `data`.',
      required: ['converted_to'],
      properties: {
        converted_to: {
          type: 'object',
          description: 'The record the conversion made, by its id field: one `<resource>_id` (the topic\'s description says which).',
          minProperties: 1,
          maxProperties: 1,
          propertyNames: { pattern: '^[a-z_]+_id$' },
          additionalProperties: { type: 'string', format: 'uuid' },
        },
      },
    },
    EventReceipt: {
      type: 'object',
      description: 'What a `*.received` event adds to `data`.',
      required: ['receipt_id'],
      properties: {
        receipt_id: { type: 'string', format: 'uuid', description: 'The receipt that recorded what arrived (`GET /purchase_order_receipts/{id}`).' },
      },
    },
    EventDisableReason: {
      type: 'object',
      description: 'What a `webhook_endpoint.disabled` event adds to `data`.',
      required: ['reason'],
      properties: {
        reason: { type: 'string', enum: ['gone', 'failing'], description: '`gone`: the endpoint answered 410 Gone; `failing`: its deliveries failed continuously for days.' },
      },
    },
  };
}

/** "customer.status_changed" -> "CustomerStatusChangedEvent": the component name of a topic's event. */
export function eventSchemaName(topic: Topic): string {
  const action = topic.action.replace(/(^|_)([a-z])/g, (_m, _sep, c: string) => c.toUpperCase());
  return `${topic.resource}${action}Event`;
}

/** The component schema of the record a topic carries ("Customer"). */
export function recordSchemaName(topic: Topic): string {
  return topic.resource;
}

/** The schema of one topic's event: the envelope, `type` fixed to the topic, `data.object` its record, the action's details. */
function topicSchema(topic: Topic): JsonSchema {
  const record = recordSchemaName(topic);
  const details = detailsOf[topic.action];
  // `data` narrows the envelope's with the action's details and the record's schema.
  const data: JsonSchema = { ...(details ? { allOf: [schemaRef(details)] } : {}), properties: { object: schemaRef(record) } };
  return { allOf: [schemaRef(EVENT_SCHEMA)], properties: { type: { const: topic.name }, data } };
}

/**
 * Every event schema by component name: the shared ones, then one per topic of the catalog (registered topics,
 * available or not), in catalog order.
 */
export function eventSchemas(): Record<string, JsonSchema> {
  const schemas = sharedSchemas();
  for (const topic of topics()) {
    const name = eventSchemaName(topic);
    if (name in schemas) throw new Error(`event schemas: ${topic.name} would be named ${name}, which is taken`);
    schemas[name] = topicSchema(topic);
  }
  return schemas;
}

/**
 * A topic's description for both documents: the catalog's, and when the topic cannot be subscribed to now, why
 * (the 422 topic.not_available's own reason).
 */
export function topicDescription(topic: Topic): string {
  if (!topic.gate) return topic.description;
  return `${topic.description}\n\n${unavailableReason(topic)} Subscribing to it while it is not available answers 422 topic.not_available.`;
}

/** The headers of a delivery (Standard Webhooks, src/resources/webhooks/signing.ts), with their schemas. */
export const deliveryHeaders: { name: string; component: string; description: string; schema: JsonSchema }[] = [
  {
    name: 'webhook-id',
    component: 'WebhookId',
    description: 'The event id (the body\'s `id`): the same on every retry and replay. Deduplicate by it: delivery is at least once.',
    schema: { type: 'string', format: 'uuid' },
  },
  {
    name: 'webhook-timestamp',
    component: 'WebhookTimestamp',
    description: 'When this attempt was sent, in Unix seconds; it is signed. Refuse a timestamp far from your clock (Standard Webhooks libraries allow 5 minutes) to refuse replayed requests.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  {
    name: 'webhook-signature',
    component: 'WebhookSignature',
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the endpoint\'s secret (the base64 after `whsec_`). For 24 hours after POST /webhooks/endpoints/{id}/rotate_secret it carries two signatures, space-separated, one per secret: accept the request when one matches. Any Standard Webhooks library verifies it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
];

/** The answers a receiver gives a delivery, and what the service does with each. */
export const deliveryAnswers: { status: '2XX' | '410' | 'default'; component: string; description: string }[] = [
  {
    status: '2XX',
    component: 'WebhookReceived',
    description: 'Received: the delivery is done (its body is not read). Answer quickly; a slow answer is a failure.',
  },
  {
    status: '410',
    component: 'WebhookGone',
    description: 'Gone: the endpoint is disabled at once, with no retry and a `webhook_endpoint.disabled` event; PATCH its status to verified to re-enable it.',
  },
  {
    status: 'default',
    component: 'WebhookFailed',
    description:
      'Any other answer (3xx included: redirects are not followed), no answer within the timeout, or a network or TLS failure: the delivery is retried with the same webhook-id on the retry schedule (about three days by default). Consecutive failures pause the endpoint; failing continuously for days disables it.',
  },
];
