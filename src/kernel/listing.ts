import { AppError } from './errors.ts';
import { currentTenant } from './context.ts';
import { CursorCodec, fingerprint, type CursorPayload } from './cursor.ts';
import { parseCalendarDate, parseTimestamp } from './dates.ts';
import { isUuid } from './ids.ts';
import { own } from './own.ts';
import { assertStorableParameters } from './storable.ts';
import type { CustomFieldDefinition } from './lookups.ts';

// Lists: one parameterised SQL statement per request, always led by the tenant (account_id from the request
// context), keyset-paginated on (sort column, id), never OFFSET or COUNT. Every rule of the spec's
// "Parameters common to list endpoints" and "Rules for lists" lives here, once, for every resource.

export type ValueType = 'string' | 'uuid' | 'datetime' | 'integer' | 'boolean';
export type Operator = 'eq' | 'in' | 'gt' | 'gte' | 'lt' | 'lte';

/** The operators of a range filter (created_at[gte]=...). */
export const rangeOps = ['gt', 'gte', 'lt', 'lte'] as const;

export interface FilterSpec {
  type: ValueType;
  ops: readonly Operator[];
  /** SQL column; defaults to the filter name. */
  column?: string;
}

export interface SortSpec {
  type: Exclude<ValueType, 'boolean'>;
  column?: string;
  /**
   * The column may be NULL (e.g. jobs.scheduled_start). Such rows come last in ascending and first in descending
   * order (PostgreSQL's own order, which a plain (account_id, column, id) index serves both ways), and the
   * keyset seeks across the boundary between NULL and non-NULL values.
   */
  nullable?: boolean;
}

export interface ListSpec {
  /** Name bound into cursors (a cursor of one list is invalid on another). */
  resource: string;
  table: string;
  /** Selected columns, SQL-safe identifiers. */
  columns: readonly string[];
  /** Extra condition for live rows, e.g. deleted_at IS NULL. */
  live?: string;
  filters: Record<string, FilterSpec>;
  /** Sortable fields; empty means the list is not sortable. */
  sorts: Record<string, SortSpec>;
  defaultSort: string;
  /** Column holding the lower-cased searchable text; absent means q is not accepted. */
  searchColumn?: string;
  /** Related name of the custom field definitions filterable with custom_fields[<id>]. */
  customFields?: boolean;
}

export interface ListQuery {
  entries: [string, string][];
  /** Largest limit accepted (default MAX_LIMIT, the public lists' rule); a service reading a bounded window may allow more. */
  maxLimit?: number;
}

export interface ListResult<Row> {
  data: Row[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface RawQueryable {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
const MAX_Q_LENGTH = 200;
/** Every term of q must match; more terms than this are refused rather than ignored. */
const MAX_Q_TERMS = 10;
const reserved = new Set(['cursor', 'limit', 'sort', 'q']);
const operators = new Set<Operator>(['eq', 'in', 'gt', 'gte', 'lt', 'lte']);
const sqlOps: Record<Exclude<Operator, 'in' | 'eq'>, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };
const castOf: Record<ValueType, string> = { string: 'text', uuid: 'uuid', datetime: 'timestamptz', integer: 'bigint', boolean: 'boolean' };

function invalidFilter(detail: string): AppError {
  return new AppError('filter.invalid', detail);
}

function parseValue(type: ValueType, raw: string, name: string): unknown {
  switch (type) {
    case 'string':
      if (raw.length > 500) throw invalidFilter(`${name}: value is too long`);
      return raw;
    case 'uuid':
      if (!isUuid(raw)) throw invalidFilter(`${name}: "${raw}" is not a UUID`);
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

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export interface ListDeps {
  cursors: CursorCodec;
  /** Loads the custom field definitions of the resource, only when a custom_fields filter is present. */
  customFieldDefinitions?: () => Promise<CustomFieldDefinition[]>;
}

export async function runList<Row extends { id: string }>(
  db: RawQueryable,
  spec: ListSpec,
  query: ListQuery,
  deps: ListDeps,
): Promise<ListResult<Row>> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let limit = DEFAULT_LIMIT;
  const maxLimit = query.maxLimit ?? MAX_LIMIT;
  let sortParam: string | undefined;
  let q: string | undefined;
  const boundEntries: [string, string][] = [];
  const conditions: string[] = [];
  const params: unknown[] = [currentTenant()];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length}::${cast}`;
  };
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
      if (!/^\d{1,6}$/.test(value) || Number(value) < 1) throw invalidFilter(`limit: "${value}" is not an integer between 1 and ${maxLimit}`);
      limit = Number(value);
      if (limit > maxLimit) {
        throw new AppError('pagination.limit_too_large', `limit must be at most ${maxLimit}`, { max_limit: maxLimit });
      }
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
    const cast = castOf[filter.type];
    if (op === 'eq') {
      conditions.push(`${column} = ${param(parseValue(filter.type, value, field), cast)}`);
    } else if (op === 'in') {
      const values = value.split(',').map((v) => parseValue(filter.type, v, field));
      if (values.length === 0 || values.length > 100) throw invalidFilter(`${field}[in]: give 1 to 100 comma-separated values`);
      conditions.push(`${column} = ANY(${param(values, `${cast}[]`)})`);
    } else {
      conditions.push(`${column} ${sqlOps[op]} ${param(parseValue(filter.type, value, field), cast)}`);
    }
    boundEntries.push([key, value]);
  }

  if (customFilters.length > 0) {
    const definitions = (await deps.customFieldDefinitions?.()) ?? [];
    const byId = new Map(definitions.map((d) => [d.id, d]));
    for (const [id, raw] of customFilters) {
      const def = byId.get(id);
      if (!def) throw invalidFilter(`custom_fields[${id}]: not a custom field definition of this resource`);
      conditions.push(`custom_fields @> ${param(JSON.stringify({ [id]: customFieldFilterValue(def, raw) }), 'jsonb')}`);
    }
  }

  if (q !== undefined) {
    const terms = q.toLowerCase().split(/\s+/).filter(Boolean);
    for (const term of terms) conditions.push(`${spec.searchColumn} LIKE ${param(`%${escapeLike(term)}%`, 'text')}`);
  }

  const print = fingerprint(boundEntries);
  const account = String(params[0]);
  let sortField: string;
  let direction: 'asc' | 'desc';
  let position: CursorPayload | null = null;
  if (cursor !== undefined) {
    // Continuation pages keep the cursor's ordering; a sort given with them is ignored.
    position = await deps.cursors.decode(cursor, { resource: spec.resource, account, fingerprint: print });
    const nullAllowed = own(spec.sorts, position.s)?.nullable === true && position.v === null;
    if (!own(spec.sorts, position.s) || (position.d !== 'asc' && position.d !== 'desc') || ((position.v === null || position.v === undefined) && !nullAllowed)) {
      throw new AppError('cursor.invalid', 'The cursor cannot be decoded.');
    }
    sortField = position.s;
    direction = position.d;
  } else {
    const chosen = sortParam ?? spec.defaultSort;
    const names = Object.keys(spec.sorts);
    const sortable = `sortable fields: ${names.join(', ')} (prefix - for descending)`;
    if (chosen.includes(',')) throw new AppError('sort.invalid', `sort takes exactly one field; ${sortable}`);
    const descending = chosen.startsWith('-');
    sortField = descending ? chosen.slice(1) : chosen;
    if (!own(spec.sorts, sortField)) throw new AppError('sort.invalid', `unknown sort field "${sortField}"; ${sortable}`);
    direction = descending ? 'desc' : 'asc';
  }
  const sort = spec.sorts[sortField];
  const sortColumn = sort.column ?? sortField;
  // The seek past the previous page: one condition, or, across the NULL boundary of a nullable sort, two
  // alternatives read as two index ranges (UNION ALL of two ordered, limited arms) rather than one OR, which no
  // index range serves and which would make each page cost its depth.
  let alternatives: [string, string] | null = null;
  if (position) {
    const cmp = direction === 'desc' ? '<' : '>';
    if (!isUuid(position.id)) throw new AppError('cursor.invalid', 'The cursor cannot be decoded.');
    if (position.v === null) {
      // Only a nullable sort gets here (checked above): the last row had NULL, which sorts last ascending (what
      // follows: NULL rows after its id) and first descending (NULL rows after its id, then every non-NULL row).
      const id = param(position.id, 'uuid');
      if (direction === 'asc') conditions.push(`${sortColumn} IS NULL AND id > ${id}`);
      else alternatives = [`${sortColumn} IS NULL AND id < ${id}`, `${sortColumn} IS NOT NULL`];
    } else {
      const value = sort.type === 'datetime' ? new Date(Number(position.v)) : position.v;
      if (sort.type === 'datetime' && Number.isNaN((value as Date).getTime())) throw new AppError('cursor.invalid', 'The cursor cannot be decoded.');
      const seek = `(${sortColumn}, id) ${cmp} (${param(value, castOf[sort.type])}, ${param(position.id, 'uuid')})`;
      // Ascending, the NULL rows of a nullable sort come after every value.
      if (sort.nullable && direction === 'asc') alternatives = [seek, `${sortColumn} IS NULL`];
      else conditions.push(seek);
    }
  }

  const where = [`account_id = $1::uuid`, ...(spec.live ? [spec.live] : []), ...conditions];
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  // NULLs sort last ascending and first descending (PostgreSQL's default, the order of a plain btree index).
  const order = `ORDER BY ${sortColumn} ${dir}, id ${dir} LIMIT ${limit + 1}`;
  const select = (extra: string[]) => `SELECT ${spec.columns.join(', ')} FROM ${spec.table} WHERE ${[...where, ...extra].join(' AND ')} ${order}`;
  if (alternatives && !spec.columns.includes(sortColumn)) throw new Error(`nullable sort ${sortField} of ${spec.resource}: its column must be selected`);
  const sql = alternatives ? `SELECT * FROM ((${select([alternatives[0]])}) UNION ALL (${select([alternatives[1]])})) AS page ${order}` : select([]);
  const rows = await db.$queryRawUnsafe<(Row & Record<string, unknown>)[]>(sql, ...params);
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  let nextCursor: string | null = null;
  if (hasMore) {
    const last = data[data.length - 1];
    const raw = last[sortColumn];
    const v = raw instanceof Date ? raw.getTime() : typeof raw === 'bigint' ? Number(raw) : (raw as string | number | boolean | null);
    nextCursor = await deps.cursors.encode({ r: spec.resource, a: account, s: sortField, d: direction, v, id: last.id, f: print });
  }
  return { data, hasMore, nextCursor };
}
