import { complexityFromQuery, type FieldComplexityValue } from '@pothos/plugin-complexity';
import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  GraphQLError,
  isAbstractType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  Lexer,
  Source,
  TokenKind,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { AppError, type ErrorCode } from '../kernel/errors.ts';
import { WINDOW_SECONDS, type RateDecision } from '../kernel/rate-limit.ts';
import type { GraphQLContext } from './builder.ts';
import { appErrorExtensions } from './errors.ts';
import { eachSelectedField, fieldSelections } from './selection.ts';

// The limits that keep one GraphQL operation from taking the server down or slipping past the rate limit
// (docs/graphql-limits.md). Every operation, over HTTP and over WebSocket, passes them before anything runs:
// 1. before parsing, each transport lexes the document once (documentRefusal): more than maxTokens tokens, or
//    brackets nested deeper than maxNesting, is refused, so neither a huge nor a deeply nested document reaches
//    the recursive parser;
// 2. before executing, the operation's cost is computed from the document and the variables by
//    @pothos/plugin-complexity (fields carry their cost in the schema, see fieldCost) along with its depth,
//    and its aliases and mutation fields are counted here (fragments expanded in full); over a maximum it is
//    refused; otherwise its cost is taken from the key's `graphql` points bucket and each mutation field takes
//    one request from the `write` bucket REST writes use;
// 3. while executing, a meter counts the objects and the bytes of text actually resolved, and aborts the
//    execution past a maximum (relations that are not paginated can return more than their estimate).

export const limits = {
  /** Largest cost of one operation (points; about one per object returned). */
  maxCost: 50_000,
  /** Deepest selection, fragments expanded (introspection needs about 13). */
  maxDepth: 15,
  /** Aliased fields in one operation, fragments expanded. */
  maxAliases: 100,
  /** Tokens of one document. */
  maxTokens: 5_000,
  /** Brackets ({ [ () nested in one document, checked before parsing. */
  maxNesting: 64,
  /** Objects actually resolved by one operation. */
  maxResultObjects: 50_000,
  /** Characters of values actually resolved by one operation (about the size of the JSON answer). */
  maxResultBytes: 16 * 1024 * 1024,
  /** What every GraphQL request takes from the bucket, whatever it asks (admission, parsing, transport errors). */
  requestPoints: 100,
  /** The cost of a mutation field itself (it also takes one request from the write bucket). */
  mutationPoints: 10,
  /** Assumed size of a list that has no limit argument (relations that are not paginated). */
  listMultiplier: 10,
  /** Open WebSocket connections of one key (in one process). */
  maxSocketsPerKey: 20,
  /** Active subscriptions of one key (in one process). */
  maxSubscriptionsPerKey: 100,
} as const;

/**
 * The cost of a field the schema does not price itself: leaves are free, an object costs 1 plus its selection, a
 * list without a limit 1 plus listMultiplier objects, each 1 plus its selection (so the estimate bounds what
 * the meter counts while the list holds at most listMultiplier entries).
 */
export function fieldCost(_args: Record<string, unknown>, _ctx: unknown, field: GraphQLField<unknown, any, any>): FieldComplexityValue {
  const named = getNamedType(field.type);
  if (isLeafType(named)) return 0;
  return isListType(getNullableType(field.type)) ? { field: 1 + limits.listMultiplier, multiplier: limits.listMultiplier } : 1;
}

/** The cost of a paginated field: the field, plus its page size argument (or its default) times one item's selection. */
export function pageCost(defaultLimit: number, argument = 'limit') {
  return (args: Record<string, unknown>): FieldComplexityValue => {
    const size = args[argument];
    return { field: 1, multiplier: Math.max(1, typeof size === 'number' ? size : defaultLimit) };
  };
}

/** The throttle state reported in extensions.cost, as Shopify's and Jobber's APIs report theirs. */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  /** Average points restored per second (the window refills whole every WINDOW_SECONDS). */
  restoreRate: number;
  /** Seconds until the window refills. */
  resetSeconds: number;
}

/** The cost state of one GraphQL request, reported in extensions.cost. */
export class OperationCost {
  requested: number | null = null;
  objects = 0;
  bytes = 0;
  decision: RateDecision | undefined;
  /** Made when an execution asks for the signal: a subscription's meter (one per open subscription) never does. */
  private controller: AbortController | null = null;
  private failure: AppError | null = null;

  constructor(decision?: RateDecision) {
    this.decision = decision;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.failure) this.controller.abort(this.failure);
    }
    return this.controller.signal;
  }

  /** A subscription's next event: its result is counted afresh (the limits hold per result, not per subscription). */
  nextEvent(): void {
    this.objects = 0;
    this.bytes = 0;
  }

  /** Why execution was aborted, if it was. */
  get exceeded(): AppError | null {
    return this.failure;
  }

  /** Counts a resolved value (a leaf's bytes; an object, and the bytes of its `properties` selected); aborts the execution once the result grows past its maximum. */
  count(value: unknown, kind: Counted, name: string, properties: readonly string[] | null = null): void {
    if (this.failure || value === null || value === undefined) return;
    if (kind === 'object') this.objects += Array.isArray(value) ? value.length : 1;
    if (kind === 'leaf') this.bytes += name.length + leafBytes(value);
    else if (properties && properties.length > 0) this.bytes += propertyBytes(value, properties);
    if (this.objects > limits.maxResultObjects || this.bytes > limits.maxResultBytes) {
      this.failure = new AppError(
        'graphql.result_too_large',
        `The result grew past ${limits.maxResultObjects} objects or ${limits.maxResultBytes} characters; select fewer fields or smaller pages.`,
      );
      this.controller?.abort(this.failure);
      throw this.failure;
    }
  }

  report(): Record<string, unknown> {
    const throttle: ThrottleStatus | null = this.decision
      ? {
          maximumAvailable: this.decision.limit,
          currentlyAvailable: this.decision.remaining,
          restoreRate: Math.round(this.decision.limit / WINDOW_SECONDS),
          resetSeconds: this.decision.resetSeconds,
        }
      : null;
    return { requestedQueryCost: this.requested, actualQueryCost: this.requested === null ? null : this.objects, throttleStatus: throttle };
  }
}

/** A catalog error as a GraphQL request error: its HTTP status (and headers) answer the request. */
export function requestError(error: AppError, errorsUrl: string, requestId?: string): GraphQLError {
  return new GraphQLError(error.detail ?? error.title, {
    extensions: { ...appErrorExtensions(error, errorsUrl, requestId), http: { status: error.status, headers: error.headers } },
  });
}

function refusal(code: ErrorCode, detail: string): AppError {
  return new AppError(code, detail);
}

/**
 * Lexes the document once, without recursion, before any parser sees it (each transport calls this first): more
 * than maxTokens tokens, or brackets nested deeper than maxNesting, is the refusal returned. Syntax errors are
 * left to the parser, which reports them with their location.
 */
export function documentRefusal(source: string | null | undefined): AppError | null {
  if (!source) return null;
  const lexer = new Lexer(new Source(source));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens += 1;
      if (tokens > limits.maxTokens) return refusal('graphql.too_many_tokens', `The document has more than ${limits.maxTokens} tokens.`);
      if (token.kind === TokenKind.BRACE_L || token.kind === TokenKind.BRACKET_L || token.kind === TokenKind.PAREN_L) {
        nesting += 1;
        if (nesting > limits.maxNesting) return refusal('graphql.depth_exceeded', `The document nests brackets more than ${limits.maxNesting} levels deep.`);
      } else if (token.kind === TokenKind.BRACE_R || token.kind === TokenKind.BRACKET_R || token.kind === TokenKind.PAREN_R) {
        nesting -= 1;
      }
    }
  } catch {
    // A lexical error: the parser reports it.
  }
  return null;
}

interface Counts {
  aliases: number;
  mutationFields: number;
}

/** Aliases in a selection set, every fragment spread counted in full (memoized, so a fragment bomb costs little to count). */
function countAliases(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, memo: Map<SelectionSetNode, number>, active: Set<SelectionSetNode>): number {
  const known = memo.get(selectionSet);
  if (known !== undefined) return known;
  if (active.has(selectionSet)) return 0; // a fragment cycle: validation refuses the document
  active.add(selectionSet);
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.alias) count += 1;
      if (selection.selectionSet) count += countAliases(selection.selectionSet, fragments, memo, active);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countAliases(selection.selectionSet, fragments, memo, active);
    } else {
      const fragment = fragments.get(selection.name.value);
      if (fragment) count += countAliases(fragment.selectionSet, fragments, memo, active);
    }
    if (count > limits.maxAliases) break;
  }
  active.delete(selectionSet);
  memo.set(selectionSet, count);
  return count;
}

/** Root fields of a mutation (each one write), through fragments. */
function countRootFields(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, depth = 0): number {
  if (depth > limits.maxNesting) return 0;
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += selection.name.value.startsWith('__') ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += countRootFields(selection.selectionSet, fragments, depth + 1);
    else {
      const fragment = fragments.get(selection.name.value);
      if (fragment) count += countRootFields(fragment.selectionSet, fragments, depth + 1);
    }
  }
  return count;
}

function selectedOperation(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | null {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName) return operations.find((op) => op.name?.value === operationName) ?? null;
  return operations.length === 1 ? operations[0] : null;
}

export interface Analysis {
  cost: number;
  mutationFields: number;
}

/**
 * The cost of the operation a request selects, from its document and variables, or the limit it breaks.
 * Returns null when the operation cannot be selected or its variables do not coerce: execution reports that.
 */
export function analyzeOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Record<string, unknown> | null | undefined,
  context: object,
): Analysis | null {
  const operation = selectedOperation(document, operationName);
  if (!operation) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const counts: Counts = {
    aliases: countAliases(operation.selectionSet, fragments, new Map(), new Set()),
    mutationFields: operation.operation === 'mutation' ? countRootFields(operation.selectionSet, fragments) : 0,
  };
  if (counts.aliases > limits.maxAliases) {
    throw refusal('graphql.too_many_aliases', `The operation has more than ${limits.maxAliases} aliased fields (fragments counted in full).`);
  }
  // The document has passed validation; its cost is that of the selected operation alone (with the fragments it may use).
  let complexity: number;
  let depth: number;
  try {
    ({ complexity, depth } = complexityFromQuery(
      { kind: Kind.DOCUMENT, definitions: [operation, ...fragments.values()] },
      { schema, ctx: context, variables: variableValues ?? {} },
    ));
  } catch (error) {
    // Variables that do not coerce: execution answers them as a request error.
    if (error instanceof GraphQLError) return null;
    throw error;
  }
  if (depth > limits.maxDepth) throw refusal('graphql.depth_exceeded', `The selection is ${depth} levels deep; at most ${limits.maxDepth}.`);
  const cost = Math.ceil(complexity) + counts.mutationFields * limits.mutationPoints;
  if (cost > limits.maxCost) {
    throw refusal('graphql.cost_exceeded', `The operation costs ${cost} points; at most ${limits.maxCost}. Ask for smaller pages (limit) or fewer relations.`);
  }
  return { cost, mutationFields: counts.mutationFields };
}

/**
 * Wraps every resolver of the schema's own object types so that what it returns is counted by the operation's
 * meter (OperationCost.count). A leaf field without a resolver (a record's own fields, read as properties, see
 * record-source.ts) stays without one, so graphql-jit reads it inline: the bytes of such fields are counted when
 * the field returning their object is, once per selection of each (aliases included), from the values the
 * object holds (propertyBytes). Introspection types are left alone: graphql-js shares them between schemas.
 */
export function meterSchema(schema: GraphQLSchema): GraphQLSchema {
  const ownTypes = Object.values(schema.getTypeMap()).filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'));
  // Per type: its leaf fields read as properties.
  const properties = new Map<string, Set<string>>();
  for (const type of ownTypes) {
    const names = Object.values(type.getFields()).filter((field) => !field.resolve && isLeafType(getNamedType(field.type))).map((field) => field.name);
    if (names.length > 0) properties.set(type.name, new Set(names));
  }
  const propertiesOf = (type: GraphQLNamedType): Set<string> | null => {
    const members = isAbstractType(type) ? schema.getPossibleTypes(type) : [type];
    const names = new Set(members.flatMap((member) => [...(properties.get(member.name) ?? [])]));
    return names.size > 0 ? names : null;
  };
  for (const type of ownTypes) {
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (!field.resolve && isLeafType(named)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      // An object the cost estimate calls free (pageInfo, part of its page) is not counted as one either.
      const kind: Counted = isLeafType(named) ? 'leaf' : field.extensions?.complexity === 0 ? 'free' : 'object';
      const read = kind === 'leaf' ? null : propertiesOf(named);
      const name = field.name;
      field.resolve = (source, args, context: GraphQLContext, info) => {
        const meter = context?.cost;
        // Once the result is refused nothing more is resolved (graphql-jit, jit.ts, takes no abort signal).
        if (meter?.exceeded) throw meter.exceeded;
        const value = resolve(source, args, context, info);
        if (!meter) return value;
        const selected = read ? selectedProperties(info, read) : null;
        if (value instanceof Promise) return value.then((resolved) => (meter.count(resolved, kind, name, selected), resolved));
        meter.count(value, kind, name, selected);
        return value;
      };
    }
  }
  return schema;
}

/** What a field returns, for the meter: leaf values (bytes), objects (counted), free objects (neither). */
type Counted = 'leaf' | 'object' | 'free';

const selectedPerField = new WeakMap<readonly FieldNode[], string[]>();

/**
 * The fields read as properties (`read`) that the selection under the resolver's field asks for, once per
 * selection (an alias is another), fragments expanded. Computed once per field of the operation.
 */
function selectedProperties(info: GraphQLResolveInfo, read: Set<string>): string[] {
  const known = selectedPerField.get(info.fieldNodes);
  if (known) return known;
  const names: string[] = [];
  eachSelectedField(info, fieldSelections(info), (field) => {
    if (!field.selectionSet && read.has(field.name.value)) names.push(field.name.value);
  });
  selectedPerField.set(info.fieldNodes, names);
  return names;
}

/** Characters of a leaf value as served, about. */
function leafBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + String(v).length, 0);
  return 8;
}

/** Characters of the selected property fields of an object (of each object of a list) as served: their names and values. */
function propertyBytes(value: unknown, selected: readonly string[]): number {
  if (Array.isArray(value)) {
    let bytes = 0;
    for (const item of value) bytes += propertyBytes(item, selected);
    return bytes;
  }
  if (value === null || typeof value !== 'object') return 0;
  let bytes = 0;
  for (const name of selected) bytes += name.length + leafBytes((value as Record<string, unknown>)[name]);
  return bytes;
}

export interface LimitsOptions {
  errorsUrl: string;
  /** Takes the operation's points (and its mutations' writes) for the caller; throws rate_limit.exceeded. */
  charge(ctx: GraphQLContext, analysis: Analysis): Promise<RateDecision | undefined>;
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
 * Subscriptions are admitted by the WebSocket server with the same operationAdmission (src/graphql/subscribe.ts).
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
      setExecuteFn(async (execArgs) => {
        const signal = (execArgs as { signal?: AbortSignal }).signal;
        try {
          return await executeFn({ ...execArgs, signal: signal ? AbortSignal.any([signal, meter.signal]) : meter.signal } as typeof execArgs);
        } catch (error) {
          if (meter.exceeded) return refuse(meter.exceeded, ctx);
          throw error;
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
