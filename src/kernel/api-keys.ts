import { createHash, randomBytes } from 'node:crypto';

// API keys have the spec's form svc_<UUIDv7>. The UUID's random bits come from the platform CSPRNG.
// Only the SHA-256 of a token is stored; the token itself is shown once, when the key is created.

export const TOKEN_PREFIX = 'svc_';
const tokenPattern = /^svc_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * A UUID v7 with all 74 non-timestamp bits fresh from the CSPRNG. (A monotonic v7 generator would derive
 * them from the previous id of the same millisecond, making a token guessable from a key id.)
 */
function secureUuidV7(): string {
  const bytes = randomBytes(16);
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function newToken(): string {
  return `${TOKEN_PREFIX}${secureUuidV7()}`;
}

export function looksLikeToken(token: string): boolean {
  return tokenPattern.test(token);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
