import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { deliveryAnswers, deliveryHeaders, eventSchemaName, eventSchemas, recordSchemaName, topicDescription } from '../../events/event-schemas.ts';
import { topics } from '../../events/topics.ts';
import { camel } from './naming.ts';

// The document's `webhooks`: one POST per topic of the catalog (src/events/topics.ts), registered topics whether
// available or not, describing the delivery a subscribed endpoint receives. What every delivery shares is
// registered once and referred to: the envelope and details schemas (src/events/event-schemas.ts, shared with
// the AsyncAPI document), the Standard Webhooks headers as components.parameters and the receiver's answers as
// components.responses. Each webhook adds only its topic: the body schema's name, its description and its id.

export const WEBHOOKS_TAG = { name: 'Events', description: 'Webhook deliveries, one per topic: what a subscribed endpoint receives and how it answers. The same events, with GraphQL subscriptions, are in the AsyncAPI document at /api/v2/asyncapi.json.' };

/** "customer.status_changed" -> "customerStatusChangedWebhook": unique beside the paths' operation ids. */
const operationId = (name: string) => `${camel(name.replace('.', '_'))}Webhook`;

export function registerWebhookOperations(registry: OpenAPIRegistry): void {
  for (const [name, schema] of Object.entries(eventSchemas())) registry.registerComponent('schemas', name, schema);
  for (const header of deliveryHeaders) {
    registry.registerComponent('parameters', header.component, { name: header.name, in: 'header', required: true, description: header.description, schema: header.schema });
  }
  for (const answer of deliveryAnswers) registry.registerComponent('responses', answer.component, { description: answer.description });

  const parameters = deliveryHeaders.map((header) => ({ $ref: `#/components/parameters/${header.component}` }));
  const responses = Object.fromEntries(deliveryAnswers.map((answer) => [answer.status, { $ref: `#/components/responses/${answer.component}` }]));
  for (const topic of topics()) {
    registry.registerWebhook({
      method: 'post',
      path: topic.name,
      operationId: operationId(topic.name),
      tags: [WEBHOOKS_TAG.name],
      summary: topic.name,
      description: topicDescription(topic),
      // The receiver is not called with an API key: the webhook-signature header authenticates the delivery.
      security: [],
      parameters,
      request: { body: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(topic)}` } } } } },
      responses,
    });
  }
}

/** The record schemas the webhooks refer to that the document lacks: none, or the build is wrong. */
export function missingRecordSchemas(schemas: Record<string, unknown>): string[] {
  return [...new Set(topics().map(recordSchemaName).filter((name) => !(name in schemas)))];
}
