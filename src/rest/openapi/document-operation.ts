import { CURRENT_VERSION } from '../../kernel/versioning.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { API_TITLE } from './document-info.ts';
import { responseHeaders } from './headers.ts';
import { z } from './zod.ts';

// GET /openapi.json: this document, served without authentication.

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
}
