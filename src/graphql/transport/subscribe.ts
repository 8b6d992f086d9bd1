import { createSourceEventStream, execute, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import type { StreamItem } from '../../events/event-streams.ts';
import type { TailedEvent } from '../../events/tail.ts';
import { runAsTenant } from '../../kernel/context.ts';
import type { GraphQLContext } from '../schema/builder.ts';
import { withRequestId, type maskErrorWith } from '../schema/errors.ts';
import { type OperationAdmission } from './limits.ts';

// How a subscription operation is served (graphql-ws calls it; src/graphql/transport/websocket.ts admitted the socket and the
// operation, parsed and validated the document). What the GraphQL spec asks of a subscription, and no more:
//   - the document passes the cost limits and is charged once, when subscribed to (`admit`; each event's result is
//     then metered on its own, OperationCost.nextEvent);
//   - the subscription field's `subscribe` makes the source stream (graphql-js createSourceEventStream);
//   - each source item is executed by graphql-js with the item as root value, in the caller's tenant, and the errors
//     of its result are masked with the request id (as over HTTP);
//   - an event is executed once per distinct operation that receives it: subscriptions of the same document and
//     variables whose callers read alike (account, API version, role and scopes: what a resolver may look at) share
//     the execution's result, so an event fanned out to 10,000 subscribers of one board query builds one result,
//     not 10,000. Each subscriber masks the shared result's errors with its own request id.
// The stream is one small object per subscription over the source's own: a process holds one per open
// subscription (10,000 in the events bench). Yoga's executor wraps each in several layers of async iterators
// (flattening for @defer/@stream, plugin hooks); measured with 2,000 subscriptions, a subscription held 15 KB of
// heap through it and holds 9 KB this way (bench/README.md, "Events").

type Mask = ReturnType<typeof maskErrorWith>;

/** Per event, the running executions by operation signature (see `signatureOf`); gone with the event. */
const executions = new WeakMap<TailedEvent, Map<string, Promise<ExecutionResult>>>();
const documentIds = new WeakMap<DocumentNode, number>();
let nextDocumentId = 0;

/** What makes two subscriptions' results of one event equal: the operation, and what resolvers may read of the caller. */
function signatureOf(args: ExecutionArgs, ctx: GraphQLContext): string {
  let documentId = documentIds.get(args.document);
  if (documentId === undefined) documentIds.set(args.document, (documentId = nextDocumentId++));
  const { principal } = ctx;
  const scopes = [...principal.key.scopes].sort().join(' ');
  return JSON.stringify([documentId, args.operationName ?? null, args.variableValues ?? null, principal.accountId, ctx.apiVersion, principal.user.role, scopes]);
}

export interface SubscriptionHooks {
  /** The cost limits' admission (null: the limits are off). */
  admit: OperationAdmission | null;
  mask: Mask;
}

export async function subscribeOperation(args: ExecutionArgs, hooks: SubscriptionHooks): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>> {
  const ctx = args.contextValue as GraphQLContext;
  const refusal = await hooks.admit?.(args);
  if (refusal) return refusal;
  const source = await runAsTenant(ctx.principal.accountId, () => createSourceEventStream(args));
  if (!(Symbol.asyncIterator in source)) return masked(source as ExecutionResult, hooks.mask, ctx);
  return new SubscriptionResults(args, hooks.mask, (source as AsyncIterable<StreamItem>)[Symbol.asyncIterator]());
}

/** The result with its errors masked, each with the subscription's request id. */
function masked(result: ExecutionResult, mask: Mask, ctx: GraphQLContext): ExecutionResult {
  return result.errors?.length ? { ...result, errors: withRequestId(result.errors as GraphQLError[], mask, ctx.requestId) } : result;
}

const finished: IteratorResult<ExecutionResult, undefined> = Object.freeze({ value: undefined, done: true });

/** A subscription's results: each item of its source stream executed (or its shared execution awaited) and masked. */
class SubscriptionResults implements AsyncIterableIterator<ExecutionResult> {
  private readonly signature: string;
  private done = false;

  constructor(
    private readonly args: ExecutionArgs,
    private readonly mask: Mask,
    private readonly items: AsyncIterator<StreamItem>,
  ) {
    this.signature = signatureOf(args, args.contextValue as GraphQLContext);
  }

  next(): Promise<IteratorResult<ExecutionResult, undefined>> {
    if (this.done) return Promise.resolve(finished);
    return this.items.next().then(
      async (step) => {
        if (step.done) {
          this.done = true;
          return finished;
        }
        try {
          return { value: await this.run(step.value), done: false };
        } catch (error) {
          return { value: this.failed(error), done: false };
        }
      },
      (error: unknown) => {
        this.done = true;
        return { value: this.failed(error), done: false };
      },
    );
  }

  async return(): Promise<IteratorResult<ExecutionResult, undefined>> {
    this.done = true;
    await this.items.return?.();
    return finished;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** A refusal is this subscription's own; an event's result is shared by the subscriptions of the same signature. */
  private async run(item: StreamItem): Promise<ExecutionResult> {
    const ctx = this.args.contextValue as GraphQLContext;
    if (!('event' in item)) return masked(await this.execute(item), this.mask, ctx);
    let running = executions.get(item.event);
    if (!running) executions.set(item.event, (running = new Map()));
    let result = running.get(this.signature);
    if (!result) running.set(this.signature, (result = this.execute(item)));
    return masked(await result, this.mask, ctx);
  }

  private async execute(item: StreamItem): Promise<ExecutionResult> {
    const ctx = this.args.contextValue as GraphQLContext;
    return await runAsTenant(ctx.principal.accountId, () => execute({ ...this.args, rootValue: item }));
  }

  private failed(error: unknown): ExecutionResult {
    return masked({ data: null, errors: [error as GraphQLError] }, this.mask, this.args.contextValue as GraphQLContext);
  }
}
