import { v7 as uuidv7 } from 'uuid';

/**
 * An id as the API writes it: a lowercase UUID v7 (RFC 9562 variant). The groups are the UUID's five fields, the
 * third without its version digit.
 */
export const uuidV7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7([0-9a-f]{3})-([89ab][0-9a-f]{3})-([0-9a-f]{12})$/;

/** An API key token: svc_<UUIDv7>, with the groups of uuidV7. */
export const tokenPattern = new RegExp(`^svc_${uuidV7.source.slice(1)}`);

const anyUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A UUID of any version (request ids). */
export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && anyUuid.test(value);
}

/** A well-formed token (svc_<UUIDv7>) that no key was ever issued for. */
export function unknownToken(): string {
  return `svc_${uuidv7()}`;
}
