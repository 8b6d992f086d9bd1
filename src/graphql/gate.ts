import { getOperationAST, parse } from 'graphql';
import type { Domain } from '../domain.ts';
import type { Principal } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import type { Bucket, RateDecision } from '../kernel/rate-limit.ts';
import type { GraphQLContext } from './builder.ts';

// Admission of a GraphQL request, before any execution: the same steps and order as the REST gate
// (src/rest/gate.ts). Authenticate the bearer key (keeping a failure), take one request from the rate bucket
// of the key (of the source IP when unauthenticated) — `write` for a mutation, `read` for anything else; over
// HTTP, a request whose operation cannot be read takes from the bucket of its method (GET read, else write) —
// then raise the authentication failure, then resolve Fieldline-Version. HTTP requests are admitted by the
// middleware in server.ts (identify + contextOf), WebSocket operations by admit().
//
// Decision: a missing or invalid key refuses the WHOLE request (HTTP 401/403 with one GraphQL error carrying
// auth.missing_token, auth.invalid_token ...) rather than failing field by field: every field of this API
// needs a key, as every REST endpoint does, and introspection is no exception (schema.graphql is published for
// tooling that has no key). GraphiQL's page itself (a browser GET) needs no key; its requests do.

export type Admission =
  | { context: GraphQLContext; decision: RateDecision }
  | { error: AppError; decision?: RateDecision };

/** Outcome of authentication and of the rate bucket, before either is raised. */
export interface Identity {
  principal: Principal | null;
  authError: AppError | null;
  /** Undefined only when the rate limiter failed to give one. */
  decision?: RateDecision;
  rateError?: AppError;
}

export interface AdmissionRequest {
  authorization: string | undefined;
  version: string | undefined;
  requestId: string;
  /** Source address, the rate-limit subject when unauthenticated. */
  ip: string;
  bucket: Bucket;
}

/** Longest document parsed to choose its bucket (longer ones that mention mutation count as writes). */
const MAX_PARSED_QUERY = 64 * 1024;
/** Longest document whose bucket is remembered (1,000 of them at most: a few MB). */
const MAX_CACHED_QUERY = 4 * 1024;

export class GraphqlGate {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly domain: Domain) {}

  /**
   * write for a mutation, read for a query (and for documents that do not parse: they fail validation). It runs
   * before the key is checked, so it stays cheap whatever an anonymous client sends: a document without the
   * word "mutation" is a read without parsing, one over MAX_PARSED_QUERY characters counts as a write without
   * parsing, and only short documents (what apps send) are remembered, in a cache of bounded size.
   */
  bucketOf(query: string | undefined | null, operationName: string | undefined | null): Bucket {
    if (!query || !/\bmutation\b/.test(query)) return 'read';
    if (query.length > MAX_PARSED_QUERY) return 'write';
    const cacheKey = query.length <= MAX_CACHED_QUERY ? `${operationName ?? ''}\u0000${query}` : null;
    const known = cacheKey === null ? undefined : this.buckets.get(cacheKey);
    if (known) return known;
    let bucket: Bucket = 'read';
    try {
      bucket = getOperationAST(parse(query), operationName ?? undefined)?.operation === 'mutation' ? 'write' : 'read';
    } catch {
      bucket = 'read';
    }
    if (cacheKey !== null) {
      if (this.buckets.size >= 1000) this.buckets.clear();
      this.buckets.set(cacheKey, bucket);
    }
    return bucket;
  }

  /** Checks a key and a requested version without taking from a bucket (WebSocket connection_init). */
  async check(authorization: string | undefined, version: string | undefined): Promise<void> {
    const principal = await this.domain.authenticator.authenticate(authorization);
    this.domain.versions.resolve(version, principal.key.apiVersion);
  }

  /**
   * Authenticates the bearer key, keeping a failure for contextOf() to raise, and takes one request from the
   * bucket of the key (of the source IP when unauthenticated). A full bucket is `rateError`, with its headers.
   */
  async identify(request: { authorization: string | undefined; ip: string; bucket: Bucket }): Promise<Identity> {
    let principal: Principal | null = null;
    let authError: AppError | null = null;
    try {
      principal = await this.domain.authenticator.authenticate(request.authorization);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      authError = error;
    }
    const subject = principal ? `key:${principal.key.id}` : `ip:${request.ip}`;
    try {
      return { principal, authError, decision: await this.domain.rateLimits.consume(request.bucket, subject) };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { principal, authError, decision: (error as AppError & { decision?: RateDecision }).decision, rateError: error };
    }
  }

  /** The context of an identified request: raises the authentication failure, then resolves Fieldline-Version. */
  contextOf(identity: Identity, version: string | undefined, requestId: string): GraphQLContext {
    const { principal } = identity;
    if (identity.authError || !principal) throw identity.authError ?? new AppError('auth.failed');
    const apiVersion = this.domain.versions.resolve(version, principal.key.apiVersion);
    return { domain: this.domain, requestId, principal, apiVersion };
  }

  async admit(request: AdmissionRequest): Promise<Admission> {
    const identity = await this.identify(request);
    if (identity.rateError) return { error: identity.rateError, decision: identity.decision };
    const decision = identity.decision!;
    try {
      return { context: this.contextOf(identity, request.version, request.requestId), decision };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { error, decision };
    }
  }
}
