import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { VERSION_HEADER } from '../../kernel/versioning.ts';
import { createListParameters } from './list-parameters.ts';
import { z } from './zod.ts';

// The request parameters operations share, registered under components.parameters: the version header (every
// authenticated operation), the request id header (every operation), If-Match (updates and deletes), {id} and
// the list parameters every list reads the same way (list-parameters.ts).

export type RequestParameters = ReturnType<typeof registerRequestParameters>;

export function registerRequestParameters(registry: OpenAPIRegistry, versions: [string, ...string[]]) {
  return {
    list: createListParameters(registry),
    version: registry.registerParameter(
      'FieldlineVersion',
      z.enum(versions).optional().openapi({
        param: {
          name: VERSION_HEADER,
          in: 'header',
          description: `API version (supported: ${versions.join(', ')}). Omitted: the version pinned on the key. Unknown value: 400 version.invalid.`,
        },
      }),
    ),
    requestId: registry.registerParameter(
      'RequestId',
      z
        .string()
        .regex(/^[A-Za-z0-9._:-]{1,128}$/)
        .optional()
        .openapi({ param: { name: 'X-Request-Id', in: 'header', description: 'Optional correlation id; echoed on the response (a new one is generated when absent or not acceptable).' } }),
    ),
    ifMatch: registry.registerParameter(
      'IfMatch',
      z.string().openapi({
        param: {
          name: 'If-Match',
          in: 'header',
          required: true,
          description: 'The ETag of a prior GET, create or update. Missing: 428 precondition.required. Different from the current ETag: 412 precondition.failed.',
        },
      }),
    ),
    idempotencyKey: registry.registerParameter(
      'IdempotencyKey',
      z
        .string()
        .regex(/^[\x21-\x7e]{1,255}$/)
        .openapi({
          param: {
            name: 'Idempotency-Key',
            in: 'header',
            required: true,
            description:
              'One key per operation (a UUID): 1 to 255 printable ASCII characters, no spaces. Missing: 400 idempotency_key.required; malformed: 400 idempotency_key.invalid. Within 24 hours a retry with the same key and body (compared as canonical JSON) replays the first 201 with Idempotent-Replayed: true; while the first runs: 409 idempotency_key.in_use with Retry-After: 2; another body, method or path: 409 idempotency_key.in_use. A failed request is not kept. Keys are per API key.',
          },
        }),
    ),
    recordId: registry.registerParameter(
      'RecordId',
      z.string().openapi({ format: 'uuid', param: { name: 'id', in: 'path', description: 'Record id (UUID v7). Unknown or in another account: 404 resource.not_found.' } }),
    ),
  };
}
