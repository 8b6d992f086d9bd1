import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../../kernel/errors.ts';
import { type RateDecision } from '../../kernel/rate-limit.ts';
import type { GraphQLContext } from '../schema/builder.ts';

import { requestError } from './document-limits.ts';
import { analyzeOperation, type Analysis } from './analysis.ts';
import type { ExpensiveOperations } from './concurrency.ts';

// The admission of an operation under the limits (docs/graphql-limits.md): analyzed, refused over a maximum, or
// charged to the caller's buckets, for yoga's executions (graphqlLimits) and the WebSocket server's subscriptions.

export interface LimitsOptions {
  errorsUrl: string;
  /** Takes the operation's points (and its mutations' writes) for the caller; throws rate_limit.exceeded. */
  charge(ctx: GraphQLContext, analysis: Analysis): Promise<RateDecision | undefined>;
  /** How many expensive operations run at once (concurrency.ts); executions only, not subscriptions. */
  expensive?: ExpensiveOperations;
}

/** The refusal of an operation as its result: the error, with the cost report when there is a meter. */
function refusalResult(error: AppError, errorsUrl: string, ctx: GraphQLContext | undefined): ExecutionResult {
  return {
    errors: [requestError(error, errorsUrl, ctx?.requestId)],
    extensions: ctx?.cost ? { cost: ctx.cost.report() } : undefined,
  };
}

/** Analyzes and charges an operation (its cost on the caller's meter); answers the refusal to serve it, if any. */
export type OperationAdmission = (args: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null; variableValues?: unknown; contextValue?: unknown }) => Promise<ExecutionResult | null>;

/** The admission of operations under the limits: the plugin's for executions, the WebSocket server's for subscriptions. */
export function operationAdmission(options: LimitsOptions): OperationAdmission {
  return async (args) => {
    const ctx = args.contextValue as GraphQLContext;
    try {
      const analysis = analyzeOperation(args.schema, args.document, args.operationName, args.variableValues as Record<string, unknown> | undefined, ctx);
      if (analysis) {
        ctx.cost.requested = analysis.cost;
        const decision = await options.charge(ctx, analysis);
        if (decision) ctx.cost.decision = decision;
      }
      return null;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const decision = (error as AppError & { decision?: RateDecision }).decision;
      if (decision) ctx.cost.decision = decision;
      return refusalResult(error, options.errorsUrl, ctx);
    }
  };
}

/**
 * The yoga/envelop plugin applying the limits to every execution (HTTP, and queries and mutations over WebSocket).
 * Subscriptions are admitted by the WebSocket server with the same operationAdmission (src/graphql/transport/subscribe.ts).
 */
export function graphqlLimits(options: LimitsOptions): Plugin<{}, {}, GraphQLContext> {
  const refuse = (error: AppError, ctx: GraphQLContext | undefined) => refusalResult(error, options.errorsUrl, ctx);
  const admit = operationAdmission(options);
  return {
    async onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const ctx = args.contextValue as unknown as GraphQLContext;
      const refusal = await admit(args);
      if (refusal) {
        setResultAndStopExecution(refusal);
        return;
      }
      const meter = ctx.cost;
      const expensive = options.expensive;
      setExecuteFn(async (execArgs) => {
        const signal = (execArgs as { signal?: AbortSignal }).signal;
        // An expensive operation runs once it holds its slots, after it was admitted and charged.
        let leave: (() => void) | undefined;
        if (expensive && meter.requested !== null && expensive.isExpensive(meter.requested)) {
          try {
            leave = await expensive.enter(ctx.principal.key.id);
          } catch (error) {
            if (error instanceof AppError) return refuse(error, ctx);
            throw error;
          }
        }
        try {
          return await executeFn({ ...execArgs, signal: signal ? AbortSignal.any([signal, meter.signal]) : meter.signal } as typeof execArgs);
        } catch (error) {
          if (meter.exceeded) return refuse(meter.exceeded, ctx);
          throw error;
        } finally {
          leave?.();
        }
      });
      return {
        onExecuteDone({ result, setResult }: { result: ExecutionResult | AsyncIterable<ExecutionResult>; setResult: (r: ExecutionResult) => void }) {
          if (Symbol.asyncIterator in (result as object)) return;
          const single = result as ExecutionResult;
          if (meter.exceeded) return setResult(refuse(meter.exceeded, ctx));
          setResult({ ...single, extensions: { ...single.extensions, cost: meter.report() } });
        },
      };
    },
  };
}
