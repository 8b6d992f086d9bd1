import type { BatchedReadSource } from './batched-reads.ts';
import type { ChildCollections, ChildRows } from './child-collections.ts';
import type { CursorCodec } from './cursor.ts';
import { etagOf } from './etag.ts';
import { runList } from './list-sql.ts';
import type { ListQuery, ListRequest, ListResult, ListSpec } from './listing.ts';
import { customFieldDefinitions } from './lookups.ts';
import type { RecordRow } from './model-delegates.ts';
import { listSpecOf, lookupClassOf, type ResourceDefinition } from './resource.ts';
import { Projections, Single, type ListOptions, type Projection, type ReadOptions } from './served-record.ts';
import type { TenantClient, TenantTx } from './tenancy.ts';
import type { RawRunner } from './tenant-sql.ts';

// How a resource's records are read and served, for the resource service and its batched reads
// (batched-reads.ts): the projection of a read's fields, the child rows, the wire record with its ETag, and a list
// page. Reads only; the writes are the service's (resource-service.ts).

export class RecordReader implements BatchedReadSource {
  readonly listSpec: ListSpec;
  /** The `where` of live records (soft-deleted ones excluded) for Prisma. */
  readonly live: object;
  readonly db: TenantClient;
  readonly raw: RawRunner;
  private readonly projections: Projections;

  constructor(
    readonly def: ResourceDefinition,
    private readonly deps: { db: TenantClient; raw: RawRunner; cursors: CursorCodec },
    private readonly childCollections: ChildCollections,
  ) {
    this.listSpec = listSpecOf(def);
    this.projections = new Projections(def, this.listSpec);
    this.live = def.conventions.softDelete ? { deleted_at: null } : {};
    this.db = deps.db;
    this.raw = deps.raw;
  }

  /** What a read of `fields` reads and serves (made once per set of fields). */
  projection(fields: readonly string[] | undefined): Projection {
    return this.projections.of(fields);
  }

  /** Child rows of the given records, one statement per collection read whatever the number of records. */
  loadChildren(db: RawRunner, ids: readonly string[], projection: Projection): Promise<ChildRows> {
    return this.childCollections.load(db, ids, projection.children);
  }

  /** The wire record of a row with its ETag. */
  served(row: RecordRow, children: ChildRows, projection: Projection = this.projections.of(undefined)): Single {
    return new Single(projection.serializer.serialize(row, children), etagOf(row));
  }

  /** One row served (its child rows read). */
  async single(db: TenantTx | TenantClient, row: RecordRow, options: ReadOptions = {}): Promise<Single> {
    const projection = this.projection(options.fields);
    return this.served(row, await this.loadChildren(db, [row.id], projection), projection);
  }

  /** A page of the list, within fixed column values (a nested list's parent), in the caller's tenant context. */
  async list(request: ListRequest, options: ListOptions, within: ListQuery['within']): Promise<ListResult<Single>> {
    const projection = this.projection(options.fields);
    const page = await runList<RecordRow>(
      this.raw,
      projection.listSpec,
      { request, maxLimit: options.maxLimit, within },
      { cursors: this.deps.cursors, customFieldDefinitions: () => customFieldDefinitions(this.db, lookupClassOf(this.def)) },
    );
    const children = await this.loadChildren(this.raw, page.data.map((row) => row.id), projection);
    return { ...page, data: page.data.map((row) => this.served(row, children, projection)) };
  }
}
