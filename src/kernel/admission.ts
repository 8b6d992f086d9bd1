import { requireScope, type Authenticator } from './auth.ts';
import type { Principal, RequestContext } from './context.ts';
import { AppError } from './errors.ts';
import type { Bucket, RateDecision, RateLimits } from './rate-limit.ts';
import type { Scope } from './scopes.ts';
import type { ApiVersions } from './versioning.ts';

// Admission of every request, REST, GraphQL over HTTP and GraphQL over WebSocket alike: authenticate the bearer
// key (keeping a failure for the caller to raise in its turn) and take from a rate bucket of the key, or of the
// source IP when there is no valid key. A token never seen to be a key is looked up in the database only after
// one request has been taken from the source IP's bucket (given back when it proves to be a key), so a client
// whose IP bucket is exhausted gets 429 without costing a read, however many random tokens it sends.

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
  const ipSubject = `ip:${request.ip}`;
  let ipDecision: RateDecision | undefined;
  let principal: Principal | null = null;
  let authError: AppError | null = null;
  try {
    principal = await deps.authenticator.authenticate(request.authorization, {
      beforeLookup: async () => {
        ipDecision = await deps.rateLimits.consume(request.bucket, ipSubject, request.points ?? 1);
      },
    });
  } catch (error) {
    const refused = rateRefusal(error);
    if (refused) return { principal: null, authError: null, ...refused };
    if (!(error instanceof AppError)) throw error;
    authError = error;
  }
  // Without a valid key, the request is the source IP's: charged once, before the lookup when there was one.
  if (!principal && ipDecision) return { principal, authError, decision: ipDecision };
  // A token that proved to be a key gives its address back what its lookup took: the key's bucket pays.
  if (principal && ipDecision) await deps.rateLimits.refund(request.bucket, ipSubject, request.points ?? 1);
  try {
    const decision = principal
      ? await deps.rateLimits.consume(request.bucket, `key:${principal.key.id}`, request.points ?? 1)
      : await deps.rateLimits.consume(request.bucket, ipSubject, request.points ?? 1);
    return { principal, authError, decision };
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
