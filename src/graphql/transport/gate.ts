import { getOperationAST, parse } from 'graphql';

/** A GraphQL operation's type. */
export type OperationType = 'query' | 'mutation' | 'subscription';
import type { Domain } from '../../domain.ts';
import { admittedContext, identifyCaller, type Identity } from '../../http/admission.ts';
import { AppError } from '../../kernel/errors.ts';
import type { RateDecision } from '../../kernel/rate-limit.ts';
import type { GraphQLContext } from '../schema/builder.ts';
import { limits } from '../schema/cost.ts';
import { OperationCost } from '../schema/meter.ts';
import { type Analysis } from './analysis.ts';

// Admission of a GraphQL request, before any execution: the same steps and order as the REST gate
// (src/rest/gate.ts, through kernel/admission.ts). Authenticate the bearer key (keeping a failure), take the
// request's points (limits.requestPoints) from the `graphql` points bucket of the key (of the source IP when
// unauthenticated), then raise the authentication failure, then resolve Fieldline-Version. The operation's
// own cost is charged once it is known, before it executes (charge(), called by limits.ts). HTTP requests are
// admitted by the middleware in server.ts (identify + contextOf), WebSocket operations by admit().
//
// Decision: a missing or invalid key refuses the WHOLE request (HTTP 401/403 with one GraphQL error carrying
// auth.missing_token, auth.invalid_token ...) rather than failing field by field: every field of this API
// needs a key, as every REST endpoint does, and introspection is no exception (schema.graphql is published for
// tooling that has no key). GraphiQL's page itself (a browser GET) needs no key; its requests do.

export type Admission =
  | { context: GraphQLContext; decision: RateDecision }
  | { error: AppError; decision?: RateDecision };

export type { Identity };

export interface AdmissionRequest {
  authorization: string | undefined;
  version: string | undefined;
  requestId: string;
  /** Source address, the rate-limit subject when unauthenticated. */
  ip: string;
}

/** Longest document parsed to tell a mutation sent with GET (longer ones that mention mutation count as one). */
const MAX_PARSED_QUERY = 64 * 1024;
/** Longest document whose answer is remembered (1,000 of them at most: a few MB). */
const MAX_CACHED_QUERY = 4 * 1024;

export class GraphqlGate {
  private readonly operations = new Map<string, OperationType>();

  constructor(private readonly domain: Domain) {}

  /**
   * The type of the document's selected operation, read before the key is checked (a mutation sent with GET is
   * refused with 405, a subscription over HTTP with 400), so it stays cheap whatever an anonymous client sends: a
   * document without the word "mutation" or "subscription" is a query, one over MAX_PARSED_QUERY characters that
   * mentions "mutation" is taken for a mutation, and only short documents (what apps send) are remembered, in a
   * cache of bounded size.
   */
  operationType(query: string | undefined | null, operationName: string | undefined | null): OperationType {
    if (!query || !/\b(mutation|subscription)\b/.test(query)) return 'query';
    if (query.length > MAX_PARSED_QUERY) return /\bmutation\b/.test(query) ? 'mutation' : 'query';
    const cacheKey = query.length <= MAX_CACHED_QUERY ? `${operationName ?? ''}\u0000${query}` : null;
    const known = cacheKey === null ? undefined : this.operations.get(cacheKey);
    if (known !== undefined) return known;
    let type: OperationType = 'query';
    try {
      type = getOperationAST(parse(query, { maxTokens: limits.maxTokens }), operationName ?? undefined)?.operation as OperationType | undefined ?? 'query';
    } catch {
      type = 'query';
    }
    if (cacheKey !== null) {
      if (this.operations.size >= 1000) this.operations.delete(this.operations.keys().next().value!);
      this.operations.set(cacheKey, type);
    }
    return type;
  }

  isMutation(query: string | undefined | null, operationName: string | undefined | null): boolean {
    return this.operationType(query, operationName) === 'mutation';
  }

  /**
   * Authenticates the bearer key, keeping a failure for contextOf() to raise, and takes the request's points
   * from the `graphql` bucket of the key (of the source IP when unauthenticated). A full bucket is `rateError`.
   */
  identify(request: { authorization: string | undefined; ip: string }): Promise<Identity> {
    return identifyCaller(this.domain, { ...request, bucket: 'graphql', points: limits.requestPoints });
  }

  /**
   * Takes what an analysed operation costs, before it runs: one request from the REST `write` bucket per
   * mutation field (so a GraphQL write costs what a REST write costs), then its points from the `graphql`
   * bucket. Nothing is taken when either refuses.
   */
  async charge(ctx: GraphQLContext, analysis: Analysis): Promise<RateDecision | undefined> {
    const subject = `key:${ctx.principal.key.id}`;
    const { rateLimits } = this.domain;
    if (analysis.mutationFields > 0) await rateLimits.consume('write', subject, analysis.mutationFields);
    try {
      return analysis.cost > 0 ? await rateLimits.consume('graphql', subject, analysis.cost) : undefined;
    } catch (error) {
      if (analysis.mutationFields > 0) await rateLimits.refund('write', subject, analysis.mutationFields);
      throw error;
    }
  }

  /** The context of an identified request: raises the authentication failure, then resolves Fieldline-Version. */
  contextOf(identity: Identity, version: string | undefined, requestId: string): GraphQLContext {
    const context = admittedContext(identity, { version, requestId, versions: this.domain.versions });
    return { ...context, domain: this.domain, cost: new OperationCost(identity.decision) };
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
