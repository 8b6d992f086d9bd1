import type { GraphQLError } from './types.ts';

// What went wrong, in words for the banner, and the server's error codes.

/** The server refused the key (HTTP 401, or an auth.* / authentication.* error code): the key form is shown again. */
export class KeyRefused extends Error {}

/**
 * The message of anything that failed: GraphQL errors (joined), a WebSocket's close event (its code and
 * reason), an Error, or anything else as text.
 */
export function messageOf(error: unknown): string {
  if (!error) return 'unknown error';
  if (Array.isArray(error)) return (error as readonly { message?: unknown }[]).map((e) => e.message).join('; ');
  const { code, reason, message } = error as { code?: unknown; reason?: unknown; message?: unknown };
  if (typeof code === 'number') return 'connection closed (' + code + (reason ? ': ' + reason : '') + ')';
  return message ? String(message) : String(error);
}

/** The first error code (extensions.code) of GraphQL errors, or null. */
export function codeOf(errors: readonly GraphQLError[] | null | undefined): string | null {
  for (const error of errors ?? []) if (error?.extensions?.code) return String(error.extensions.code);
  return null;
}
