import type { Authenticator } from './auth.ts';
import type { Principal } from './context.ts';
import { AppError } from './errors.ts';
import type { Bucket, RateDecision, RateLimits } from './rate-limit.ts';

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
