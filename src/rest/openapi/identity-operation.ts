import { wireShapeSchema } from '../wire-shape-schema.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { singleEnvelope, singleExample } from './envelopes.ts';
import { shapeExample } from './examples.ts';
import { responseHeaders } from './headers.ts';
import { meShape } from '../../domain.ts';

// GET /me: the account, user and key of the caller.

export function registerIdentityOperation({ register, addOperation }: DocumentBuilder): void {
  const me = register('Me', wireShapeSchema(meShape));
  const response = register('MeResponse', singleEnvelope(me), singleExample(shapeExample(meShape)));
  addOperation(
    { kind: 'me' },
    {
      method: 'get',
      path: '/me',
      operationId: 'getMe',
      tags: ['Identity'],
      summary: 'Who is calling',
      description: 'The account, the user, the key (id and granted scopes) and the resolved api_version. Read-only and idempotent.',
      scopes: [],
      ok: { 200: { description: 'The caller.', headers: responseHeaders('Cache-Control'), content: { 'application/json': { schema: response } } } },
    },
  );
}
