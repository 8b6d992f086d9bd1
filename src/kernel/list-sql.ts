import { nextCursor, parseListParameters, type ListParameters } from './list-parameters.ts';
import type { ListDeps, ListQuery, ListResult, ListSpec, Operator, ValueType } from './listing.ts';
import { tenantQuery, type RawRunner } from './tenant-sql.ts';
import { pageCursors } from './cursor.ts';

// The SQL of a list page: one statement built from a validated list query, scoped to the caller's account
// ($1, bound by tenantQuery), seeking past the previous page on (sort column, id) and reading limit + 1 rows
// to know whether another page follows.

const sqlOps: Record<Exclude<Operator, 'in'>, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };
const castOf: Record<ValueType, string> = { string: 'text', uuid: 'uuid', date: 'date', datetime: 'timestamptz', integer: 'bigint', decimal: 'numeric', boolean: 'boolean' };

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The statement of one page and its parameters, which are $2 onwards. */
function pageStatement(spec: ListSpec, list: ListParameters): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length + 1}::${cast}`;
  };
  const conditions: string[] = [];
  for (const { column, op, type, value, via } of list.filters) {
    const condition = op === 'in' ? `${column} = ANY(${param(value, `${castOf[type]}[]`)})` : `${column} ${sqlOps[op]} ${param(value, castOf[type])}`;
    // A link table's column (FilterSpec.via): the records some matching link row names, the tenant's rows only.
    conditions.push(via ? `id IN (SELECT ${via.key} FROM ${via.table} WHERE account_id = $1::uuid AND ${condition})` : condition);
  }
  for (const containment of list.customFields) conditions.push(`custom_fields @> ${param(JSON.stringify(containment), 'jsonb')}`);
  for (const term of list.searchTerms) conditions.push(`${spec.searchColumn} LIKE ${param(`%${escapeLike(term)}%`, 'text')}`);

  const { field, column, direction } = list.sort;
  const sort = spec.sorts[field];
  // The seek past the previous page: one condition, or, across the NULL boundary of a nullable sort, two
  // alternatives read as two index ranges (UNION ALL of two ordered, limited arms) rather than one OR, which no
  // index range serves and which would make each page cost its depth.
  let alternatives: [string, string] | null = null;
  if (list.after) {
    const cmp = direction === 'desc' ? '<' : '>';
    if (list.after.value === null) {
      // Only a nullable sort gets here (see list-parameters.ts): the last row had NULL, which sorts last ascending
      // (what follows: NULL rows after its id) and first descending (NULL rows after its id, then every non-NULL row).
      const id = param(list.after.id, 'uuid');
      if (direction === 'asc') conditions.push(`${column} IS NULL AND id > ${id}`);
      else alternatives = [`${column} IS NULL AND id < ${id}`, `${column} IS NOT NULL`];
    } else {
      const seek = `(${column}, id) ${cmp} (${param(list.after.value, castOf[sort.type])}, ${param(list.after.id, 'uuid')})`;
      // Ascending, the NULL rows of a nullable sort come after every value.
      if (sort.nullable && direction === 'asc') alternatives = [seek, `${column} IS NULL`];
      else conditions.push(seek);
    }
  }

  const where = [`account_id = $1::uuid`, ...(spec.live ? [spec.live] : []), ...conditions];
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  // NULLs sort last ascending and first descending (PostgreSQL's default, the order of a plain btree index).
  const order = `ORDER BY ${column} ${dir}, id ${dir} LIMIT ${list.limit + 1}`;
  // The sort column is read even when not served: the cursor of a page holds the last row's value.
  const columns = spec.columns.includes(column) ? spec.columns : [...spec.columns, column];
  const select = (extra: string[]) => `SELECT ${columns.join(', ')} FROM ${spec.table} WHERE ${[...where, ...extra].join(' AND ')} ${order}`;
  const sql = alternatives ? `SELECT * FROM ((${select([alternatives[0]])}) UNION ALL (${select([alternatives[1]])})) AS page ${order}` : select([]);
  return { sql, params };
}

/** A page of the list: the rows of the request's parameters (refused with a 400 when invalid) and the cursor of the next page. */
export async function runList<Row extends { id: string }>(db: RawRunner, spec: ListSpec, query: ListQuery, deps: ListDeps): Promise<ListResult<Row>> {
  const list = await parseListParameters(spec, query, deps);
  const { sql, params } = pageStatement(spec, list);
  const rows = await tenantQuery<Row & Record<string, unknown>>(db, sql, ...params);
  const hasMore = rows.length > list.limit;
  const data = hasMore ? rows.slice(0, list.limit) : rows;
  const cursorAt = pageCursors((index) => nextCursor(deps.cursors, spec, list, data[index]!));
  return { data, hasMore, nextCursor: hasMore ? await cursorAt(data.length - 1) : null, cursorAt };
}
