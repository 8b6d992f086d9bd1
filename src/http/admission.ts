import { requireScope, type Authenticator } from '../kernel/auth.ts';
import type { Principal, RequestContext } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import type { Bucket, RateDecision, RateLimits } from '../kernel/rate-limit.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { ApiVersions } from '../kernel/versioning.ts';

// Admission of every request, REST, GraphQL over HTTP and GraphQL over WebSocket alike: authenticate the bearer
// key (keeping a failure for the caller to raise in its turn) and take from a rate bucket of the key, or of the
// source IP when there is no valid key. The bucket is chosen after the key is looked up, so a valid key is never
// refused by the anonymous bucket of its address (an office or a carrier NAT shared with a misbehaving client).
// What a flood of guessed tokens costs is bounded in kernel/auth.ts: only well-formed tokens are read (one indexed
// point read, the cost of the cheapest authenticated request), an unknown token is not read again while it is
// cached, and once its address's bucket is spent each failure answers 429. Guessing itself is hopeless: a token's
// UUID v7 carries 74 random bits (docs/decisions.md, Identity and keys).

/** Outcome of authentication and of the rate bucket, before either is raised. */
export interface Identity {
  principal: Principal | null;
  authError: AppError | null;
  /** The bucket state after this request (undefined only when the limiter failed to give one). */
  decision?: RateDecision;
  rateError?: AppError;
}

export interface AdmissionDeps {
  authenticator: Authenticator;
  rateLimits: RateLimits;
}

export interface AdmissionRequest {
  authorization: string | undefined;
  /** Source address, the rate-limit subject when unauthenticated. */
  ip: string;
  bucket: Bucket;
  /** What the request takes from the bucket (default 1), the key's or the source IP's. */
  points?: number;
}

function rateRefusal(error: unknown): { decision?: RateDecision; rateError: AppError } | null {
  if (!(error instanceof AppError) || error.code !== 'rate_limit.exceeded') return null;
  return { decision: (error as AppError & { decision?: RateDecision }).decision, rateError: error };
}

export async function identifyCaller(deps: AdmissionDeps, request: AdmissionRequest): Promise<Identity> {
  let principal: Principal | null = null;
  let authError: AppError | null = null;
  try {
    principal = await deps.authenticator.authenticate(request.authorization);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    authError = error;
  }
  // Who pays is decided after the lookup: a key pays from its own bucket, a request that does not authenticate
  // (no token, a malformed or unknown one, a refused key) from its source address's. So an address that spent its
  // bucket on failures is refused for failures only, and a valid key from the same address is still served.
  const subject = principal ? `key:${principal.key.id}` : `ip:${request.ip}`;
  try {
    return { principal, authError, decision: await deps.rateLimits.consume(request.bucket, subject, request.points ?? 1) };
  } catch (error) {
    const refused = rateRefusal(error);
    if (!refused) throw error;
    return { principal, authError, ...refused };
  }
}

/**
 * The request context of an identified request, in the order every adapter raises them: the authentication
 * failure, then the Fieldline-Version header (version.invalid), then each scope the operation needs.
 */
export function admittedContext(identity: Pick<Identity, 'principal' | 'authError'>, request: { version: string | undefined; requestId: string; versions: ApiVersions; scopes?: readonly Scope[] }): RequestContext {
  const { principal } = identity;
  if (identity.authError || !principal) throw identity.authError ?? new AppError('auth.failed');
  const apiVersion = request.versions.resolve(request.version, principal.key.apiVersion);
  for (const scope of request.scopes ?? []) requireScope(principal, scope);
  return { requestId: request.requestId, principal, apiVersion };
}

/** The RateLimit-* headers of a bucket's state (every answer carries them, errors included). */
export function rateHeaders(decision: RateDecision): Record<string, string> {
  return { 'RateLimit-Limit': String(decision.limit), 'RateLimit-Remaining': String(decision.remaining), 'RateLimit-Reset': String(decision.resetSeconds) };
}
