import type { DocumentBuilder } from './document-builder.ts';
import { responseHeaders } from './headers.ts';
import { z } from './zod.ts';

// GET /openapi.json: this document, served without authentication.

export function registerDocumentOperation({ addOperation }: DocumentBuilder): void {
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
      ok: { 200: { description: 'The OpenAPI 3.1 document.', headers: responseHeaders(), content: { 'application/json': { schema: z.object({}).passthrough() } } } },
    },
  );
}
