import { camelCase } from '../kernel/naming.ts';
import { GRAPHQL_PATH } from '../graphql/transport/server.ts';
import { API_TITLE, contact } from '../rest/openapi/document-info.ts';
import { buildOpenApiDocument } from '../rest/openapi/document.ts';
import { deliveryAnswers, deliveryHeaders, EVENT_SCHEMA, eventSchemaName, eventSchemas, topicDescription, type JsonSchema } from '../events/event-schemas.ts';
import { topics, topicsByResource } from '../events/topics.ts';
import type { Topic } from '../kernel/topics.ts';

// GET /api/v2/asyncapi.json: the events as an AsyncAPI 3.0 document, generated from the topic catalog
// (src/events/topics.ts) like the OpenAPI document's `webhooks`, with the same payload schemas
// (src/events/event-schemas.ts). It describes the service's side: Fieldline sends every message below.
//
// - Webhooks: each endpoint a partner registers is its own address, so the channel's address is null (unknown to
//   the document) and its server is a templated one, the registered URL; one message per topic.
// - GraphQL subscriptions over graphql-ws on /graphql: `events` with one message per topic, and the typed
//   `<resource>Events` fields, one per resource whose topics are served (topics grouped by resource), described
//   briefly: their payload is a GraphQL selection, whose types are in schema.graphql.
//
// The records the payloads carry (`Customer`, `Job`, ...) are the OpenAPI document's component schemas, copied
// under components.schemas with their names, so a `$ref` means the same in both documents.

export interface AsyncApiOptions {
  /** The server's public base URL (config PUBLIC_URL): the GraphQL server's host and absolute links; unset: a templated host. */
  publicUrl?: string;
  /** The document's version: the API version the OpenAPI document states. */
  apiVersion: string;
}

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const pointer = (...parts: string[]) => `#/${parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** "customer.status_changed" -> "CustomerStatusChanged": the stem of a topic's message names. */
const messageStem = (topic: Topic) => eventSchemaName(topic).replace(/Event$/, '');

/** The resources with a typed GraphQL subscription (the declared resources with topics), as the schema has them. */
function servedResources(): { resource: string; recordName: string; topics: Topic[] }[] {
  return topicsByResource().map(({ def, topics }) => ({ resource: def.className, recordName: def.name, topics }));
}

/**
 * The schemas of `available` that `own` refers to, directly or through each other, each once and in `available`'s
 * order: the records the events carry and what those name in turn.
 */
function referenced(own: Record<string, JsonSchema>, available: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const name = key === '$ref' && typeof value === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(value)?.[1] : undefined;
      if (name !== undefined) {
        if (name in own) continue;
        if (!(name in available)) throw new Error(`asyncapi: no component schema ${name}`);
        if (!found.has(name)) {
          found.add(name);
          visit(available[name]);
        }
      } else {
        visit(value);
      }
    }
  };
  Object.values(own).forEach(visit);
  return Object.fromEntries(Object.entries(available).filter(([name]) => found.has(name)));
}

/** The GraphQL server: this service's host when PUBLIC_URL says it, otherwise a variable the reader fills in. */
function graphqlServer(publicUrl: string | undefined) {
  const about = {
    title: 'Fieldline GraphQL over WebSocket',
    description: `The graphql-ws protocol (\`graphql-transport-ws\`) on ${GRAPHQL_PATH}, the path of GraphQL over HTTP.`,
    security: [{ $ref: '#/components/securitySchemes/apiKey' }],
  };
  if (!publicUrl) {
    return {
      host: '{host}',
      protocol: 'wss',
      ...about,
      variables: { host: { description: 'The host (and port) of this server: the host this document was fetched from. The server states it here when PUBLIC_URL is set.' } },
    };
  }
  const url = new URL(publicUrl);
  return { host: url.host, ...(url.pathname !== '/' ? { pathname: url.pathname } : {}), protocol: url.protocol === 'https:' ? 'wss' : 'ws', ...about };
}

/** An event's number, in commit order: what `afterSeq` takes. */
const seqSchema: JsonSchema = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The event\'s number in commit order (`SafeInt`): pass the last one seen as `afterSeq` to resume.' };

/**
 * The `EventMessage` of a GraphQL `events` subscription: the selected fields of seq, id, topic and envelope (the
 * event as JSON, the webhook body's same object).
 */
const eventMessageSchema: JsonSchema = {
  type: 'object',
  description:
    'The `EventMessage` of schema.graphql, with the fields the subscription selects (GraphQL answers only those). `envelope` is the event as a webhook endpoint receives it.',
  properties: {
    seq: seqSchema,
    id: { type: 'string', format: 'uuid', description: 'The event id: `envelope.id`, and the webhook-id of its deliveries.' },
    topic: { type: 'string', description: 'The topic: `envelope.type`.' },
    envelope: schemaRef(EVENT_SCHEMA),
  },
};

/** The headers of a delivery, as one schema (message headers). */
function webhookHeadersSchema(): JsonSchema {
  return {
    type: 'object',
    description: 'The Standard Webhooks headers of every delivery, beside `content-type: application/json`.',
    required: deliveryHeaders.map((header) => header.name),
    properties: Object.fromEntries(deliveryHeaders.map((header) => [header.name, { ...header.schema, description: header.description }])),
  };
}

/** The typed subscription message of a resource: a GraphQL selection of `<Resource>Event`, described briefly. */
function typedMessage(group: { resource: string; recordName: string; topics: Topic[] }, field: string) {
  const recordField = camelCase(group.recordName);
  return {
    name: `${group.resource}Event`,
    title: `${group.resource}Event`,
    summary: `An event of a ${group.resource}, on the GraphQL \`${field}\` subscription.`,
    description: `Topics: ${group.topics.map((topic) => `\`${topic.name}\``).join(', ')} (\`${group.resource}EventTopic\`). The payload is the \`${group.resource}Event\` of schema.graphql with the fields the subscription selects; \`${recordField}\` is a \`${group.resource}\` object, selected like in any query.`,
    contentType: 'application/json',
    payload: {
      type: 'object',
      description: `\`${group.resource}Event\` (schema.graphql): seq, id, topic, ${recordField}, etag, changedFields, as selected.`,
      properties: {
        seq: seqSchema,
        id: { type: 'string', format: 'uuid', description: 'The event id.' },
        topic: { type: 'string', description: `The topic, as a \`${group.resource}EventTopic\` value.` },
        [recordField]: { type: 'object', description: `The record after the event (before it, for a delete), as the \`${group.resource}\` type of schema.graphql.` },
        etag: { type: 'string', description: 'The record\'s ETag as of the event, as REST\'s ETag header gives it.' },
        changedFields: { type: ['array', 'null'], items: { type: 'string' }, description: 'The fields an update changed; null for other topics.' },
      },
    },
  };
}

export function asyncApiDocument(options: AsyncApiOptions): object {
  const { publicUrl, apiVersion } = options;
  const events = eventSchemas();
  const records = (buildOpenApiDocument({ publicUrl }) as { components: { schemas: Record<string, JsonSchema> } }).components.schemas;
  const catalog = topics();
  const resources = servedResources();
  const typedField = (group: { recordName: string }) => `${camelCase(group.recordName)}Events`;

  const deliveryMessages = Object.fromEntries(
    catalog.map((topic) => [
      `${messageStem(topic)}Delivery`,
      {
        name: topic.name,
        title: topic.name,
        summary: `The webhook delivery of ${topic.name}.`,
        description: topicDescription(topic),
        contentType: 'application/json',
        headers: schemaRef('WebhookHeaders'),
        payload: schemaRef(eventSchemaName(topic)),
      },
    ]),
  );
  const eventMessages = Object.fromEntries(
    catalog.map((topic) => [
      `${messageStem(topic)}EventMessage`,
      {
        name: topic.name,
        title: `${topic.name} (GraphQL events)`,
        summary: `${topic.name} on the GraphQL \`events\` subscription.`,
        description: topicDescription(topic),
        contentType: 'application/json',
        payload: { allOf: [schemaRef('EventMessage')], properties: { topic: { const: topic.name }, envelope: schemaRef(eventSchemaName(topic)) } },
      },
    ]),
  );
  const typedMessages = Object.fromEntries(resources.map((group) => [`${group.resource}Event`, typedMessage(group, typedField(group))]));

  const ownSchemas: Record<string, JsonSchema> = { ...events, WebhookHeaders: webhookHeadersSchema(), EventMessage: eventMessageSchema };
  const schemas = { ...ownSchemas, ...referenced(ownSchemas, records) };

  const webhookChannel = 'webhook';
  const graphqlChannel = 'graphql';
  const answers = deliveryAnswers.map((answer) => `- ${answer.status === 'default' ? 'Anything else' : answer.status}: ${answer.description}`).join('\n');

  return {
    asyncapi: '3.0.0',
    info: {
      title: `${API_TITLE} events`,
      version: apiVersion,
      description: [
        'The events of the Fieldline API, generated from its topic catalog: every write emits events named `<resource>.<action>`. They reach partners two ways:',
        '',
        '- **Webhooks**: a webhook endpoint (POST /api/v2/webhooks/endpoints, with the topics it wants) receives each event of its topics as a signed POST (Standard Webhooks). The OpenAPI document at /api/v2/openapi.json describes the same deliveries under `webhooks`.',
        `- **GraphQL subscriptions** over graphql-ws on ${GRAPHQL_PATH}: \`events\` for any topics, and one typed subscription per resource.`,
        '',
        'Topics that are registered but not available (their resource not served yet, or a module off for the account) are listed with the reason; subscribing to them answers 422 topic.not_available.',
      ].join('\n'),
      contact: contact(publicUrl),
      license: { name: 'Proprietary' },
      ...(publicUrl ? { externalDocs: { description: 'The REST API (OpenAPI 3.1).', url: `${publicUrl}/api/v2/openapi.json` } } : {}),
    },
    defaultContentType: 'application/json',
    servers: {
      webhookEndpoint: {
        host: '{host}',
        pathname: '/{path}',
        protocol: 'http',
        title: 'A webhook endpoint',
        description:
          'The URL a partner registered as a webhook endpoint (http or https; https recommended): every endpoint is its own server. Deliveries go to that URL as registered; redirects are not followed.',
        variables: {
          host: { description: 'The host (and port) of the registered URL.' },
          path: { description: 'The path (and query) of the registered URL.' },
        },
      },
      fieldline: graphqlServer(publicUrl),
    },
    channels: {
      [webhookChannel]: {
        address: null,
        title: 'Webhook deliveries',
        description:
          'The address is the URL each webhook endpoint registered: not known to this document, hence null. An endpoint receives the events of the topics it subscribed to while it is verified, one POST each, with the event as the JSON body.',
        servers: [{ $ref: pointer('servers', 'webhookEndpoint') }],
        messages: Object.fromEntries(catalog.map((topic) => [topic.name, { $ref: pointer('components', 'messages', `${messageStem(topic)}Delivery`) }])),
      },
      [graphqlChannel]: {
        address: GRAPHQL_PATH,
        title: 'GraphQL subscriptions',
        description: [
          'A WebSocket with the subprotocol `graphql-transport-ws` (graphql-ws). Open it with `connection_init` whose payload carries the key: `{"authorization": "Bearer svc_..."}`. Start a subscription with `subscribe`; each event arrives as `{"id": "<subscription id>", "type": "next", "payload": {"data": {"<field>": <message>}}}`, where `<message>` is one of the messages below. The types are in schema.graphql.',
          '',
          'Subscriptions deliver the events of the key\'s account in commit order (`seq`). `afterSeq` replays the events after that seq (at most 1,000; beyond that the subscription ends with the error code `subscription.resync_required`), then goes live.',
        ].join('\n'),
        servers: [{ $ref: pointer('servers', 'fieldline') }],
        messages: {
          ...Object.fromEntries(catalog.map((topic) => [topic.name, { $ref: pointer('components', 'messages', `${messageStem(topic)}EventMessage`) }])),
          ...Object.fromEntries(resources.map((group) => [`${group.resource}Event`, { $ref: pointer('components', 'messages', `${group.resource}Event`) }])),
        },
        bindings: {
          ws: {
            method: 'GET',
            headers: { type: 'object', properties: { 'Sec-WebSocket-Protocol': { type: 'string', const: 'graphql-transport-ws' } } },
            bindingVersion: '0.1.0',
          },
        },
      },
    },
    operations: {
      deliverWebhook: {
        action: 'send',
        channel: { $ref: pointer('channels', webhookChannel) },
        title: 'Deliver an event to a webhook endpoint',
        summary: 'A signed POST of one event to an endpoint subscribed to its topic.',
        description: `Verify the signature (any Standard Webhooks library), answer quickly and deduplicate by webhook-id: delivery is at least once, and order is not guaranteed. The answers:\n\n${answers}`,
        bindings: { http: { method: 'POST', bindingVersion: '0.3.0' } },
        messages: catalog.map((topic) => ({ $ref: pointer('channels', webhookChannel, 'messages', topic.name) })),
      },
      events: {
        action: 'send',
        channel: { $ref: pointer('channels', graphqlChannel) },
        title: 'Subscription.events',
        summary: '`events(topics: [String!]!, afterSeq: SafeInt): EventMessage!`: every event of the given topics.',
        description: 'Each message carries the event as `envelope`, the same JSON a webhook endpoint receives.',
        messages: catalog.map((topic) => ({ $ref: pointer('channels', graphqlChannel, 'messages', topic.name) })),
      },
      ...Object.fromEntries(
        resources.map((group) => [
          typedField(group),
          {
            action: 'send',
            channel: { $ref: pointer('channels', graphqlChannel) },
            title: `Subscription.${typedField(group)}`,
            summary: `\`${typedField(group)}(filter: ${group.resource}EventFilter, afterSeq: SafeInt): ${group.resource}Event!\`: the events of ${group.resource} records, typed.`,
            messages: [{ $ref: pointer('channels', graphqlChannel, 'messages', `${group.resource}Event`) }],
          },
        ]),
      ),
    },
    components: {
      schemas,
      messages: { ...deliveryMessages, ...eventMessages, ...typedMessages },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'svc_<UUIDv7>',
          description:
            'An API key, sent in the `connection_init` payload as `{"authorization": "Bearer svc_..."}` (browsers cannot set headers on a WebSocket; an Authorization header on the upgrade request is accepted too). A refused key closes the socket with 4000 + the HTTP status of the error (4401, 4403) and the error code as the reason.',
        },
      },
    },
  };
}
