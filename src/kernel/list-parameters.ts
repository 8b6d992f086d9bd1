import { currentTenant } from './context.ts';
import { fingerprint, type CursorCodec, type CursorPayload } from './cursor.ts';
import { parseCalendarDate, parseTimestamp } from './dates.ts';
import { AppError, subjectError, type ErrorSubject } from './errors.ts';
import { isUuid } from './ids.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, type FilterSpec, type ListDeps, type ListQuery, type ListSpec, type Operator, type ValueType } from './listing.ts';
import type { CustomFieldDefinition } from './lookups.ts';
import { own } from './own.ts';
import { isStorableText, UNSTORABLE_MESSAGE } from './storable.ts';

// The parameters of a list request (the spec's cursor, limit, sort, q, filters and custom_fields[<id>]), as an
// adapter gives them (ListRequest), checked into a validated list query, and the cursor that continues a page.
// Every refusal is a 400 raised here, before any list SQL is built, naming its subject for the adapter to word.

/** One filter parameter: `column op value`; for `in`, value holds the values. */
export interface ListFilter {
  column: string;
  op: Operator;
  type: ValueType;
  value: unknown;
  /** The column is a link table's (FilterSpec.via). */
  via?: { table: string; key: string };
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

type FilterSubject = Extract<ErrorSubject, { kind: 'filter' }>;

function invalid(subject: ErrorSubject, reason: (name: string) => string): AppError {
  return subjectError('filter.invalid', subject, reason);
}

function invalidCursor(): AppError {
  return new AppError('cursor.invalid', 'The cursor cannot be decoded.');
}

/** A decimal filter value: an optional sign, up to 18 integer digits and up to 10 places (PostgreSQL compares it as numeric). */
const DECIMAL_VALUE = /^-?\d{1,18}(\.\d{1,10})?$/;

function parseValue(filter: Pick<FilterSpec, 'type' | 'values'>, raw: string, subject: FilterSubject): unknown {
  const bad = (what: string) => invalid(subject, (name) => `${name}: "${raw}" is not ${what}`);
  switch (filter.type) {
    case 'string':
      if (raw.length > 500) throw invalid(subject, (name) => `${name}: value is too long`);
      if (filter.values && !filter.values.includes(raw)) throw bad(`one of ${filter.values.join(', ')}`);
      return raw;
    case 'uuid':
      if (!isUuid(raw)) throw bad('a UUID');
      return raw;
    case 'date':
      if (!parseCalendarDate(raw)) throw bad('a calendar date (YYYY-MM-DD)');
      return raw;
    case 'datetime': {
      const d = parseTimestamp(raw);
      if (!d) throw bad('an ISO 8601 timestamp');
      return d;
    }
    case 'integer':
      if (!/^-?\d{1,18}$/.test(raw)) throw bad('an integer');
      return BigInt(raw);
    case 'decimal':
      if (!DECIMAL_VALUE.test(raw)) throw bad('a decimal number');
      return raw;
    case 'boolean':
      if (raw !== 'true' && raw !== 'false') throw bad('true or false');
      return raw === 'true';
  }
}

function customFieldFilterValue(def: CustomFieldDefinition, raw: string): unknown {
  const subject = { kind: 'custom_field', id: def.id } as const;
  const bad = () => invalid(subject, (name) => `${name}: "${raw}" is not a valid ${def.field_type} value`);
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
      throw invalid(subject, (name) => `${name}: attachment fields cannot be filtered`);
    default:
      return raw;
  }
}

/**
 * A page size: 1..maxLimit, else 400 filter.invalid (not such an integer) or pagination.limit_too_large, about the
 * page size (each adapter names it: REST limit, GraphQL first).
 */
export function pageSize(value: number | string, maxLimit: number = MAX_LIMIT): number {
  const subject = { kind: 'limit' } as const;
  const integer = typeof value === 'number' ? Number.isSafeInteger(value) : /^\d{1,6}$/.test(value);
  if (!integer || Number(value) < 1) throw invalid(subject, (name) => `${name}: "${value}" is not an integer between 1 and ${maxLimit}`);
  const limit = Number(value);
  if (limit > maxLimit) throw subjectError('pagination.limit_too_large', subject, (name) => `${name} must be at most ${maxLimit}`, { max_limit: maxLimit });
  return limit;
}

/** How a filter is written in the request's canonical entries (what a continuation cursor is bound to). */
function filterKey(field: string, op: string | undefined): string {
  return op === undefined ? field : `${field}[${op}]`;
}

const operators = new Set<string>(['eq', 'in', 'gt', 'gte', 'lt', 'lte']);

/** Text PostgreSQL cannot store (NUL, lone surrogates) in any value: 400 naming the parameter (never echoed back). */
function storable(subject: ErrorSubject, value: string | readonly string[] | undefined): void {
  const values = typeof value === 'string' ? [value] : (value ?? []);
  if (values.some((text) => !isStorableText(text))) throw invalid(subject, (name) => `${name}: ${UNSTORABLE_MESSAGE}`);
}

/** The list query of a request, or the 400 that refuses it. */
export async function parseListParameters(spec: ListSpec, query: ListQuery, deps: ListDeps): Promise<ListParameters> {
  const { request } = query;
  storable({ kind: 'cursor' }, request.cursor);
  storable({ kind: 'sort' }, request.sort);
  storable({ kind: 'q' }, request.q);
  for (const given of request.filters ?? []) storable({ kind: 'filter', field: given.field, op: given.op }, given.value);
  for (const given of request.customFields ?? []) storable({ kind: 'custom_field', id: given.id }, given.value);
  const maxLimit = query.maxLimit ?? MAX_LIMIT;
  const limit = request.limit === undefined ? DEFAULT_LIMIT : pageSize(request.limit, maxLimit);
  // What a continuation cursor is bound to: the filters, q and custom_fields, as canonical [key, value] entries.
  const boundEntries: [string, string][] = [];
  if (request.sort !== undefined && Object.keys(spec.sorts).length === 0) throw invalid({ kind: 'sort' }, (name) => `${name}: this list is not sortable`);
  const q = request.q;
  if (q !== undefined) {
    const subject = { kind: 'q' } as const;
    if (!spec.searchColumn) throw invalid(subject, (name) => `${name}: this list has no free-text search`);
    if (q.length > MAX_Q_LENGTH) throw invalid(subject, (name) => `${name}: longer than ${MAX_Q_LENGTH} characters`);
    const termCount = q.split(/\s+/).filter(Boolean).length;
    if (termCount > MAX_Q_TERMS) throw invalid(subject, (name) => `${name}: ${termCount} terms; at most ${MAX_Q_TERMS} (every term must match)`);
    boundEntries.push(['q', q]);
  }
  const filters: ListFilter[] = [];
  for (const given of request.filters ?? []) {
    const subject: FilterSubject = { kind: 'filter', field: given.field, op: given.op };
    const filter = own(spec.filters, given.field);
    if (!filter) throw invalid(subject, (name) => `unknown parameter: ${name}`);
    const op = (given.op ?? 'eq') as Operator;
    if (!operators.has(op) || !filter.ops.includes(op)) {
      throw invalid(subject, () => `${given.field}: operator ${given.op ?? '='} is not supported (allowed: ${filter.ops.join(', ')})`);
    }
    const column = filter.column ?? given.field;
    if (op === 'in') {
      const raw = typeof given.value === 'string' ? given.value.split(',') : given.value;
      const values = raw.map((v) => parseValue(filter, v, subject));
      if (values.length === 0 || values.length > 100) throw invalid(subject, (name) => `${name}: give 1 to 100 comma-separated values`);
      filters.push({ column, op, type: filter.type, value: values, via: filter.via });
      boundEntries.push([filterKey(given.field, given.op), raw.join(',')]);
    } else {
      const raw = typeof given.value === 'string' ? given.value : given.value.join(',');
      filters.push({ column, op, type: filter.type, value: parseValue(filter, raw, subject), via: filter.via });
      boundEntries.push([filterKey(given.field, given.op), raw]);
    }
  }
  for (const fixed of query.within ?? []) {
    filters.push({ column: fixed.column, op: 'eq', type: fixed.type, value: fixed.value });
    boundEntries.push([`within:${fixed.column}`, fixed.value]);
  }
  if ((request.customFields?.length ?? 0) > 0 && !spec.customFields) {
    const first = request.customFields![0];
    throw invalid({ kind: 'custom_field', id: first.id }, (name) => `unknown parameter: ${name}`);
  }
  for (const { id, value } of request.customFields ?? []) boundEntries.push([`custom_fields[${id}]`, value]);
  const customFields = request.customFields?.length ? await customFieldContainments(request.customFields, deps) : [];
  const searchTerms = q === undefined ? [] : q.toLowerCase().split(/\s+/).filter(Boolean);
  const print = fingerprint(boundEntries);
  const account = currentTenant();
  const { sort, after } =
    request.cursor !== undefined
      ? continuation(spec, await deps.cursors.decode(request.cursor, { resource: spec.resource, account, fingerprint: print }))
      : { sort: chosenSort(spec, request.sort ?? spec.defaultSort), after: null };
  return { limit, filters, customFields, searchTerms, sort, after, account, fingerprint: print };
}

/** The custom_fields[<id>] filters as containments, each value valid for its definition. */
async function customFieldContainments(customFilters: readonly { id: string; value: string }[], deps: ListDeps): Promise<Record<string, unknown>[]> {
  const definitions = (await deps.customFieldDefinitions?.()) ?? [];
  const byId = new Map(definitions.map((d) => [d.id, d]));
  return customFilters.map(({ id, value }) => {
    const def = byId.get(id);
    if (!def) throw invalid({ kind: 'custom_field', id }, (name) => `${name}: not a custom field definition of this resource`);
    return { [id]: customFieldFilterValue(def, value) };
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
  if (sort.type === 'decimal' && value !== null && (typeof value !== 'string' || !DECIMAL_VALUE.test(value))) throw invalidCursor();
  return { sort: { field: position.s, column: sort.column ?? position.s, direction: position.d }, after: { value, id: position.id } };
}

/** The cursor of the page after the one ending with `last`: the same list, sort and filters, resuming after that row. */
export function nextCursor(cursors: CursorCodec, spec: ListSpec, parameters: ListParameters, last: Record<string, unknown> & { id: string }): Promise<string> {
  const { sort } = parameters;
  const raw = last[sort.column];
  // A calendar date is kept as YYYY-MM-DD (a date column read as a Date is midnight UTC), a timestamp as epoch ms.
  // A decimal is kept as its decimal string (a numeric column may be read as a number).
  const v = spec.sorts[sort.field]?.type === 'decimal' && raw !== null && raw !== undefined ? String(raw) : raw instanceof Date ? (spec.sorts[sort.field]?.type === 'date' ? raw.toISOString().slice(0, 10) : raw.getTime()) : typeof raw === 'bigint' ? Number(raw) : (raw as string | number | boolean | null);
  return cursors.encode({ r: spec.resource, a: parameters.account, s: sort.field, d: sort.direction, v, id: last.id, f: parameters.fingerprint });
}
