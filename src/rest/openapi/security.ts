import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

// Bearer API keys and their scopes: the one security scheme, and how an operation states the scopes it needs.

const SCHEME = 'bearerAuth';

export function registerSecurityScheme(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_<UUIDv7>',
    description:
      '`Authorization: Bearer svc_<UUIDv7>`. Scopes are `<resource>:read` and `<resource>:write`; a write scope implies the read scope of the same resource only. The scopes an operation needs (all of them) are listed in its security requirement and in x-required-scopes.',
  });
}

/** The document's default requirement: a valid key, no scope. */
export function documentSecurity() {
  return [{ [SCHEME]: [] }];
}

/**
 * An operation's security: the scopes it needs are all in one requirement (all of them are needed) and in
 * x-required-scopes. An open operation has no requirement.
 */
export function operationSecurity(scopes: string[], open: boolean) {
  return {
    security: open ? [] : [{ [SCHEME]: scopes }],
    ...(scopes.length > 0 ? { 'x-required-scopes': scopes } : {}),
  };
}
