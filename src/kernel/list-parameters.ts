import { currentTenant } from './context.ts';
import { fingerprint, type CursorCodec, type CursorPayload } from './cursor.ts';
import { parseCalendarDate, parseTimestamp } from './dates.ts';
import { AppError } from './errors.ts';
import { isUuid } from './ids.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, type ListDeps, type ListQuery, type ListSpec, type Operator, type ValueType } from './listing.ts';
import type { CustomFieldDefinition } from './lookups.ts';
import { own } from './own.ts';
import { assertStorableParameters } from './storable.ts';

// The parameters of a list request (the spec's cursor, limit, sort, q, filters and custom_fields[<id>]), read
// from the query string's entries into a validated list query, and the cursor that continues a page. Every
// refusal is a 400 raised here, before any list SQL is built.

/** One filter parameter: `column op value`; for `in`, value holds the values. */
export interface ListFilter {
  column: string;
  op: Operator;
  type: ValueType;
  value: unknown;
}

/** A list request as validated. */
export interface ListParameters {
  limit: number;
  /** The filter parameters, in the order given. */
  filters: ListFilter[];
  /** One containment per custom_fields[<id>] parameter: { <definition id>: value }. */
  customFields: Record<string, unknown>[];
  /** The lower-cased terms of q; each must occur in the search column. */
  searchTerms: string[];
  /** The sort (on a continuation page, the cursor's): a field of ListSpec.sorts and its column. */
  sort: { field: string; column: string; direction: 'asc' | 'desc' };
  /**
   * The page starts after this (sort value, id), the last row of the previous page; null on a first page. A
   * null value is a NULL of a nullable sort.
   */
  after: { value: unknown; id: string } | null;
  /** What a continuation cursor is bound to: the caller's account and the filters, q and custom_fields given. */
  account: string;
  fingerprint: string;
}

const MAX_Q_LENGTH = 200;
/** Every term of q must match; more terms than this are refused rather than ignored. */
const MAX_Q_TERMS = 10;
const reserved = new Set(['cursor', 'limit', 'sort', 'q']);
const operators = new Set<Operator>(['eq', 'in', 'gt', 'gte', 'lt', 'lte']);

function invalidFilter(detail: string): AppError {
  return new AppError('filter.invalid', detail);
}

function invalidCursor(): AppError {
  return new AppError('cursor.invalid', 'The cursor cannot be decoded.');
}

function parseValue(type: ValueType, raw: string, name: string): unknown {
  switch (type) {
    case 'string':
      if (raw.length > 500) throw invalidFilter(`${name}: value is too long`);
      return raw;
    case 'uuid':
      if (!isUuid(raw)) throw invalidFilter(`${name}: "${raw}" is not a UUID`);
      return raw;
    case 'date':
      if (!parseCalendarDate(raw)) throw invalidFilter(`${name}: "${raw}" is not a calendar date (YYYY-MM-DD)`);
      return raw;
    case 'datetime': {
      const d = parseTimestamp(raw);
      if (!d) throw invalidFilter(`${name}: "${raw}" is not an ISO 8601 timestamp`);
      return d;
    }
    case 'integer':
      if (!/^-?\d{1,18}$/.test(raw)) throw invalidFilter(`${name}: "${raw}" is not an integer`);
      return BigInt(raw);
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw invalidFilter(`${name}: "${raw}" is not true or false`);
      return raw === 'true';
  }
}

function customFieldFilterValue(def: CustomFieldDefinition, raw: string): unknown {
  const bad = () => invalidFilter(`custom_fields[${def.id}]: "${raw}" is not a valid ${def.field_type} value`);
  switch (def.field_type) {
    case 'checkbox':
      if (raw !== 'true' && raw !== 'false') throw bad();
      return raw === 'true';
    case 'date':
      if (!parseCalendarDate(raw)) throw bad();
      return raw;
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw bad();
      return n;
    }
    case 'select':
      if (!def.options.includes(raw)) throw bad();
      return raw;
    case 'multiselect':
      if (!def.options.includes(raw)) throw bad();
      return [raw];
    case 'attachment':
      throw invalidFilter(`custom_fields[${def.id}]: attachment fields cannot be filtered`);
    default:
      return raw;
  }
}

/**
 * A page size: 1..maxLimit, else 400 filter.invalid (not such an integer) or pagination.limit_too_large. `name` is
 * the parameter as the caller knows it (REST limit, GraphQL first).
 */
export function pageSize(value: string, maxLimit: number = MAX_LIMIT, name = 'limit'): number {
  if (!/^\d{1,6}$/.test(value) || Number(value) < 1) throw invalidFilter(`${name}: "${value}" is not an integer between 1 and ${maxLimit}`);
  const limit = Number(value);
  if (limit > maxLimit) throw new AppError('pagination.limit_too_large', `${name} must be at most ${maxLimit}`, { max_limit: maxLimit });
  return limit;
}

/** The list query of a request's parameters (query string entries, in order), or the 400 that refuses them. */
export async function parseListParameters(spec: ListSpec, query: ListQuery, deps: ListDeps): Promise<ListParameters> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let limit = DEFAULT_LIMIT;
  const maxLimit = query.maxLimit ?? MAX_LIMIT;
  let sortParam: string | undefined;
  let q: string | undefined;
  const boundEntries: [string, string][] = [];
  const filters: ListFilter[] = [];
  const customFilters: [string, string][] = [];
  // Text PostgreSQL cannot store (NUL, lone surrogates) in any parameter, name or value: 400 naming it.
  assertStorableParameters(query.entries);

  for (const [key, value] of query.entries) {
    if (seen.has(key)) throw invalidFilter(`${key}: given more than once`);
    seen.add(key);
    if (key === 'cursor') {
      cursor = value;
      continue;
    }
    if (key === 'limit') {
      limit = pageSize(value, maxLimit);
      continue;
    }
    if (key === 'sort') {
      if (Object.keys(spec.sorts).length === 0) throw invalidFilter('sort: this list is not sortable');
      sortParam = value;
      continue;
    }
    if (key === 'q') {
      if (!spec.searchColumn) throw invalidFilter('q: this list has no free-text search');
      if (value.length > MAX_Q_LENGTH) throw invalidFilter(`q: longer than ${MAX_Q_LENGTH} characters`);
      const termCount = value.split(/\s+/).filter(Boolean).length;
      if (termCount > MAX_Q_TERMS) throw invalidFilter(`q: ${termCount} terms; at most ${MAX_Q_TERMS} (every term must match)`);
      q = value;
      boundEntries.push([key, value]);
      continue;
    }
    const m = /^([a-z_]+)(?:\[([^\][]+)\])?$/.exec(key);
    if (!m) throw invalidFilter(`unknown parameter: ${key}`);
    const [, field, modifier] = m;
    if (field === 'custom_fields') {
      if (!spec.customFields || !modifier) throw invalidFilter(`unknown parameter: ${key}`);
      customFilters.push([modifier, value]);
      boundEntries.push([key, value]);
      continue;
    }
    if (reserved.has(field)) throw invalidFilter(`unknown parameter: ${key}`);
    const filter = own(spec.filters, field);
    if (!filter) throw invalidFilter(`unknown parameter: ${key}`);
    const op = (modifier ?? 'eq') as Operator;
    if (!operators.has(op) || !filter.ops.includes(op)) {
      throw invalidFilter(`${field}: operator ${modifier ?? '='} is not supported (allowed: ${filter.ops.join(', ')})`);
    }
    const column = filter.column ?? field;
    if (op === 'in') {
      const values = value.split(',').map((v) => parseValue(filter.type, v, field));
      if (values.length === 0 || values.length > 100) throw invalidFilter(`${field}[in]: give 1 to 100 comma-separated values`);
      filters.push({ column, op, type: filter.type, value: values });
    } else {
      filters.push({ column, op, type: filter.type, value: parseValue(filter.type, value, field) });
    }
    boundEntries.push([key, value]);
  }

  const customFields = customFilters.length > 0 ? await customFieldContainments(customFilters, deps) : [];
  const searchTerms = q === undefined ? [] : q.toLowerCase().split(/\s+/).filter(Boolean);
  const print = fingerprint(boundEntries);
  const account = currentTenant();
  const { sort, after } =
    cursor !== undefined
      ? continuation(spec, await deps.cursors.decode(cursor, { resource: spec.resource, account, fingerprint: print }))
      : { sort: chosenSort(spec, sortParam ?? spec.defaultSort), after: null };
  return { limit, filters, customFields, searchTerms, sort, after, account, fingerprint: print };
}

/** The custom_fields[<id>] parameters as containments, each value valid for its definition. */
async function customFieldContainments(customFilters: [string, string][], deps: ListDeps): Promise<Record<string, unknown>[]> {
  const definitions = (await deps.customFieldDefinitions?.()) ?? [];
  const byId = new Map(definitions.map((d) => [d.id, d]));
  return customFilters.map(([id, raw]) => {
    const def = byId.get(id);
    if (!def) throw invalidFilter(`custom_fields[${id}]: not a custom field definition of this resource`);
    return { [id]: customFieldFilterValue(def, raw) };
  });
}

/** The sort parameter of a first page (or the list's default): one sortable field, `-` for descending. */
function chosenSort(spec: ListSpec, chosen: string): ListParameters['sort'] {
  const names = Object.keys(spec.sorts);
  const sortable = `sortable fields: ${names.join(', ')} (prefix - for descending)`;
  if (chosen.includes(',')) throw new AppError('sort.invalid', `sort takes exactly one field; ${sortable}`);
  const descending = chosen.startsWith('-');
  const field = descending ? chosen.slice(1) : chosen;
  const sort = own(spec.sorts, field);
  if (!sort) throw new AppError('sort.invalid', `unknown sort field "${field}"; ${sortable}`);
  return { field, column: sort.column ?? field, direction: descending ? 'desc' : 'asc' };
}

/** Where a continuation page starts, from its decoded cursor: its ordering (a sort given with it is ignored) and position. */
function continuation(spec: ListSpec, position: CursorPayload): Pick<ListParameters, 'sort' | 'after'> {
  const sort = own(spec.sorts, position.s);
  const nullAllowed = sort?.nullable === true && position.v === null;
  if (!sort || (position.d !== 'asc' && position.d !== 'desc') || ((position.v === null || position.v === undefined) && !nullAllowed)) throw invalidCursor();
  if (!isUuid(position.id)) throw invalidCursor();
  const value = position.v !== null && sort.type === 'datetime' ? new Date(Number(position.v)) : position.v;
  if (value instanceof Date && Number.isNaN(value.getTime())) throw invalidCursor();
  if (sort.type === 'date' && value !== null && (typeof value !== 'string' || !parseCalendarDate(value))) throw invalidCursor();
  return { sort: { field: position.s, column: sort.column ?? position.s, direction: position.d }, after: { value, id: position.id } };
}

/** The cursor of the page after the one ending with `last`: the same list, sort and filters, resuming after that row. */
export function nextCursor(cursors: CursorCodec, spec: ListSpec, parameters: ListParameters, last: Record<string, unknown> & { id: string }): Promise<string> {
  const { sort } = parameters;
  const raw = last[sort.column];
  // A calendar date is kept as YYYY-MM-DD (a date column read as a Date is midnight UTC), a timestamp as epoch ms.
  const v = raw instanceof Date ? (spec.sorts[sort.field]?.type === 'date' ? raw.toISOString().slice(0, 10) : raw.getTime()) : typeof raw === 'bigint' ? Number(raw) : (raw as string | number | boolean | null);
  return cursors.encode({ r: spec.resource, a: parameters.account, s: sort.field, d: sort.direction, v, id: last.id, f: parameters.fingerprint });
}
