import type { FieldComplexityValue } from '@pothos/plugin-complexity';
import { getNamedType, getNullableType, isLeafType, isListType, type GraphQLField } from 'graphql';

// The limits that keep one GraphQL operation from taking the server down or slipping past the rate limit
// (docs/graphql-limits.md). Every operation, over HTTP and over WebSocket, passes them before anything runs:
// 1. before parsing, each transport lexes the document once (documentRefusal, ../transport/document-limits.ts): more than maxTokens tokens, or
//    brackets nested deeper than maxNesting, is refused, so neither a huge nor a deeply nested document reaches
//    the recursive parser;
// 2. before executing, a variable no operation of the document declares is refused, then the operation's cost is
//    computed from the document and the variables by
//    @pothos/plugin-complexity (fields carry their cost in the schema, see fieldCost) along with its depth,
//    and its aliases and mutation fields are counted here (fragments expanded in full); over a maximum it is
//    refused (../transport/analysis.ts); otherwise its cost is taken from the key's `graphql` points bucket and each mutation field takes
//    one request from the `write` bucket REST writes use (../transport/limits.ts);
// 3. while executing, a meter counts the objects and the bytes of text actually resolved, and aborts the
//    execution past a maximum (relations that are not paginated can return more than their estimate: meter.ts).
// This file holds the numbers and the fields' prices, which the schema declares.

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
  /**
   * The cost of `__schema`, whatever it selects: the whole schema is about 2 MB of JSON and 20 ms of CPU to build,
   * which the points of its selection (one per object, no lists priced) do not say. Five dumps fit in one operation.
   */
  schemaPoints: 10_000,
  /** The cost of `__type(name:)`: one type and its fields. */
  typePoints: 100,
  /**
   * The largest answer an operation may be able to return, in characters of values, computed before it runs from
   * each field's longest value and the pages asked for (../transport/result-bound.ts). Four times maxResultBytes:
   * the bound assumes every text at its declared maximum, which real records seldom reach, and the meter still
   * holds the real answer to maxResultBytes.
   */
  maxResultBound: 64 * 1024 * 1024,
  /** Characters assumed for a JSON value in the result bound (custom fields, account modules). */
  assumedJsonChars: 4096,
  /** Characters of `__schema` in the result bound, whatever it selects (the whole schema is about 2 MB of JSON). */
  schemaChars: 2 * 1024 * 1024,
  /** Characters of `__type(name:)` in the result bound. */
  typeChars: 64 * 1024,
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

