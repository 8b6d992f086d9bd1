import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { IF_MATCH_ETAG } from '../../kernel/etag.ts';
import { VERSION_HEADER } from '../../kernel/versioning.ts';
import { ACCEPTED_REQUEST_ID } from '../request-id.ts';
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
    // Any value is accepted (none is refused), so the schema states no pattern: the description says which values
    // become the request's id (src/rest/request-id.ts).
    requestId: registry.registerParameter(
      'RequestId',
      z
        .string()
        .optional()
        .openapi({
          param: {
            name: 'X-Request-Id',
            in: 'header',
            description: `Optional correlation id. A value matching \`${ACCEPTED_REQUEST_ID.source}\` (1 to 128 letters, digits, \`.\`, \`_\`, \`:\` or \`-\`) is the request's id: echoed in the X-Request-Id response header and in a problem's request_id. Any other value is never refused: it is ignored and a new id is generated, as when the header is absent.`,
          },
        }),
    ),
    // A blank If-Match is a missing one (428); a value that is not one of our ETags can never match (412 once the
    // record is found): src/kernel/etag.ts parseIfMatch.
    ifMatch: registry.registerParameter(
      'IfMatch',
      z
        .string()
        .min(1)
        .regex(IF_MATCH_ETAG)
        .openapi({
          param: {
            name: 'If-Match',
            in: 'header',
            required: true,
            description:
              'The ETag of a prior GET, create or update (weak `W/"<ms>-<version>"` or strong `"<ms>-<version>"`). Missing or empty: 428 precondition.required. Any other value that is not the current ETag (one not of the pattern can never be): 412 precondition.failed, once the record is found (404 resource.not_found first).',
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
