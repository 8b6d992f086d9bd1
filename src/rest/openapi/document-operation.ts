import { CURRENT_VERSION } from '../../kernel/versioning.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { API_TITLE } from './document-info.ts';
import { responseHeaders } from './headers.ts';
import { z } from './zod.ts';

// GET /openapi.json: this document, and GET /asyncapi.json: the AsyncAPI document of the events (webhook
// deliveries and GraphQL subscriptions, src/docs/asyncapi.ts). Both are served without authentication.

export function registerDocumentOperation({ register, addOperation }: DocumentBuilder): void {
  const document = register(
    'OpenApiDocument',
    z.object({ openapi: z.string() }).passthrough().openapi({ description: 'An OpenAPI 3.1 document.' }),
    { openapi: '3.1.0', info: { title: API_TITLE, version: CURRENT_VERSION }, paths: {} },
  );
  addOperation(
    { kind: 'openapi' },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      tags: ['Meta'],
      summary: 'This OpenAPI document',
      description: 'Generated from the resource declarations and served without authentication.',
      scopes: [],
      ok: { 200: { description: 'The OpenAPI 3.1 document.', headers: responseHeaders(), content: { 'application/json': { schema: document } } } },
    },
  );
  const asyncApi = register(
    'AsyncApiDocument',
    z.object({ asyncapi: z.string() }).passthrough().openapi({ description: 'An AsyncAPI 3.0 document.' }),
    { asyncapi: '3.0.0', info: { title: API_TITLE, version: CURRENT_VERSION }, channels: {}, operations: {} },
  );
  addOperation(
    { kind: 'openapi' },
    {
      method: 'get',
      path: '/asyncapi.json',
      operationId: 'getAsyncApiDocument',
      tags: ['Meta'],
      summary: 'The AsyncAPI document of the events',
      description:
        'The events as AsyncAPI 3.0: the webhook deliveries (one message per topic, the bodies of this document\'s `webhooks`) and the GraphQL subscriptions over graphql-ws on /graphql. Generated from the topic catalog and served without authentication.',
      scopes: [],
      ok: { 200: { description: 'The AsyncAPI 3.0 document.', headers: responseHeaders(), content: { 'application/json': { schema: asyncApi } } } },
    },
  );
}
