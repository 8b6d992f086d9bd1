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
function assertJsonDepth(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  if (jsonDepth(value, maxDepth) > maxDepth) throw tooDeep(maxDepth);
}

/**
 * The most values a request's JSON may separate (object members and array entries, counted by the commas between
 * them). A body of 1 MiB holds 40,000 members (`"k1":"x",...`), which cost 50 ms to parse and as much again for
 * every walk of the value afterwards; the largest legitimate one (a job of 500 lines, a replay of 1,000 event ids)
 * holds a few thousand.
 */
export const MAX_JSON_VALUES = 10_000;

/** Whether the JSON text has at least `limit` commas outside its strings: a scan of the text, before it is parsed. */
function separatesAtLeast(text: string, limit: number): boolean {
  let commas = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c && ++commas >= limit) return true;
  }
  return false;
}

/**
 * JSON.parse for request bodies (REST bodies, GraphQL bodies and their GET parameters): the parsed value; 413
 * request.body_too_large when the text separates more than MAX_JSON_VALUES values (found by a scan before
 * parsing); 400 request.malformed_json when the text is not JSON; 400 request.too_deep when it nests deeper than
 * `maxDepth`.
 */
export function parseJsonRequest(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (separatesAtLeast(text, MAX_JSON_VALUES)) {
    throw new AppError('request.body_too_large', `The JSON holds more than ${MAX_JSON_VALUES} values (object members and array entries).`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError('request.malformed_json', 'The body is not valid JSON.');
  }
  assertJsonDepth(value, maxDepth);
  return value;
}
