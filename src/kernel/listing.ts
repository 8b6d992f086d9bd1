import type { CursorCodec } from './cursor.ts';
import type { CustomFieldDefinition } from './lookups.ts';

// Lists: one parameterised SQL statement per request, always led by the tenant (account_id from the request
// context), keyset-paginated on (sort column, id), never OFFSET or COUNT. Every rule of the spec's
// "Parameters common to list endpoints" and "Rules for lists" lives in the kernel, once, for every resource:
// this file declares what a list is; list-parameters.ts turns a request's parameters into a validated list
// query, and list-sql.ts reads its page (runList).

/**
 * A filter or sort value: `date` is a calendar date (YYYY-MM-DD), `datetime` an ISO 8601 timestamp, `decimal` an exact
 * decimal number (money, quantities: compared as numeric, never as floating point).
 */
export type ValueType = 'string' | 'uuid' | 'date' | 'datetime' | 'integer' | 'decimal' | 'boolean';
export type Operator = 'eq' | 'in' | 'gt' | 'gte' | 'lt' | 'lte';

/** The operators of a range filter (created_at[gte]=...). */
export const rangeOps = ['gt', 'gte', 'lt', 'lte'] as const;

export interface FilterSpec {
  type: ValueType;
  ops: readonly Operator[];
  /** The values a string filter accepts (the field's enum); any other is refused with filter.invalid. */
  values?: readonly string[];
  /** SQL column; defaults to the filter name. */
  column?: string;
  /**
   * The column is a link table's (a child collection's, e.g. job_assets.asset_id): the filter keeps the records
   * whose id is the `key` of a link row that matches (jobs that name an asset).
   */
  via?: { table: string; key: string };
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

/**
 * A list request in the kernel's terms; each adapter builds it from its own input (REST from the query string,
 * src/rest/list-request.ts; GraphQL from its arguments). Values are text, typed by the kernel from the filter's
 * declared value type; every refusal names its subject (ErrorSubject), which the adapter words.
 */
export interface ListRequest {
  /** Page size (1 to the list's maximum); text as given (REST's query string) or a number. */
  limit?: number | string;
  cursor?: string;
  /** A sortable field, `-` first for descending. */
  sort?: string;
  q?: string;
  /** The filters given, in order. */
  filters?: readonly FilterGiven[];
  customFields?: readonly CustomFieldGiven[];
}

/** A filter of a list request: a declared filter, one of its operators (none: equality, as given without one), the value (`in`: the values). */
export interface FilterGiven {
  field: string;
  op?: string;
  value: string | readonly string[];
}

/** custom_fields[<definition id>] = value. */
export interface CustomFieldGiven {
  id: string;
  value: string;
}

/** A list request as an adapter builds it, filter by filter. */
export interface ListRequestDraft {
  limit?: number | string;
  cursor?: string;
  sort?: string;
  q?: string;
  filters: FilterGiven[];
  customFields: CustomFieldGiven[];
}

export interface ListQuery {
  request: ListRequest;
  /** Largest limit accepted (default MAX_LIMIT, the public lists' rule); a service reading a bounded window may allow more. */
  maxLimit?: number;
  /**
   * Columns every row of the list has these values in (a nested list's parent), set by the service, never by the
   * client: bound into the cursor like filters, so a cursor of one such list is refused on another.
   */
  within?: readonly { column: string; type: ValueType; value: string }[];
}

export interface ListResult<Row> {
  data: Row[];
  hasMore: boolean;
  nextCursor: string | null;
  /** The cursor that resumes the list after the row at `index` of data (GraphQL edges' cursors). */
  cursorAt(index: number): Promise<string>;
}


export interface ListDeps {
  cursors: CursorCodec;
  /** Loads the custom field definitions of the resource, only when a custom_fields filter is present. */
  customFieldDefinitions?: () => Promise<CustomFieldDefinition[]>;
}

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
