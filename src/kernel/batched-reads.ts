import type { ChildRows } from './child-collections.ts';
import type { ListSpec } from './listing.ts';
import { modelDelegate, type RecordRow } from './model-delegates.ts';
import type { CollectionVia } from './relation.ts';
import type { ResourceDefinition } from './resource.ts';
import type { Projection, ReadOptions, Single } from './served-record.ts';
import type { TenantClient, TenantTx } from './tenancy.ts';
import { tenantQuery, type RawRunner } from './tenant-sql.ts';

// The batched reads the adapters make through a resource service (ResourceService.getMany and listBy): the
// records of many ids, or of many parents, in one statement, plus one per child collection read.

/** What a batched read takes from its resource service: the resource, its reads and how a row is served. */
export interface BatchedReadSource {
  def: ResourceDefinition;
  listSpec: ListSpec;
  /** The `where` of live records (soft-deleted ones excluded) for Prisma. */
  live: object;
  /** The service's client outside any transaction: a read through it goes to `raw` instead. */
  db: TenantClient;
  raw: RawRunner;
  /** What a read of `fields` reads and serves. */
  projection(fields: readonly string[] | undefined): Projection;
  /** Child rows of the given records, one statement per collection read. */
  loadChildren(db: RawRunner, ids: readonly string[], projection: Projection): Promise<ChildRows>;
  /** The wire record of a row with its ETag. */
  served(row: RecordRow, children: ChildRows, projection: Projection): Single;
}

/** ResourceService.getMany: live records with these ids, aligned with `ids`, null where absent. */
export async function getMany(source: BatchedReadSource, db: TenantTx | TenantClient, ids: readonly string[], options: ReadOptions = {}): Promise<(Single | null)[]> {
  // Outside a transaction the served columns are read like a list page (the raw runner: on PostgreSQL the pg pool
  // without Prisma's result mapping), which serializes to the same wire record at a fraction of the CPU.
  const unique = [...new Set(ids)];
  const projection = source.projection(options.fields);
  const rows =
    db === source.db
      ? await tenantQuery<RecordRow>(
          source.raw,
          `SELECT ${projection.columns.join(', ')} FROM ${source.def.table} WHERE account_id = $1::uuid AND id = ANY($2::uuid[])${source.listSpec.live ? ` AND ${source.listSpec.live}` : ''}`,
          unique,
        )
      : await modelDelegate(db, source.def.model).findMany({ where: { id: { in: unique }, ...source.live } });
  const children = await source.loadChildren(db, rows.map((row) => row.id), projection);
  const byId = new Map(rows.map((row) => [row.id, source.served(row, children, projection)]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** How listBy reaches and orders its records besides a column of their own (CollectionRelation.via and order). */
export interface ListByOptions {
  perKey?: number;
  via?: CollectionVia;
  order?: string;
}

/** ResourceService.listBy: live records whose `column` is one of `keys`, grouped per key in sibling order. */
export async function listBy(source: BatchedReadSource, db: TenantTx | TenantClient, column: string, keys: readonly string[], options: ReadOptions & ListByOptions = {}): Promise<Single[][]> {
  const { def, listSpec } = source;
  if (!options.via && !listSpec.columns.includes(column)) throw new Error(`${def.plural}.${column} is not a served column`);
  const projection = source.projection(options.fields);
  const live = listSpec.live ? ` AND t.${listSpec.live}` : '';
  // The key is read to group the rows, whether or not it is served: a column of the record, or of its link row.
  const key = options.via ? `l.${column}` : `t.${column}`;
  const columns = [...new Set([...projection.columns.map((c) => `t.${c}`), `${key} AS fl_group_key`])].join(', ');
  const order = options.order ?? def.siblingOrder ?? 't.created_at, t.id';
  const from = options.via
    ? `${def.table} t JOIN ${options.via.table} l ON l.account_id = t.account_id AND l.${options.via.key} = t.id`
    : `${def.table} t`;
  const where = `t.account_id = $1::uuid AND ${key} = ANY($2::uuid[])${live}`;
  const rows =
    options.perKey === undefined
      ? await tenantQuery<RecordRow>(db, `SELECT ${columns} FROM ${from} WHERE ${where} ORDER BY ${order}`, [...new Set(keys)])
      : await tenantQuery<RecordRow>(
          db,
          `SELECT * FROM (SELECT ${columns}, row_number() OVER (PARTITION BY ${key} ORDER BY ${order}) AS sibling_rank FROM ${from} WHERE ${where}) ranked WHERE sibling_rank <= $3 ORDER BY sibling_rank`,
          [...new Set(keys)],
          options.perKey,
        );
  const children = await source.loadChildren(db, [...new Set(rows.map((row) => row.id))], projection);
  const groups = new Map<string, Single[]>();
  for (const row of rows) {
    const group = String((row as Record<string, unknown>).fl_group_key);
    (groups.get(group) ?? groups.set(group, []).get(group)!).push(source.served(row, children, projection));
  }
  return keys.map((key) => groups.get(key) ?? []);
}
