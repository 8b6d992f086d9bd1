import { AppError } from '../kernel/errors.ts';

// How deeply a request's JSON may nest. V8's JSON.parse is iterative: it parses 1 MiB of `[` (half a million
// levels) without complaint, and the value then overflows the stack of whatever walks it recursively later
// (JSON.stringify of an event payload, a driver serialising jsonb, a GraphQL coercion), a RangeError that would
// answer 500. A legitimate body nests about 5 levels ({"job": {"lineitems": [{...}]}}, a multiselect custom
// field's array); anything deeper than MAX_JSON_DEPTH is refused as a whole, with 400 request.too_deep, before
// any service sees it: REST bodies in jsonBody (src/rest/gate.ts), GraphQL bodies in the transport
// (src/graphql/transport/request.ts) and values of the JSON scalar (src/graphql/schema/scalars.ts).

/** Containers (objects, arrays) inside each other: `1` is depth 0, `[]` depth 1, `{"a": [1]}` depth 2. */
export const MAX_JSON_DEPTH = 32;

function tooDeep(maxDepth: number): AppError {
  return new AppError('request.too_deep', `The JSON nests objects and arrays more than ${maxDepth} levels deep.`);
}

/**
 * The nesting depth of a parsed JSON value, counted without recursion and without going further than `limit + 1`
 * (a value deeper than the limit is not walked to its bottom).
 */
export function jsonDepth(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    const inner = depth + 1;
    if (inner > deepest) deepest = inner;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current as Record<string, unknown>)) {
      if (child !== null && typeof child === 'object') stack.push([child, inner]);
    }
  }
  return deepest;
}

/** Throws 400 request.too_deep when the parsed JSON value nests deeper than `maxDepth` (default MAX_JSON_DEPTH). */
export function assertJsonDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  if (jsonDepth(value, maxDepth) > maxDepth) throw tooDeep(maxDepth);
}

/**
 * JSON.parse for request bodies: the parsed value, or 400 request.malformed_json when the text is not JSON, or
 * 400 request.too_deep when it nests deeper than `maxDepth`.
 */
export function parseJsonRequest(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('request.malformed_json', 'The body is not valid JSON.');
  }
  assertJsonDepth(value, maxDepth);
  return value;
}
