import fc from 'fast-check';
import { addEntry, Deep, getAt, Huge, JObj, keyPositions, objectPositions, pick, positions, RawJson, Ref, renameKey, setAt, show, type JTree, type TreePath } from './json-tree.ts';
import { valueArb, type GenContext } from './openapi-arbitraries.ts';
import { nestedCollections, snake, type OpenApiModel, type Schema } from './openapi-model.ts';

// fast-check arbitraries for the MCP tools, derived from each tool's inputSchema as tools/list serves it: first
// VALID arguments (the required members, the record under the body member from its properties, ids of seeded
// records of the pool the id's description names, the current etag of that record for update/delete, a fresh
// idempotency_key), then one MUTATION of a kind (wrong types, NUL bytes, lone surrogates, huge strings, numbers at
// edges, __proto__/constructor keys, unknown members, deep nesting, arrays where objects are expected, missing
// required members, ids that are no record). Values that depend on the world when the call is sent (live ids,
// etags, idempotency keys) are Refs of a pseudo pool, resolved by mcp-request.ts; the rest is the REST fuzz's
// JSON tree (json-tree.ts), so __proto__ stays an own key and 1e999 a raw literal on the wire.

/** A tool of tools/list, as the fuzz reads it. */
export interface McpToolModel {
  name: string;
  inputSchema: Schema;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
}

/** What the arguments of a tool name, derived from its schema: the pool of `id`, a child id (linkage_id) and its pool. */
export interface ToolShape {
  tool: McpToolModel;
  properties: Record<string, Schema>;
  required: string[];
  /** The pool of records the `id` argument names ("customers", "notes", "webhooks/endpoints"). */
  idPool?: string;
  /** A second id of a record under `id` (linkage_id: a linkage of the contact): the argument and its sub-collection. */
  child?: { name: string; pool: string };
}

/** Pseudo pools of a Ref, resolved when the call is sent (mcp-request.ts). */
export const LIVE = 'live:';
export const PARENT = 'parent:';
export const ETAG = 'etag:';
export const IDEMPOTENCY_KEY = 'idempotency_key';
/** The id of the Ref after it, upper-cased. */
export const UPPER = 'upper:';

/** "Id of the tax rate (UUID v7) ..." -> "tax_rate"; undefined for any other description. */
function nounOf(schema: Schema | undefined): string | undefined {
  const match = /^Id of the ([a-z ]+?) \(/.exec(String(schema?.description ?? ''));
  return match ? match[1].replace(/ /g, '_') : undefined;
}

/** Record pool by the snake name of its class: top collections, and a nested resource's record pool (notes). */
function poolsByNoun(model: OpenApiModel): Map<string, string> {
  const pools = new Map<string, string>();
  for (const c of model.collections.values()) {
    const noun = snake(c.className);
    if (!c.parent) pools.set(noun, pools.get(noun) ?? c.name);
    else {
      const record = c.name.slice(c.name.lastIndexOf('/') + 1);
      if (nestedCollections(model, record).length > 0 && !pools.has(noun)) pools.set(noun, record);
    }
  }
  return pools;
}

export function shapeOf(model: OpenApiModel, tool: McpToolModel): ToolShape {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
  const required = (tool.inputSchema.required ?? []) as string[];
  const pools = poolsByNoun(model);
  const noun = nounOf(properties.id);
  const idPool = noun ? pools.get(noun) : undefined;
  let child: ToolShape['child'];
  for (const name of Object.keys(properties)) {
    const m = /^([a-z_]+)_id$/.exec(name);
    if (!m || !idPool) continue;
    const sub = `${idPool}/${m[1]}s`;
    if (model.collections.get(sub)?.parent === idPool) child = { name, pool: sub };
  }
  return { tool, properties, required, idPool, child };
}

// ---- valid arguments ----

/** The valid value of one argument: ids, etags and keys as Refs, the rest from its schema. */
function argumentArb(ctx: GenContext, shape: ToolShape, name: string, n: number): fc.Arbitrary<JTree> {
  const { idPool, child } = shape;
  if (name === 'id' && idPool) return fc.constant(new Ref(child ? `${PARENT}${child.pool}` : `${LIVE}${idPool}`, n));
  if (child && name === child.name) return fc.constant(new Ref(`${LIVE}${child.pool}`, n));
  if (name === 'etag' && idPool) return fc.constant(new Ref(`${ETAG}${idPool}`, n));
  if (name === IDEMPOTENCY_KEY) return fc.constant(new Ref(IDEMPOTENCY_KEY, 0));
  return valueArb(ctx, shape.properties[name], name, 1);
}

/**
 * Valid arguments: every required member and, one time in four each, the optional ones (a list's filters, an
 * action's body); the record n of the id's pool. A list's cursor is left out: it is opaque and signed, and one
 * generated from its schema would only ever be refused (the mutations still set it, as any declared argument).
 */
export function validArgs(ctx: GenContext, shape: ToolShape): fc.Arbitrary<JTree> {
  return fc.nat({ max: 40 }).chain((n) => {
    const parts = Object.keys(shape.properties)
      .filter((name) => name !== 'cursor')
      .map((name) => {
        const arb = argumentArb(ctx, shape, name, n).map((v): [string, JTree][] => [[name, v]]);
        return shape.required.includes(name) ? arb : fc.oneof({ weight: 3, arbitrary: fc.constant([] as [string, JTree][]) }, { weight: 1, arbitrary: arb });
      });
    return parts.length === 0 ? fc.constant(new JObj([])) : fc.tuple(...parts).map((lists) => new JObj(lists.flat()));
  });
}

// ---- mutations ----

export const mcpKinds = [
  'valid',
  'wrong-type',
  'nul',
  'surrogate',
  'huge-string',
  'numbers',
  'proto-keys',
  'unknown-member',
  'deep-nesting',
  'array-for-object',
  'missing-required',
  'no-record',
] as const;
export type McpKind = (typeof mcpKinds)[number];

export function kindsOf(shape: ToolShape): McpKind[] {
  return mcpKinds.filter((kind) => (kind === 'missing-required' ? shape.required.length > 0 : kind === 'no-record' ? shape.idPool !== undefined : true));
}

export interface McpPlan {
  kind: McpKind;
  /** What exactly was mutated (for the report). */
  tag: string;
  /** The arguments (an object, except where a mutation put another value in its place). */
  args: JTree;
}

const NUL = '\u0000';
const SURROGATES = ['\ud800', '\udfff', '\udc00\ud800', 'a\ud800b', '\ud83d'];
const PROTO = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];
const PROTO_VALUES: JTree[] = [new JObj([]), new JObj([['polluted', true]]), new JObj([['status', 'Inactive']]), 'x', 1, null, [], [new JObj([])]];
const WRONG: JTree[] = [0, 1, -1, 1.5, '', 'x', 'true', true, false, null, [], [1], ['x'], new JObj([]), new JObj([['a', 1]]), new JObj([['toString', 1]]), new JObj([['valueOf', 'x']])];
const NUMBERS: JTree[] = [
  new RawJson('1e999'),
  new RawJson('-1e999'),
  1e308,
  -1e308,
  new RawJson('9007199254740993'),
  new RawJson('123456789012345678901234567890'),
  -1,
  0,
  0.5,
  5e-324,
  new RawJson('-0'),
  2147483648,
  -2147483649,
  new RawJson('0.0000000000000000000001'),
  'NaN',
  'Infinity',
  '1e999',
  '0x1F',
  ' 12 ',
  '9'.repeat(400),
  '2026-02-30',
  '+275760-09-13T00:00:00Z',
];
const UNKNOWN = ['id', 'account_id', 'created_at', 'deleted_at', 'lock_version', 'etag', 'data', 'arguments', 'name', 'status', '$where', '', ' ', 'x'.repeat(300)];
const GARBAGE_IDS: JTree[] = ['', 'abc', '0', 'null', '__proto__', 'constructor', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '01900000-0000-7000-8000-00000000000g', "' OR 1=1 --", '*', '%', '../customers', 0, -1, 1e308, true, null, [], new JObj([]), new JObj([['id', 'x']])];

function insertAt(s: string, insert: string, n: number): string {
  const k = n % (s.length + 1);
  return s.slice(0, k) + insert + s.slice(k);
}

/** Value positions below the root (the arguments object itself stays an object, except for array-for-object). */
const inner = (tree: JTree) => positions(tree).slice(1);

function describe(tree: JTree, path: TreePath): string {
  let node = tree;
  const names: string[] = [];
  for (const step of path) {
    if ('entry' in step) {
      const [key, value] = (node as JObj).entries[step.entry];
      names.push(key instanceof Huge ? 'huge' : key);
      node = value;
    } else {
      names.push(`[${step.index}]`);
      node = (node as JTree[])[step.index];
    }
  }
  return names.join('.') || '(arguments)';
}

/** Puts `insert` into a string (or id) of the tree; without strings, adds a member holding it. */
function injectValue(tree: JTree, insert: string, at: number, at2: number): { tree: JTree; tag: string } {
  const strings = inner(tree).filter((p) => typeof getAt(tree, p) === 'string' || getAt(tree, p) instanceof Ref);
  const path = pick(strings, at);
  if (!path) return { tree: addEntry(tree, [], `fuzz${insert}`, `fuzz${insert}`), tag: 'new member' };
  const v = getAt(tree, path);
  const value = v instanceof Ref ? (at2 % 2 === 0 ? new Ref(v.pool, v.n, v.prefix, v.suffix + insert) : new Ref(v.pool, v.n, insert + v.prefix, v.suffix)) : insertAt(v as string, insert, at2);
  return { tree: setAt(tree, path, value), tag: `value of ${describe(tree, path)}` };
}

function injectKey(tree: JTree, insert: string, at: number, at2: number): { tree: JTree; tag: string } {
  const chosen = pick(keyPositions(tree), at);
  if (!chosen) return { tree: addEntry(tree, [], insert, 'x'), tag: 'new key' };
  return { tree: renameKey(tree, chosen.object, chosen.entry, (k) => insertAt(k, insert, at2)), tag: `key of ${describe(tree, [...chosen.object, { entry: chosen.entry }])}` };
}

function replaceSome(tree: JTree, candidates: TreePath[], value: JTree, at: number, label: string): { tree: JTree; tag: string } {
  const path = pick(candidates, at);
  if (!path) return { tree: addEntry(tree, [], 'fuzz', value), tag: `new member = ${label}` };
  return { tree: setAt(tree, path, value), tag: `${describe(tree, path)} = ${label}` };
}

const label = (v: JTree) => (typeof v === 'string' ? JSON.stringify(v.length > 12 ? `${v.slice(0, 12)}…` : v) : show(v, 40));

/**
 * Sets a declared argument (required or optional, sent or not) to `value`: valid arguments often leave the optional
 * ones out, and a mutation of what was sent alone would never reach them.
 */
function setArgument(shape: ToolShape, tree: JTree, at: number, value: JTree, what: string): { tree: JTree; tag: string } {
  const names = Object.keys(shape.properties);
  const name = pick(names, at);
  if (!name) return { tree: addEntry(tree, [], 'fuzz', value), tag: `new member = ${what}` };
  const root = tree as JObj;
  const entries: (readonly [string | Huge, JTree])[] = root.entries.some(([k]) => k === name) ? root.entries.map(([k, v]) => [k, k === name ? value : v]) : [...root.entries, [name, value]];
  return { tree: new JObj(entries), tag: `argument ${name} = ${what}` };
}

/** Drops a required argument (the body member's own required fields are left to wrong-type and the service). */
function dropRequired(shape: ToolShape, tree: JTree, at: number): { tree: JTree; tag: string } {
  const root = tree as JObj;
  const name = pick(shape.required, at)!;
  return { tree: new JObj(root.entries.filter(([k]) => k !== name)), tag: `without ${name}` };
}

/** The plans of one kind for one tool. */
export function planArbitrary(ctx: GenContext, shape: ToolShape, kind: McpKind): fc.Arbitrary<McpPlan> {
  const base = validArgs(ctx, shape);
  const plan = (f: (tree: JTree, at: number, at2: number) => { tree: JTree; tag: string }) =>
    fc.tuple(base, fc.nat(), fc.nat()).map(([tree, at, at2]): McpPlan => {
      const { tree: args, tag } = f(tree, at, at2);
      return { kind, tag, args };
    });
  switch (kind) {
    case 'valid':
      return base.map((args) => ({ kind, tag: 'valid', args }));
    case 'wrong-type':
      return plan((tree, at, at2) => {
        const value = WRONG[at2 % WRONG.length];
        return at % 3 === 0 ? setArgument(shape, tree, at2, value, label(value)) : replaceSome(tree, inner(tree), value, at, label(value));
      });
    case 'nul':
      return plan((tree, at, at2) => (at % 4 === 0 ? setArgument(shape, tree, at2, `a${NUL}b`, 'a NUL b') : at2 % 3 === 0 ? injectKey(tree, NUL, at, at2) : injectValue(tree, NUL, at, at2)));
    case 'surrogate':
      return plan((tree, at, at2) => {
        const unit = SURROGATES[at2 % SURROGATES.length];
        if (at % 4 === 0) return setArgument(shape, tree, at2, unit, JSON.stringify(unit));
        return at2 % 3 === 0 ? injectKey(tree, unit, at, at2) : injectValue(tree, unit, at, at2);
      });
    case 'huge-string':
      return plan((tree, at, at2) => {
        const huge = new Huge([256, 10_001, 100_000, 400_000][at2 % 4], ['x', 'é', '\u{1F600}', ' '][at % 4]);
        if (at2 % 5 === 4) return { tree: addEntry(tree, [], huge, 'x'), tag: `huge key ${label(huge)}` };
        if (at % 3 === 0) return setArgument(shape, tree, at2, huge, label(huge));
        const strings = inner(tree).filter((p) => typeof getAt(tree, p) === 'string' || getAt(tree, p) instanceof Ref);
        return replaceSome(tree, strings.length > 0 ? strings : inner(tree), huge, at, label(huge));
      });
    case 'numbers':
      return plan((tree, at, at2) => {
        const numeric = inner(tree).filter((p) => {
          const v = getAt(tree, p);
          return typeof v === 'number' || v instanceof RawJson || (typeof v === 'string' && /^-?\d/.test(v));
        });
        const value = NUMBERS[at2 % NUMBERS.length];
        if (at % 3 === 0) return setArgument(shape, tree, at2, value, label(value));
        return replaceSome(tree, numeric.length > 0 ? numeric : inner(tree), value, at, label(value));
      });
    case 'proto-keys':
      return plan((tree, at, at2) => {
        const key = PROTO[at % PROTO.length];
        const value = PROTO_VALUES[at2 % PROTO_VALUES.length];
        const objects = objectPositions(tree);
        const where = pick(objects, at2) ?? [];
        if (at2 % 4 === 3) {
          const chosen = pick(keyPositions(tree), at);
          if (chosen) return { tree: renameKey(tree, chosen.object, chosen.entry, () => key), tag: `${describe(tree, [...chosen.object, { entry: chosen.entry }])} renamed ${key}` };
        }
        return { tree: addEntry(tree, where, key, value), tag: `${describe(tree, where)} + ${key}: ${label(value)}` };
      });
    case 'unknown-member':
      return plan((tree, at, at2) => {
        const where = pick(objectPositions(tree), at2) ?? [];
        const key = UNKNOWN[at % UNKNOWN.length];
        return { tree: addEntry(tree, where, key, at2 % 2 === 0 ? 'x' : 1), tag: `${describe(tree, where)} + ${key.length > 20 ? 'long key' : JSON.stringify(key)}` };
      });
    case 'deep-nesting':
      return plan((tree, at, at2) => {
        const deep = new Deep([8, 31, 33, 200, 5000][at2 % 5], at2 % 2 === 0 ? 'array' : 'object');
        return replaceSome(tree, inner(tree), deep, at, label(deep));
      });
    case 'array-for-object':
      // Objects below the arguments: the arguments themselves as an array fail the SDK's CallToolRequestSchema
      // before any tool is chosen, which the raw JSON-RPC cases of the endpoint cover (mcp-raw.ts) once for all.
      return plan((tree, at, at2) => {
        const objects = objectPositions(tree).filter((p) => p.length > 0);
        const path = pick(objects.length > 0 ? objects : inner(tree), at);
        if (!path) return { tree: addEntry(tree, [], 'fuzz', [new JObj([])]), tag: 'new member = [{}]' };
        const value = getAt(tree, path);
        const replaced: JTree = at2 % 3 === 0 ? [] : at2 % 3 === 1 ? [value] : [value, value];
        return { tree: setAt(tree, path, replaced), tag: `${describe(tree, path)} as ${at2 % 3 === 0 ? '[]' : 'an array of it'}` };
      });
    case 'missing-required':
      return plan((tree, at) => dropRequired(shape, tree, at));
    case 'no-record':
      return plan((tree, at, at2) => {
        const root = tree as JObj;
        const names = root.entries.map(([k]) => k).filter((k) => k === 'id' || k === shape.child?.name);
        const name = pick(names, at) ?? 'id';
        const others = ctx.world.poolNames().filter((p) => p !== shape.idPool && !p.includes('/'));
        const choices: [string, JTree][] = [
          ['a uuid of no record', `01900000-0000-7000-8000-${String(at).padStart(12, '0').slice(-12)}`],
          ['garbage', GARBAGE_IDS[at2 % GARBAGE_IDS.length]],
          ['an id of another resource', others.length > 0 ? new Ref(`${LIVE}${pick(others, at2)!}`, at) : 'x'],
          ['upper-cased', 'upper'],
        ];
        const [what, value] = choices[at2 % choices.length];
        const current = root.entries.find(([k]) => k === name)?.[1];
        const replacement = value === 'upper' ? (current instanceof Ref ? new Ref(`${UPPER}${current.pool}`, current.n) : 'X') : value;
        const entries: (readonly [string | Huge, JTree])[] = root.entries.some(([k]) => k === name) ? root.entries.map(([k, v]) => [k, k === name ? replacement : v]) : [...root.entries, [name, replacement]];
        return { tree: new JObj(entries), tag: `${name} = ${what === 'garbage' ? label(value) : what}` };
      });
  }
}
