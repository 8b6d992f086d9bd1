import { z } from './zod.ts';

// The application/problem+json body every error response carries.

const problemCodePattern = /^[a-z_]+(\.[a-z_]+)+$/;

export function problemSchema(): z.ZodObject {
  return z
    .object({
      type: z.string().openapi({ format: 'uri-reference', description: '`{errors_url}/<code>`: relative (`/errors/<code>`) unless the server is configured with an absolute errors URL.' }),
      title: z.string().openapi({ description: 'Short fixed title of the code.' }),
      status: z.number().int().openapi({ description: 'HTTP status.' }),
      code: z.string().regex(problemCodePattern).openapi({ description: 'Stable machine code `<domain>.<verb_or_state>`; see x-error-codes at the top of this document.' }),
      detail: z.string().nullable().openapi({ description: 'Longer context; null when none.' }),
      instance: z.string().openapi({ description: 'Request path.' }),
      request_id: z.string().openapi({ description: 'Correlation id of the request (also the X-Request-Id header).' }),
      doc_url: z.string().openapi({ format: 'uri-reference', description: '`{errors_url}/<code with dots and underscores turned to dashes>`: the page documenting the code.' }),
      errors: z
        .record(z.string(), z.array(z.string()))
        .optional()
        .openapi({ description: 'validation.failed: each field name (nested: `custom_fields.<id>`) mapped to its messages.' }),
      required_scope: z.string().optional().openapi({ description: 'auth.scope_missing: the scope the endpoint needs.' }),
      granted_scopes: z.array(z.string()).optional().openapi({ description: "auth.scope_missing: the key's scopes." }),
      max_limit: z.number().int().optional().openapi({ description: 'pagination.limit_too_large: the largest limit.' }),
      reason: z.string().optional().openapi({ description: 'account.deactivated: why, when known.' }),
      endpoint_id: z.string().optional().openapi({ format: 'uuid', description: 'verification.*: the webhook endpoint, stored unverified (POST /webhooks/endpoints/{id}/verify retries).' }),
      topics: z.array(z.string()).optional().openapi({ description: 'topic.not_available: the topics that are registered but not available.' }),
      paused_until: z.string().optional().openapi({ format: 'date-time', description: 'endpoint.paused: when the pause ends.' }),
    })
    .openapi({ description: 'RFC 9457 problem details, served as application/problem+json.' });
}
