import fc from 'fast-check';
import {
  addEntry,
  Deep,
  getAt,
  Huge,
  JObj,
  keyPositions,
  objectPositions,
  pick,
  positions,
  RawJson,
  Ref,
  renameKey,
  Repeat,
  setAt,
  type JTree,
  type TreePath,
} from './json-tree.ts';
import { collectionOfField, lookupHint, poolOfPath, type FuzzOperation, type OpenApiModel, type ParamModel, type Schema } from './openapi-model.ts';

// fast-check arbitraries derived from the OpenAPI document: first a VALID request of an operation (path ids of
// seeded records, documented query parameters, a body built from the requestBody schema with its required
// fields, formats, enums, bounds, the resource-named wrapper key, ids of real records for <class>_id fields and
// the tenant's statuses, labels and custom fields where a description points at them), then one MUTATION of a
// kind (wrong types, NUL bytes, lone surrogates, hostile numbers, 100 KB strings, prototype keys, unknown
// fields, repeated and bracketed query parameters, deep nesting, empty and malformed bodies, wrong media types,
// garbage ids and headers). A generated value is a Plan: small and printable; ids, ETags, huge strings and deep
// nestings are materialised only when the request is sent (fuzz-request.ts).

// ---- what the generator needs to know of the seeded world ----

export interface CustomFieldDef {
  id: string;
  related_name: string;
  field_type: string;
  options: string[];
}

export interface WorldView {
  /** display_name values of a lookup (statuses, labels) for a class. */
  lookupValues(lookup: string, className: string): string[];
  customFields(className: string): CustomFieldDef[];
  userIds(): number[];
  /** A real continuation cursor of a list, if the seeded data gave one. */
  cursor(collection: string): string | undefined;
  /** Names of the pools that hold seeded records. */
  poolNames(): string[];
}

export interface GenContext {
  model: OpenApiModel;
  world: WorldView;
}

// ---- the plan of one request ----

export type PathChoice =
  /** A live record of the parameter's pool; prefix/suffix wrap its id; upper: the id upper-cased. */
  | { live: number; prefix?: string; suffix?: string; upper?: boolean }
  /** A live record of another pool (an id of the wrong resource). */
  | { other: string; n: number }
  /** A literal path segment: `encode` percent-encodes it (NUL, surrogates), otherwise it is sent as written (%ZZ). */
  | { raw: string | Huge; encode: boolean };

export type QValue = string | Ref | Huge;
export interface QEntry {
  name: string | Huge;
  value: QValue;
}

export type AuthPlan = 'valid' | 'none' | { raw: string | Huge } | { template: 'lowercase-scheme' | 'double-space' | 'trailing-text' | 'uppercased-token' };
export type IfMatchPlan = 'current' | 'none' | { raw: string | Huge } | { template: 'strong' | 'padded' | 'list' | 'lowercase-w' };

export interface HeaderPlan {
  auth: AuthPlan;
  ifMatch: IfMatchPlan;
  version?: string;
  requestId?: string;
  /** The Idempotency-Key of a financial create (a fresh valid key, sometimes left out or malformed). */
  idempotencyKey?: string;
  accept?: string;
  /** undefined: application/json when there is a body; null: no Content-Type header. */
  contentType?: string | null;
  contentEncoding?: string;
}

export type BodyPlan =
  | { type: 'none' }
  | { type: 'json'; tree: JTree }
  /** A literal body text. */
  | { type: 'text'; text: string }
  /** A valid body's JSON text, then corrupted (`how`, at a position chosen by `at`). */
  | { type: 'corrupt'; tree: JTree; how: Corruption; at: number }
  /** A multipart/form-data body of these parts, cut after `truncate` bytes when set (an upload that stops). */
  | { type: 'multipart'; parts: MultipartPart[]; truncate?: number };

/**
 * A part of a multipart/form-data body (attachment uploads): a file part when it has a filename. Hostile names
 * (directories, control characters, quotes, 300 characters) and types the bytes contradict are among the choices.
 */
export interface MultipartPart {
  name: string;
  filename?: string;
  type?: string;
  data: string;
}

export interface Plan {
  kind: Kind;
  /** What exactly was mutated (input kind detail, for the failure report). */
  tag: string;
  path: Record<string, PathChoice>;
  query: QEntry[];
  headers: HeaderPlan;
  body: BodyPlan;
}

type Base = Omit<Plan, 'kind' | 'tag'>;

export const kinds = [
  'valid',
  'wrong-type',
  'nul',
  'surrogate',
  'numbers',
  'huge-string',
  'proto-keys',
  'unknown-field',
  'query-repeat',
  'query-brackets',
  'deep-nesting',
  'empty-body',
  'content-type',
  'malformed-json',
  'path-id',
  'headers',
] as const;
export type Kind = (typeof kinds)[number];

/** The mutation kinds that apply to an operation (body kinds need a body; GET requests cannot carry one). */
export function kindsFor(op: FuzzOperation): Kind[] {
  return kinds.filter((kind) => {
    switch (kind) {
      case 'wrong-type':
      case 'empty-body':
        return op.body !== undefined;
      case 'content-type':
      case 'malformed-json':
        // A client may send a body to any non-GET operation: documented or not, it must be refused or ignored.
        return op.method !== 'GET' && op.method !== 'HEAD';
      case 'path-id':
        return op.pathParams.length > 0;
      default:
        return true;
    }
  });
}

// ---- valid values from schemas ----

const MAX_DEPTH = 5;
const MAX_STRING = 24;

const text = (minLength = 0, maxLength = MAX_STRING): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: 'grapheme' }) },
  );

const dateArb = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const dateTimeArb = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const emailArb = fc.stringMatching(/^[a-z0-9]{1,12}$/).map((local) => `${local}@example.test`);

function refArb(pool: string): fc.Arbitrary<Ref> {
  return fc.nat({ max: 40 }).map((n) => new Ref(pool, n));
}

function uuidArb(ctx: GenContext, name: string | undefined): fc.Arbitrary<JTree> {
  const pool = name ? collectionOfField(ctx.model, name) : undefined;
  if (!pool) return fc.uuid();
  return fc.oneof({ weight: 6, arbitrary: refArb(pool) }, { weight: 1, arbitrary: fc.uuid() });
}

function customFieldValue(def: CustomFieldDef): fc.Arbitrary<JTree> {
  switch (def.field_type) {
    case 'number':
      return fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }));
    case 'date':
      return dateArb;
    case 'checkbox':
      return fc.boolean();
    case 'select':
      return def.options.length ? fc.constantFrom(...def.options) : text();
    case 'multiselect':
      return fc.subarray(def.options);
    default:
      return text();
  }
}

function customFieldsArb(ctx: GenContext, className: string | undefined, nullable: boolean): fc.Arbitrary<JTree> {
  const defs = className ? ctx.world.customFields(className).filter((d) => d.field_type !== 'attachment') : [];
  if (defs.length === 0) return fc.constant(new JObj([]));
  const model: Record<string, fc.Arbitrary<JTree>> = {};
  for (const def of defs) {
    const value = customFieldValue(def);
    model[def.id] = nullable ? fc.oneof({ weight: 5, arbitrary: value }, { weight: 1, arbitrary: fc.constant(null) }) : value;
  }
  return fc.record(model, { requiredKeys: [] }).map((rec) => new JObj(Object.entries(rec) as [string, JTree][]));
}

function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.additionalProperties) return ['object'];
  if (schema.items) return ['array'];
  return ['string', 'number', 'boolean'];
}

/** A valid value of a schema. `name` is the property or parameter name (it tells which pool an id comes from). */
export function valueArb(ctx: GenContext, schemaIn: Schema | undefined, name: string | undefined, depth = 0): fc.Arbitrary<JTree> {
  const schema = ctx.model.resolve(schemaIn);
  if (schema.const !== undefined) return fc.constant(schema.const as JTree);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((s) => valueArb(ctx, s, name, depth + 1)));
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...(schema.enum as JTree[]));
  const types = typesOf(schema);
  const concrete = types.filter((t) => t !== 'null');
  const base: fc.Arbitrary<JTree> = concrete.length === 0 ? fc.constant(null) : fc.oneof(...concrete.map((t) => typedArb(ctx, schema, t, name, depth)));
  return types.includes('null') ? fc.oneof({ weight: 5, arbitrary: base }, { weight: 1, arbitrary: fc.constant(null) }) : base;
}

function typedArb(ctx: GenContext, schema: Schema, type: string, name: string | undefined, depth: number): fc.Arbitrary<JTree> {
  switch (type) {
    case 'string': {
      const hint = lookupHint(schema.description);
      if (hint && hint.lookup !== 'custom_field_definitions') {
        const values = ctx.world.lookupValues(hint.lookup, hint.className);
        if (values.length > 0) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: text() });
      }
      switch (schema.format) {
        case 'uuid':
          return uuidArb(ctx, name);
        case 'date':
          return dateArb;
        case 'date-time':
          return dateTimeArb;
        case 'email':
          return emailArb;
      }
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' });
      const max = Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING);
      return text(Math.min(schema.minLength ?? 0, max), max);
    }
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER);
      const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
      const anyInt = fc.integer({ min: Math.max(min, -2_000_000_000), max: Math.min(max, 2_000_000_000) });
      if (name && /(^|_)(user|assignee)_id$/.test(name)) return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ctx.world.userIds()) }, { weight: 1, arbitrary: anyInt });
      return anyInt;
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array': {
      const hint = lookupHint(schema.description);
      const maxLength = Math.min(schema.maxItems ?? 2, 2);
      if (hint && hint.lookup !== 'custom_field_definitions') {
        const values = ctx.world.lookupValues(hint.lookup, hint.className);
        if (values.length > 0) return fc.oneof({ weight: 4, arbitrary: fc.subarray(values) }, { weight: 1, arbitrary: fc.array(text(), { maxLength }) });
      }
      if (depth > MAX_DEPTH) return fc.constant([]);
      const singular = name?.replace(/s$/, '');
      return fc.array(valueArb(ctx, schema.items, singular, depth + 1), { minLength: Math.min(schema.minItems ?? 0, maxLength), maxLength });
    }
    case 'object':
      return objectArb(ctx, schema, depth);
    default:
      return fc.constant(null);
  }
}

function objectArb(ctx: GenContext, schema: Schema, depth: number): fc.Arbitrary<JTree> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(properties);
  if (names.length === 0) {
    const additional = schema.additionalProperties;
    if (!additional || typeof additional !== 'object') return fc.constant(new JObj([]));
    const hint = lookupHint(schema.description);
    if (hint?.lookup === 'custom_field_definitions') return customFieldsArb(ctx, hint.className, JSON.stringify(additional).includes('"null"'));
    return fc
      .dictionary(fc.string({ minLength: 1, maxLength: 8 }), valueArb(ctx, additional, undefined, depth + 1), { maxKeys: 2 })
      .map((rec) => new JObj(Object.entries(rec) as [string, JTree][]));
  }
  const required = new Set<string>((schema.required ?? []) as string[]);
  const immutable = new Set<string>((schema['x-immutable'] ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<[string, JTree][]>> = {};
  const requiredKeys: string[] = [];
  const done = new Set<string>();
  for (const name of names) {
    if (done.has(name) || immutable.has(name)) continue;
    if (depth > MAX_DEPTH && !required.has(name)) continue;
    // A polymorphic pair <p>_type (enum of class names) + <p>_id: the id comes from the pool of the chosen class.
    const pair = /^(.+)_type$/.exec(name);
    const typeSchema = ctx.model.resolve(properties[name]);
    const idName = pair ? `${pair[1]}_id` : undefined;
    if (pair && idName && properties[idName] && Array.isArray(typeSchema.enum) && !immutable.has(idName)) {
      done.add(name).add(idName);
      const classes = typeSchema.enum as string[];
      model[name] = fc
        .tuple(fc.constantFrom(...classes), fc.nat({ max: 40 }), fc.oneof({ weight: 8, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), fc.uuid())
        .map(([cls, n, real, uuid]) => {
          const pool = ctx.model.collectionOfClass.get(cls);
          return [
            [name, cls],
            [idName, pool && real ? new Ref(pool, n) : uuid],
          ];
        });
      if (required.has(name) || required.has(idName)) requiredKeys.push(name);
      continue;
    }
    done.add(name);
    model[name] = valueArb(ctx, properties[name], name, depth + 1).map((v) => [[name, v]]);
    if (required.has(name)) requiredKeys.push(name);
  }
  // An optional field is sent one time in four, so that updates usually change a few fields.
  const parts = Object.entries(model).map(([name, arb]) =>
    requiredKeys.includes(name) ? arb : fc.oneof({ weight: 3, arbitrary: fc.constant([] as [string, JTree][]) }, { weight: 1, arbitrary: arb }),
  );
  if (parts.length === 0) return fc.constant(new JObj([]));
  return fc.tuple(...parts).map((lists) => new JObj(lists.flat()));
}

// ---- query, path and headers of a valid request ----

function asQueryValue(value: JTree): QValue {
  if (value instanceof Ref || value instanceof Huge) return value;
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function paramEntries(ctx: GenContext, op: FuzzOperation, param: ParamModel): fc.Arbitrary<QEntry[]> {
  if (param.style === 'deepObject' || (ctx.model.resolve(param.schema).type === 'object' && !param.name.includes('['))) {
    const hint = lookupHint(param.description);
    const defs = hint ? ctx.world.customFields(hint.className).filter((d) => d.field_type !== 'attachment') : [];
    if (defs.length === 0) return fc.uuid().map((id) => [{ name: `${param.name}[${id}]`, value: 'x' }]);
    return fc
      .subarray(defs, { minLength: 1, maxLength: 2 })
      .chain((chosen) => fc.tuple(...chosen.map((def) => customFieldValue(def).map((v): QEntry => ({ name: `${param.name}[${def.id}]`, value: asQueryValue(Array.isArray(v) ? (v[0] ?? 'x') : v) })))));
  }
  if (param.name === 'cursor') {
    const cursor = ctx.world.cursor(op.collection);
    return cursor ? fc.constant([{ name: 'cursor', value: cursor }]) : fc.base64String({ maxLength: 40 }).map((c) => [{ name: 'cursor', value: c }]);
  }
  const list = /^(.+)\[in\]$/.exec(param.name);
  if (list) {
    const base = op.queryParams.find((p) => p.name === list[1]);
    const item = valueArb(ctx, base?.schema ?? { type: 'string' }, list[1]);
    return fc.array(item, { minLength: 1, maxLength: 3 }).map((values) => {
      const refs = values.filter((v): v is Ref => v instanceof Ref);
      // An [in] list of ids keeps one real id (a Ref) and joins the others as literal values.
      if (refs.length > 0) return [{ name: param.name, value: refs[0] }];
      return [{ name: param.name, value: values.map((v) => String(asQueryValue(v))).join(',') }];
    });
  }
  const base = /^(.+)\[[a-z]+\]$/.exec(param.name)?.[1] ?? param.name;
  return valueArb(ctx, param.schema, base).map((v) => [{ name: param.name, value: asQueryValue(v) }]);
}

function queryArb(ctx: GenContext, op: FuzzOperation): fc.Arbitrary<QEntry[]> {
  const parts = op.queryParams.map((p) => fc.oneof({ weight: 4, arbitrary: fc.constant([] as QEntry[]) }, { weight: 1, arbitrary: paramEntries(ctx, op, p) }));
  if (parts.length === 0) return fc.constant([]);
  return fc.tuple(...parts).map((lists) => lists.flat());
}

/** The pool the path parameter `name` of an operation names: the list path in front of it. */
export function poolOfPathParam(ctx: GenContext, op: FuzzOperation, name: string): string | undefined {
  return poolOfPath(ctx.model, op.path, name);
}

function pathArb(op: FuzzOperation): fc.Arbitrary<Record<string, PathChoice>> {
  const model: Record<string, fc.Arbitrary<PathChoice>> = {};
  for (const p of op.pathParams) {
    model[p.name] = fc.oneof(
      { weight: 9, arbitrary: fc.nat({ max: 40 }).map((n): PathChoice => ({ live: n })) },
      { weight: 1, arbitrary: fc.uuid().map((u): PathChoice => ({ raw: u, encode: true })) },
    );
  }
  return fc.record(model);
}

function versionValues(op: FuzzOperation): string[] {
  const param = op.headerParams.find((p) => p.name.toLowerCase() === 'fieldline-version');
  return ((param?.schema.enum ?? []) as string[]).filter((v) => typeof v === 'string');
}

function headersArb(op: FuzzOperation): fc.Arbitrary<HeaderPlan> {
  const versions = versionValues(op);
  const requestIdParam = op.headerParams.find((p) => p.name.toLowerCase() === 'x-request-id');
  const requestId = typeof requestIdParam?.schema.pattern === 'string' ? fc.stringMatching(new RegExp(requestIdParam.schema.pattern), { size: 'xsmall' }) : fc.constant(undefined);
  const keyParam = op.headerParams.find((p) => p.name.toLowerCase() === 'idempotency-key' && p.required);
  // Mostly a fresh valid key, so the body's mutations reach validation; sometimes none or one with a space.
  const idempotencyKey = keyParam
    ? fc.oneof({ weight: 8, arbitrary: fc.uuid() }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant('not a key') })
    : fc.constant(undefined);
  return fc.record({
    auth: fc.constant<AuthPlan>('valid'),
    ifMatch: fc.constant<IfMatchPlan>(op.ifMatch ? 'current' : 'none'),
    version: versions.length ? fc.option(fc.constantFrom(...versions), { nil: undefined, freq: 2 }) : fc.constant(undefined),
    requestId: fc.option(requestId, { nil: undefined, freq: 2 }),
    idempotencyKey,
  });
}

/** The bytes of a 1x1 PNG, as latin1 text (a multipart part carries them unchanged). */
const PNG_BYTES = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64').toString('latin1');

/** Multipart bodies: mostly one file part, sometimes none, several, fields only, or cut short. */
function multipartArb(): fc.Arbitrary<BodyPlan> {
  const filename = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('a.txt', 'photo.png', 'doc.pdf', 'é ü.txt', '../../etc/passwd', '..\\..\\x.png', '.hidden', '', 'a'.repeat(300), 'q"uote.txt', 'semi;colon.txt') },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
  const part = fc.record(
    {
      name: fc.constantFrom('file', 'upload', 'x', ''),
      filename: fc.option(filename, { nil: undefined, freq: 6 }),
      type: fc.option(fc.constantFrom('text/plain', 'image/png', 'application/pdf', 'application/octet-stream', 'text/html', 'image/*', '', 'nonsense'), { nil: undefined, freq: 4 }),
      data: fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 64 }) }, { weight: 1, arbitrary: fc.constantFrom(PNG_BYTES, '%PDF-1.4\n%%EOF\n', '') }),
    },
    { requiredKeys: ['name', 'data'] },
  );
  const oneFile = part.map((p) => ({ ...p, filename: p.filename ?? 'file.txt' }));
  return fc
    .tuple(
      fc.oneof({ weight: 6, arbitrary: oneFile.map((p) => [p]) }, { weight: 3, arbitrary: fc.array(part, { maxLength: 3 }) }),
      fc.option(fc.nat({ max: 400 }), { nil: undefined, freq: 6 }),
    )
    .map(([parts, truncate]): BodyPlan => ({ type: 'multipart', parts, truncate }));
}

function bodyArb(ctx: GenContext, op: FuzzOperation): fc.Arbitrary<BodyPlan> {
  if (!op.body) return fc.constant({ type: 'none' });
  if (op.body.contentTypes[0] === 'multipart/form-data') return multipartArb();
  const tree = valueArb(ctx, op.body.schema, undefined, 0).map((t): BodyPlan => ({ type: 'json', tree: t }));
  // An optional body is sometimes left out.
  return op.body.required ? tree : fc.oneof({ weight: 4, arbitrary: tree }, { weight: 1, arbitrary: fc.constant<BodyPlan>({ type: 'none' }) });
}

function baseArb(ctx: GenContext, op: FuzzOperation): fc.Arbitrary<Base> {
  return fc.record({ path: pathArb(op), query: queryArb(ctx, op), headers: headersArb(op), body: bodyArb(ctx, op) });
}

// ---- mutations ----

const NUL = '\u0000';
const SURROGATES = ['\ud800', '\udfff', '\udc00\ud800', 'a\ud800b', '\ud83d'];
const PROTO = ['__proto__', 'constructor', 'prototype'];
const PROTO_VALUES: JTree[] = [new JObj([]), new JObj([['polluted', true]]), new JObj([['status', 'Inactive']]), 'x', 1, null, [], [new JObj([])]];
const WRONG: JTree[] = [0, 1, -1, 1.5, '', 'x', 'true', '1', true, false, null, [], [1], ['x'], [null], new JObj([]), new JObj([['a', 1]]), new JObj([['id', 'x']])];
const NUMBERS: JTree[] = [
  new RawJson('1e999'),
  new RawJson('-1e999'),
  1e308,
  -1e308,
  new RawJson('9007199254740993'),
  new RawJson('123456789012345678901234567890'),
  -1,
  -0.5,
  0.5,
  0.1,
  1e-7,
  5e-324,
  new RawJson('-0'),
  2147483648,
  -2147483649,
  4294967296,
  new RawJson('1E+2'),
  new RawJson('0.0000000000000000000001'),
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '0x1F',
  '1_000',
  ' 12 ',
  '',
  '١٢٣',
  '12abc',
  '9'.repeat(400),
  '-',
  '.5',
  '5.',
  '+5',
  '1,5',
  '-0',
  // Dates and timestamps that look right and are not.
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '+275760-09-13',
  '-000001-01-01',
  '2026-01-01T25:00:00Z',
  '2026-01-01T00:00:00+99:00',
  '2026-01-01T00:00:60Z',
  '20260101',
];
const NUMBER_STRINGS = [
  '-1',
  '0',
  '1.5',
  '1e308',
  '1e999',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '1_0',
  ' 5',
  '5 ',
  '+5',
  '',
  '9'.repeat(40),
  '١٠',
  '5abc',
  '2147483648',
  '-9223372036854775809',
  '1e-400',
  '2026-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '-271821-04-19T00:00:00Z',
  '2026-01-01T00:00:00+99:00',
  '1700000000000',
];
const PATH_NUMBERS = ['-1', '0', '1', '1e308', 'NaN', 'Infinity', '1.5', '9'.repeat(40), '-0'];
const GARBAGE_IDS = [
  'abc',
  '0',
  'null',
  'undefined',
  'true',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  '%00',
  '%ZZ',
  '%',
  '%2F',
  '%5C',
  '%20',
  '%09',
  '%F0%9F%98%80',
  '%ED%A0%80',
  '%C3%28',
  '%FF',
  '%E2%80%AE',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-0000-0000-000000000000',
  '{01900000-0000-7000-8000-000000000001}',
  '019000000000700080000000000000001',
  '01900000-0000-7000-8000-00000000000g',
  '01900000-0000-7000-8000-0000000000011',
  "'%20OR%201=1%20--",
  '%27%3B%20DROP%20TABLE%20customers%3B--',
  '%EF%BB%BF01900000-0000-7000-8000-000000000001',
  '$1',
  '*',
  '%2A',
];
const CONTENT_TYPES: (string | null)[] = [
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  '*/*',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/json, text/plain',
  'application/json;;',
  'application/',
  ';',
  'application/json; charset="utf-8"',
  'application/json; charset=utf-8; boundary=x',
];
const CONTENT_ENCODINGS = ['gzip', 'deflate', 'br', 'identity', 'gzip, gzip', 'x-bogus', 'zstd'];
export const corruptions = [
  'truncate',
  'append-brace',
  'single-quotes',
  'bom',
  'prefix-garbage',
  'nan-literal',
  'trailing-comma',
  'comment',
  'concatenated',
  'bad-escape',
  'raw-control-char',
  'invalid-utf8',
  'unterminated-string',
  'duplicate-wrapper',
] as const;
export type Corruption = (typeof corruptions)[number];
const BRACKET_OPS = ['in', 'gt', 'gte', 'lt', 'lte', 'eq', 'ne', 'like', 'ilike', 'contains', '', 'IN', ' in', 'in][in', 'gt][', '0', '-1', 'constructor', '__proto__', 'in]', '[in'];
const UNKNOWN_KEYS = ['id', 'account_id', 'created_at', 'updated_at', 'deleted_at', 'lock_version', 'etag', 'data', 'errors', 'type', 'status', 'number', 'seq', 'search_text', '$where', '$ne'];

/** The body tree a mutation works on: the valid body, or {} for an operation without one. */
function treeOf(base: Base): JTree {
  return base.body.type === 'json' ? base.body.tree : new JObj([]);
}

function insertAt(s: string, insert: string, n: number): string {
  const k = n % (s.length + 1);
  return s.slice(0, k) + insert + s.slice(k);
}

/** Puts `insert` into the string (or id) at a position of the tree; without strings, replaces a position. */
function injectIntoBodyValue(tree: JTree, insert: string, at: number, at2: number): JTree {
  const strings = positions(tree).filter((p) => {
    const v = getAt(tree, p);
    return typeof v === 'string' || v instanceof Ref;
  });
  const path = pick(strings, at);
  if (!path) return setAt(tree, pick(positions(tree), at) ?? [], `fuzz${insert}`);
  const v = getAt(tree, path);
  if (v instanceof Ref) return setAt(tree, path, at2 % 2 === 0 ? new Ref(v.pool, v.n, v.prefix, v.suffix + insert) : new Ref(v.pool, v.n, insert + v.prefix, v.suffix));
  return setAt(tree, path, insertAt(v as string, insert, at2));
}

function injectIntoBodyKey(tree: JTree, insert: string, at: number, at2: number): JTree {
  const keys = keyPositions(tree);
  const chosen = pick(keys, at);
  if (!chosen) return addEntry(tree, [], insert, 'x');
  return renameKey(tree, chosen.object, chosen.entry, (k) => insertAt(k, insert, at2));
}

/** A documented query parameter to carry a hostile value (the first non-object one, by `at`), or an unknown one. */
function someQueryName(op: FuzzOperation, at: number): string {
  const names = op.queryParams.filter((p) => p.style !== 'deepObject').map((p) => p.name);
  return pick(names, at) ?? 'fuzz';
}

function injectIntoQueryValue(op: FuzzOperation, query: QEntry[], insert: string, at: number, at2: number): QEntry[] {
  const entry = pick(query, at);
  if (!entry) return [...query, { name: someQueryName(op, at), value: insertAt('a', insert, at2) }];
  const value = entry.value instanceof Ref ? new Ref(entry.value.pool, entry.value.n, entry.value.prefix, entry.value.suffix + insert) : entry.value instanceof Huge ? entry.value : insertAt(entry.value, insert, at2);
  return query.map((e) => (e === entry ? { name: e.name, value } : e));
}

function injectIntoQueryName(op: FuzzOperation, query: QEntry[], insert: string, at: number, at2: number): QEntry[] {
  const entry = pick(query, at);
  if (!entry || entry.name instanceof Huge) return [...query, { name: insertAt(someQueryName(op, at), insert, at2), value: '1' }];
  const name = insertAt(entry.name as string, insert, at2);
  return query.map((e) => (e === entry ? { name, value: e.value } : e));
}

function injectIntoPath(op: FuzzOperation, path: Record<string, PathChoice>, insert: string, at: number, at2: number): Record<string, PathChoice> {
  const name = pick(op.pathParams, at)!.name;
  const choice: PathChoice = at2 % 3 === 0 ? { raw: insert, encode: true } : at2 % 3 === 1 ? { live: at, suffix: insert } : { live: at, prefix: insert };
  return { ...path, [name]: choice };
}

type Target = 'body-value' | 'body-key' | 'query-value' | 'query-name' | 'path';

function stringTargets(op: FuzzOperation): Target[] {
  const targets: Target[] = [];
  if (op.body) targets.push('body-value', 'body-key');
  targets.push('query-value', 'query-name');
  if (op.pathParams.length > 0) targets.push('path');
  return targets;
}

/** NUL bytes and lone surrogates: the same places, different characters. */
function injection(op: FuzzOperation, base: fc.Arbitrary<Base>, kind: Kind, units: string[]): fc.Arbitrary<Plan> {
  return fc.tuple(base, fc.constantFrom(...stringTargets(op)), fc.constantFrom(...units), fc.nat(), fc.nat()).map(([b, target, unit, at, at2]): Plan => {
    const plan: Plan = { ...b, kind, tag: target };
    switch (target) {
      case 'body-value':
        return { ...plan, body: { type: 'json', tree: injectIntoBodyValue(treeOf(b), unit, at, at2) } };
      case 'body-key':
        return { ...plan, body: { type: 'json', tree: injectIntoBodyKey(treeOf(b), unit, at, at2) } };
      case 'query-value':
        return { ...plan, query: injectIntoQueryValue(op, b.query, unit, at, at2) };
      case 'query-name':
        return { ...plan, query: injectIntoQueryName(op, b.query, unit, at, at2) };
      case 'path':
        return { ...plan, path: injectIntoPath(op, b.path, unit, at, at2) };
    }
  });
}

function label(v: JTree): string {
  if (v instanceof RawJson) return v.text;
  if (typeof v === 'string') return JSON.stringify(v.length > 12 ? `${v.slice(0, 12)}…` : v);
  return JSON.stringify(v) ?? String(v);
}

function numericPositions(tree: JTree): TreePath[] {
  const numeric = positions(tree).filter((p) => {
    const v = getAt(tree, p);
    return typeof v === 'number' || v instanceof RawJson || (typeof v === 'string' && /^-?\d/.test(v));
  });
  return numeric.length ? numeric : positions(tree).slice(1);
}

/** Every kind's generator of plans for one operation. */
export function planArbitrary(ctx: GenContext, op: FuzzOperation, kind: Kind): fc.Arbitrary<Plan> {
  const base = baseArb(ctx, op);
  const wrapper = op.body?.wrapperKey;
  const json = (tree: JTree): BodyPlan => ({ type: 'json', tree });
  switch (kind) {
    case 'valid':
      return base.map((b) => ({ ...b, kind, tag: 'valid' }));

    case 'wrong-type':
      return fc.tuple(base, fc.nat(), fc.constantFrom(...WRONG)).map(([b, at, value]) => {
        const tree = treeOf(b);
        const all = positions(tree);
        const path = pick(all.length > 1 ? all.slice(1) : all, at)!;
        return { ...b, kind, tag: path.length === 0 ? 'body-root' : path.length === 1 ? 'wrapper-value' : 'body-value', body: json(setAt(tree, path, value)) };
      });

    case 'nul':
      return injection(op, base, kind, [NUL, `a${NUL}`, `${NUL}${NUL}`]);

    case 'surrogate':
      return injection(op, base, kind, SURROGATES);

    case 'numbers': {
      const targets: ('body' | 'query' | 'path')[] = [...(op.body ? ['body' as const] : []), 'query', ...(op.pathParams.length ? ['path' as const] : [])];
      return fc.tuple(base, fc.constantFrom(...targets), fc.nat(), fc.constantFrom(...NUMBERS), fc.constantFrom(...NUMBER_STRINGS), fc.constantFrom(...PATH_NUMBERS)).map(([b, target, at, number, numberString, pathNumber]): Plan => {
        if (target === 'body') {
          const tree = treeOf(b);
          const path = pick(numericPositions(tree), at) ?? [];
          return { ...b, kind, tag: `body:${label(number)}`, body: json(setAt(tree, path, number)) };
        }
        if (target === 'query') {
          const numericParams = op.queryParams.filter((p) => ['integer', 'number'].includes(ctx.model.resolve(p.schema).type) || /\[(gt|gte|lt|lte)\]$/.test(p.name));
          const name = pick(numericParams, at)?.name ?? someQueryName(op, at);
          return { ...b, kind, tag: `query:${name.replace(/^.*\[/, '[')}=${numberString}`, query: [...b.query.filter((e) => e.name !== name), { name, value: numberString }] };
        }
        const param = pick(op.pathParams, at)!.name;
        return { ...b, kind, tag: `path:${pathNumber}`, path: { ...b.path, [param]: { raw: pathNumber, encode: true } } };
      });
    }

    case 'huge-string': {
      const targets = [...(op.body ? ['body-value', 'body-key', 'body-over-limit', 'body-array-10k'] : []), 'query-value', 'query-value-2k', ...(op.pathParams.length ? ['path'] : [])];
      return fc.tuple(base, fc.constantFrom(...targets), fc.constantFrom('a', 'é', '😀', NUL, ' ', '\\'), fc.nat()).map(([b, target, unit, at]): Plan => {
        const tree = treeOf(b);
        switch (target) {
          case 'body-value': {
            const strings = positions(tree).filter((p) => typeof getAt(tree, p) === 'string' || getAt(tree, p) instanceof Ref);
            const path = pick(strings.length ? strings : positions(tree), at)!;
            return { ...b, kind, tag: 'body-value-100KB', body: json(setAt(tree, path, new Huge(100_000, unit))) };
          }
          case 'body-key': {
            const objects = objectPositions(tree);
            const object = pick(objects, at) ?? [];
            return { ...b, kind, tag: 'body-key-100KB', body: json(addEntry(tree, object, new Huge(100_000, unit === NUL ? 'k' : unit), 'x')) };
          }
          case 'body-over-limit': {
            const path = pick(positions(tree), at)!;
            return { ...b, kind, tag: 'body-over-1MiB', body: json(setAt(tree, path, new Huge(1_100_000, 'a'))) };
          }
          case 'body-array-10k': {
            // Many entries where an array (lineitems, labels) or anything else stands: a copy of an array's first element.
            const arrays = positions(tree).filter((p) => Array.isArray(getAt(tree, p)) && (getAt(tree, p) as JTree[]).length > 0);
            const path = pick(arrays, at) ?? pick(positions(tree), at)!;
            const current = getAt(tree, path);
            const element = Array.isArray(current) && current.length > 0 ? current[0] : 'x';
            return { ...b, kind, tag: 'body-array-10k', body: json(setAt(tree, path, new Repeat(10_000, element))) };
          }
          case 'query-value': {
            // 100 KB is beyond Node's 16 KB header limit: what does the client get then?
            const name = someQueryName(op, at);
            return { ...b, kind, tag: 'query-value-100KB', query: [...b.query, { name, value: new Huge(100_000, unit) }] };
          }
          case 'query-value-2k': {
            // 2,000 characters (at most 12 KB percent-encoded): far beyond q's and the filters' bounds, below Node's limit.
            const name = someQueryName(op, at);
            return { ...b, kind, tag: 'query-value-2k', query: [...b.query.filter((e) => e.name !== name), { name, value: new Huge(2_000, unit) }] };
          }
          default: {
            // ASCII, so the request line stays below Node's header limit and the app itself answers.
            const param = pick(op.pathParams, at)!.name;
            return { ...b, kind, tag: 'path-10KB', path: { ...b.path, [param]: { raw: new Huge(10_000, 'a'), encode: true } } };
          }
        }
      });
    }

    case 'proto-keys': {
      const targets = [...(op.body ? ['body-add', 'body-rename'] : []), 'query-name', 'query-value'];
      return fc.tuple(base, fc.constantFrom(...targets), fc.constantFrom(...PROTO), fc.constantFrom(...PROTO_VALUES), fc.nat(), fc.nat()).map(([b, target, proto, value, at, at2]): Plan => {
        const tree = treeOf(b);
        if (target === 'body-add') {
          const object = pick(objectPositions(tree), at) ?? [];
          const v = wrapper && object.length === 0 && at2 % 3 === 0 ? new JObj([[wrapper, value]]) : value;
          return { ...b, kind, tag: `body-key:${proto}`, body: json(addEntry(tree, object, proto, v)) };
        }
        if (target === 'body-rename') {
          const chosen = pick(keyPositions(tree), at);
          return { ...b, kind, tag: `body-key-rename:${proto}`, body: json(chosen ? renameKey(tree, chosen.object, chosen.entry, () => proto) : addEntry(tree, [], proto, value)) };
        }
        const documented = op.queryParams.map((p) => p.name.replace(/\[.*$/, ''));
        const names = [proto, `${proto}[in]`, `${proto}[gt]`, `custom_fields[${proto}]`, `custom_fields[${proto}][in]`, `${pick(documented, at) ?? 'x'}[${proto}]`, `${proto}[${proto}]`];
        if (target === 'query-name') return { ...b, kind, tag: `query-name:${proto}`, query: [...b.query, { name: pick(names, at2)!, value: typeof value === 'string' ? value : '1' }] };
        const name = pick(['sort', 'related_name', 'q', ...op.queryParams.map((p) => p.name)], at) ?? 'sort';
        return { ...b, kind, tag: `query-value:${proto}`, query: [...b.query.filter((e) => e.name !== name), { name, value: at2 % 2 ? `-${proto}` : proto }] };
      });
    }

    case 'unknown-field': {
      const targets = [...(op.body ? ['body'] : []), 'query'];
      const key = fc.oneof(fc.constantFrom(...UNKNOWN_KEYS), fc.string({ minLength: 1, maxLength: 12 }), fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme' }));
      const pools = ctx.world.poolNames();
      const value = fc.oneof(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JTree>, pools.length ? fc.tuple(fc.constantFrom(...pools), fc.nat({ max: 40 })).map(([p, n]) => new Ref(p, n) as JTree) : fc.constant<JTree>(null));
      return fc.tuple(base, fc.constantFrom(...targets), key, value, fc.nat()).map(([b, target, k, v, at]): Plan => {
        if (target === 'body') {
          const tree = treeOf(b);
          const object = pick(objectPositions(tree), at) ?? [];
          return { ...b, kind, tag: object.length === 0 ? 'body-root' : 'body-nested', body: json(addEntry(tree, object, k, v)) };
        }
        return { ...b, kind, tag: 'query', query: [...b.query, { name: k, value: v instanceof Ref ? v : typeof v === 'string' ? v : JSON.stringify(v) ?? '' }] };
      });
    }

    case 'query-repeat':
      return fc.tuple(base, fc.nat(), fc.constantFrom('x', '', '1', 'a,b', '-created_at', 'true')).chain(([b, at, other]) => {
        const params = op.queryParams.filter((p) => p.style !== 'deepObject');
        const param = pick(params, at);
        if (!param) return fc.constant<Plan>({ ...b, kind, tag: 'unknown', query: [...b.query, { name: 'x', value: '1' }, { name: 'x', value: '2' }] });
        return paramEntries(ctx, op, param).map((entries): Plan => {
          const first = entries[0];
          return { ...b, kind, tag: param.name.replace(/^.*\[/, '['), query: [...b.query.filter((e) => e.name !== param.name), first, { name: first.name, value: at % 2 ? first.value : other }] };
        });
      });

    case 'query-brackets': {
      const bases = [...new Set(op.queryParams.map((p) => p.name.replace(/\[.*$/, ''))), 'id', 'account_id', 'deleted_at', 'foo', ''];
      const values = fc.oneof(fc.constantFrom('', ',', 'a,b', ','.repeat(200), 'a,'.repeat(150), '2026-01-01T00:00:00Z', '01900000-0000-7000-8000-000000000001', 'true', '1'), fc.string({ maxLength: 12 }));
      return fc.tuple(base, fc.constantFrom(...bases), fc.constantFrom(...BRACKET_OPS), fc.nat({ max: 6 }), values).map(([b, name, bop, form, value]): Plan => {
        const forms = [`${name}[${bop}]`, `[${bop}]`, `${name}[`, `${name}]`, `${name}[][]`, `${name}[${bop}][${bop}]`, `${name}[${bop}]=`];
        const qname = forms[form];
        return { ...b, kind, tag: `form${form}:[${bop}]`, query: [...b.query, { name: qname, value }] };
      });
    }

    case 'deep-nesting': {
      const targets = [...(op.body ? ['body-value', 'body-root', 'wrapper-value'] : []), 'query-name'];
      return fc.tuple(base, fc.constantFrom(...targets), fc.constantFrom(5_000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object'), fc.nat()).map(([b, target, depth, shape, at]): Plan => {
        const tree = treeOf(b);
        const deep = new Deep(depth, shape);
        switch (target) {
          case 'body-root':
            return { ...b, kind, tag: `body-root:${shape}`, body: json(deep) };
          case 'wrapper-value':
            return { ...b, kind, tag: `wrapper-value:${shape}`, body: json(new JObj([[wrapper ?? 'x', deep]])) };
          case 'body-value': {
            const all = positions(tree);
            const path = pick(all.length > 1 ? all.slice(1) : all, at)!;
            return { ...b, kind, tag: `body-value:${shape}`, body: json(setAt(tree, path, deep)) };
          }
          default: {
            const name = `${pick(op.queryParams, at)?.name.replace(/\[.*$/, '') ?? 'custom_fields'}${'[a]'.repeat(1_000)}`;
            return { ...b, kind, tag: 'query-name:1000-brackets', query: [...b.query, { name, value: '1' }] };
          }
        }
      });
    }

    case 'empty-body': {
      const key = wrapper ?? 'x';
      const variants: [string, BodyPlan, string | null | undefined][] = [
        ['no-body', { type: 'none' }, undefined],
        ['no-body-json-type', { type: 'none' }, 'application/json'],
        ['empty-string', { type: 'text', text: '' }, 'application/json'],
        ['whitespace', { type: 'text', text: ' \n\t ' }, 'application/json'],
        ['null', { type: 'text', text: 'null' }, undefined],
        ['[]', { type: 'text', text: '[]' }, undefined],
        ['{}', { type: 'text', text: '{}' }, undefined],
        ['0', { type: 'text', text: '0' }, undefined],
        ['"x"', { type: 'text', text: '"x"' }, undefined],
        ['true', { type: 'text', text: 'true' }, undefined],
        ['wrapper-null', { type: 'text', text: JSON.stringify({ [key]: null }) }, undefined],
        ['wrapper-[]', { type: 'text', text: JSON.stringify({ [key]: [] }) }, undefined],
        ['wrapper-string', { type: 'text', text: JSON.stringify({ [key]: 'x' }) }, undefined],
        ['wrapper-{}', { type: 'text', text: JSON.stringify({ [key]: {} }) }, undefined],
        ['wrapper-number', { type: 'text', text: JSON.stringify({ [key]: 1 }) }, undefined],
      ];
      return fc.tuple(base, fc.constantFrom(...variants)).map(([b, [tag, body, contentType]]) => ({ ...b, kind, tag, body, headers: { ...b.headers, contentType } }));
    }

    case 'content-type':
      return fc.tuple(base, fc.nat({ max: CONTENT_TYPES.length + CONTENT_ENCODINGS.length - 1 })).map(([b, i]): Plan => {
        const body = json(treeOf(b));
        if (i < CONTENT_TYPES.length) return { ...b, kind, tag: `content-type:${CONTENT_TYPES[i] ?? '(none)'}`, body, headers: { ...b.headers, contentType: CONTENT_TYPES[i] } };
        const encoding = CONTENT_ENCODINGS[i - CONTENT_TYPES.length];
        return { ...b, kind, tag: `content-encoding:${encoding}`, body, headers: { ...b.headers, contentEncoding: encoding } };
      });

    case 'malformed-json':
      return fc.tuple(base, fc.constantFrom(...corruptions), fc.nat()).map(([b, how, at]) => ({ ...b, kind, tag: how, body: { type: 'corrupt', tree: treeOf(b), how, at } }));

    case 'path-id': {
      const pools = [...ctx.model.collections.values()].filter((c) => c.readable).map((c) => c.name);
      const variants = fc.oneof(
        fc.uuid().map((u) => ({ tag: 'random-uuid', choice: { raw: u, encode: true } as PathChoice })),
        fc.uuid({ version: 7 }).map((u) => ({ tag: 'random-uuid-v7', choice: { raw: u, encode: true } as PathChoice })),
        fc.nat({ max: 40 }).map((n) => ({ tag: 'uppercased-live-id', choice: { live: n, upper: true } as PathChoice })),
        fc.tuple(fc.constantFrom(...pools), fc.nat({ max: 40 })).map(([pool, n]) => ({ tag: 'id-of-another-resource', choice: { other: pool, n } as PathChoice })),
        fc.constantFrom(...GARBAGE_IDS).map((g) => ({ tag: `garbage:${g}`, choice: { raw: g, encode: false } as PathChoice })),
        fc.tuple(fc.nat({ max: 40 }), fc.constantFrom(' ', 'x', '0', '\t', '\n', '%', '.json')).map(([n, s]) => ({ tag: `live-id+${JSON.stringify(s)}`, choice: { live: n, suffix: s } as PathChoice })),
      );
      return fc.tuple(base, variants, fc.nat()).map(([b, v, at]) => {
        const param = pick(op.pathParams, at)!.name;
        return { ...b, kind, tag: `${param}:${v.tag}`, path: { ...b.path, [param]: v.choice } };
      });
    }

    case 'headers': {
      const ifMatch: [string, IfMatchPlan][] = [
        ['none', 'none'],
        ['*', { raw: '*' }],
        ['stale', { raw: 'W/"1-0"' }],
        ['zero', { raw: 'W/"0-0"' }],
        ['quoted-garbage', { raw: '"abc"' }],
        ['garbage', { raw: 'abc' }],
        ['W/', { raw: 'W/' }],
        ['quote', { raw: '"' }],
        ['overflow', { raw: 'W/"99999999999999999-99999999999"' }],
        ['exponent', { raw: 'W/"1e3-1"' }],
        ['negative', { raw: 'W/"-1--1"' }],
        ['unsafe-integer', { raw: 'W/"9007199254740993-0"' }],
        ['8KB', { raw: new Huge(8_000, '9') }],
        ['strong', { template: 'strong' }],
        ['padded', { template: 'padded' }],
        ['list', { template: 'list' }],
        ['lowercase-w', { template: 'lowercase-w' }],
      ];
      const auth: [string, AuthPlan][] = [
        ['none', 'none'],
        ['Bearer', { raw: 'Bearer' }],
        ['Bearer-space', { raw: 'Bearer ' }],
        ['svc_', { raw: 'Bearer svc_' }],
        ['svc_garbage', { raw: 'Bearer svc_garbage' }],
        ['svc_unknown-uuid', { raw: 'Bearer svc_01900000-0000-7000-8000-000000000001' }],
        ['basic', { raw: 'Basic dXNlcjpwYXNz' }],
        ['8KB-token', { raw: new Huge(8_000, 'a') }],
        ['lowercase-scheme', { template: 'lowercase-scheme' }],
        ['double-space', { template: 'double-space' }],
        ['trailing-text', { template: 'trailing-text' }],
        ['uppercased-token', { template: 'uppercased-token' }],
      ];
      const versions = ['', ' ', 'latest', '2026-04-31', '2026-13-01', '0000-00-00', '2026-04-30,2026-04-30', '2026-04-30 ', 'x'.repeat(1_000), '9999-99-99', '__proto__'];
      const requestIds = ['', 'a'.repeat(1_000), 'has space', '../../etc/passwd', '<script>', 'tab\there', '__proto__'];
      const accepts = ['application/xml', 'text/html', '*/*;q=0', 'application/problem+json', ''];
      return fc.tuple(base, fc.nat({ max: 4 }), fc.nat()).map(([b, which, at]): Plan => {
        switch (which) {
          case 0: {
            const [tag, plan] = pick(ifMatch, at)!;
            return { ...b, kind, tag: `if-match:${tag}`, headers: { ...b.headers, ifMatch: plan } };
          }
          case 1: {
            const [tag, plan] = pick(auth, at)!;
            return { ...b, kind, tag: `authorization:${tag}`, headers: { ...b.headers, auth: plan } };
          }
          case 2: {
            const version = pick(versions, at)!;
            return { ...b, kind, tag: `fieldline-version:${version.length > 20 ? `${version.length} chars` : JSON.stringify(version)}`, headers: { ...b.headers, version } };
          }
          case 3: {
            const requestId = pick(requestIds, at)!;
            return { ...b, kind, tag: `x-request-id:${requestId.length > 20 ? `${requestId.length} chars` : JSON.stringify(requestId)}`, headers: { ...b.headers, requestId } };
          }
          default: {
            const accept = pick(accepts, at)!;
            return { ...b, kind, tag: `accept:${JSON.stringify(accept)}`, headers: { ...b.headers, accept } };
          }
        }
      });
    }
  }
}

