import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

// The response headers: registered once under components.headers, referred to by name from each response.

export function registerResponseHeaders(registry: OpenAPIRegistry): void {
  const headers: Record<string, Parameters<typeof registry.registerComponent<'headers'>>[2]> = {
    'RateLimit-Limit': { description: 'Requests permitted in the current window of the bucket (read: GET; write: POST, PATCH, PUT, DELETE).', schema: { type: 'integer' } },
    'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
    'Retry-After': { description: 'Seconds to wait before retrying, with jitter.', schema: { type: 'integer' } },
    'X-Request-Id': { description: 'Correlation id of the request: the X-Request-Id sent when acceptable, otherwise generated.', schema: { type: 'string' } },
    ETag: { description: 'Weak tag `W/"<updated_at epoch ms>-<lock_version>"`; send it back in If-Match.', schema: { type: 'string', pattern: '^W/"\\d+-\\d+"$' } },
    Location: { description: 'Path of the created record.', schema: { type: 'string', format: 'uri-reference' } },
    Link: { description: 'The next page: `<next_url>; rel="next"`, whose cursor parameter is the body\'s next_cursor. Absent on the last page.', schema: { type: 'string' } },
    'Idempotent-Replayed': { description: 'true when the answer is the stored answer of an earlier request with the same Idempotency-Key; absent otherwise.', schema: { type: 'string', const: 'true' } },
    'Cache-Control': { description: 'Always private, no-store.', schema: { type: 'string', const: 'private, no-store' } },
  };
  for (const [name, header] of Object.entries(headers)) registry.registerComponent('headers', name, header);
}

/** The headers every response carries. */
const everyResponse = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id'];

/** The headers of one response: those of every response, then `names`, each a reference to its component. */
export function responseHeaders(...names: string[]) {
  return Object.fromEntries([...everyResponse, ...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}
