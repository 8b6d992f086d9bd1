import * as batched from './batched-reads.ts';
import { ChildCollections } from './child-collections.ts';
import type { Clock } from './clock.ts';
import { runAsTenant, type RequestContext } from './context.ts';
import type { CursorCodec } from './cursor.ts';
import { AppError, notFound, validationError } from './errors.ts';
import { checkExpected, etagOf, nextUpdatedAt, parseIfMatch } from './etag.ts';
import { Single, type ListOptions, type ReadOptions, type TrustedValues } from './served-record.ts';
import { uniqueViolation } from './unique-violation.ts';
import { idempotencyOf } from './idempotency.ts';
import { appendEvent, appendUpdateEvents, type EventAction, type SystemOrigin } from './events.ts';
import { storageValues } from './fields.ts';
import { isUuid, newId } from './ids.ts';
import type { ListRequest, ListResult } from './listing.ts';
import { liveStatuses } from './lookups.ts';
import { modelDelegate, type ModelDelegate, type RecordRow } from './model-delegates.ts';
import { nextNumber } from './numbering.ts';
import { validateRecord } from './record-validation.ts';
import { bodyKeyOf, type HookDeps, type ResourceDefinition } from './resource.ts';
import { inTransaction, type TenantClient, type TenantTx } from './tenancy.ts';
import { tenantQuery, type RawRunner } from './tenant-sql.ts';
import { assertStorableBody } from './storable.ts';
import { releaseRecordFiles } from './stored-files.ts';
import { nestingOf } from './nesting.ts';
import { NestedParents } from './nested-parents.ts';
import { RecordReader } from './record-reader.ts';

export { Single, type ListOptions, type ReadOptions, type TrustedValues, type WireRecord } from './served-record.ts';

/** A record's field values by their declared (snake_case) names, as an adapter read them from its input. */
export type RecordInput = Record<string, unknown>;

export interface ResourceServiceDeps extends HookDeps {
  db: TenantClient;
  /** Where list pages are read (outside any transaction; tenantQuery scopes them to the caller's account). */
  raw: RawRunner;
  cursors: CursorCodec;
  clock: Clock;
  /** The service of a declared resource by its Prisma model (a nested resource's parents: src/kernel/nesting.ts). */
  byModel?: (model: string) => ResourceService | undefined;
}

/**
 * The kernel's operations for any declared resource: the five standard ones (list, get, create, update,
 * delete), batched reads for adapters (getMany, listBy), and the writes other services compose inside their
 * own transaction (createWithin, touchWithin, removeWhere). Validation, child collections, reading and serving
 * (record-reader.ts), the batched reads (batched-reads.ts) and a nested record's parents (nested-parents.ts) are
 * their own modules; this class runs them in order, in the caller's tenant.
 */
export class ResourceService {
  /** What the hooks get besides the operation: the other services, the settings, the topic catalog. */
  private readonly hookDeps: HookDeps;
  /** How its records are read and served (record-reader.ts); getMany and listBy read through it too. */
  private readonly reader: RecordReader;
  private readonly childCollections: ChildCollections;
  readonly live: object;
  /** A nested resource's parents (nested-parents.ts); undefined for any other resource. */
  private readonly parents: NestedParents | undefined;

  constructor(
    readonly def: ResourceDefinition,
    private readonly deps: ResourceServiceDeps,
  ) {
    this.hookDeps = { resources: deps.resources, settings: deps.settings, topics: deps.topics };
    this.childCollections = new ChildCollections(def, deps.clock);
    this.reader = new RecordReader(def, deps, this.childCollections);
    this.live = this.reader.live;
    const nesting = nestingOf(def);
    this.parents = nesting && new NestedParents(def, nesting, (model) => deps.byModel?.(model));
  }

  private delegate(db: TenantTx | TenantClient): ModelDelegate {
    return modelDelegate(db, this.def.model);
  }

  private single(db: TenantTx | TenantClient, row: RecordRow, options: ReadOptions = {}): Promise<Single> {
    return this.reader.single(db, row, options);
  }

  private async find(db: TenantTx | TenantClient, id: string): Promise<RecordRow> {
    const row = isUuid(id) ? await this.delegate(db).findFirst({ where: { id, ...this.live } }) : null;
    if (!row) throw notFound(this.def.className);
    return row;
  }

  /** The time of the service's clock (tests move it). */
  now(): Date {
    return this.deps.clock.now();
  }

  /** Reads a record inside the caller's transaction (tenant context already set). */
  async getWithin(tx: TenantTx, id: string): Promise<Single> {
    return this.single(tx, await this.find(tx, id));
  }

  get(ctx: RequestContext, id: string, options: ReadOptions = {}): Promise<Single> {
    return runAsTenant(ctx.principal.accountId, async () => this.single(this.deps.db, await this.guarded(this.deps.db, ctx, id, 'read'), options));
  }

  /**
   * The record the caller asks for by id: found (404 otherwise), and, for a nested resource, its parent live (404
   * otherwise) and the parent's read scope held (403), with `<scope>:write` to change it. A change is then offered to
   * the resource's authorizeChange rule (403). So 404 comes before 403: the scope depends on the record.
   */
  private async guarded(db: TenantTx | TenantClient, ctx: RequestContext, id: string, access: 'read' | 'update' | 'delete'): Promise<RecordRow> {
    const row = await this.find(db, id);
    await this.parents?.guard(db, ctx, row, access === 'read' ? 'read' : 'write');
    if (access !== 'read') this.def.hooks?.authorizeChange?.({ ctx, row, operation: access });
    return row;
  }

  private nestedParents(): NestedParents {
    if (!this.parents) throw new Error(`${this.def.name} is not a nested resource`);
    return this.parents;
  }

  /**
   * A page of a nested resource's records under one parent (type and id): the list parameters, with the parent
   * bound into the cursor (a cursor of one parent's list is refused on another's). 404 when the parent is not live.
   */
  listUnder(ctx: RequestContext, type: string, parentId: string, request: ListRequest, options: ListOptions = {}): Promise<ListResult<Single>> {
    return runAsTenant(ctx.principal.accountId, async () => {
      const nesting = nestingOf(this.def)!;
      await this.nestedParents().require(this.deps.db, ctx, type, parentId, 'read');
      const within = [
        { column: nesting.typeColumn, type: 'string' as const, value: type },
        { column: nesting.idColumn, type: 'uuid' as const, value: parentId.toLowerCase() },
      ];
      return this.reader.list(request, options, within);
    });
  }

  /** Creates a nested resource's record under one parent (type and id), which the record keeps. 404 when the parent is not live. */
  createUnder(ctx: RequestContext, type: string, parentId: string, input: RecordInput): Promise<Single> {
    assertStorableBody(input, bodyKeyOf(this.def));
    return runAsTenant(ctx.principal.accountId, async () => {
      const nesting = nestingOf(this.def)!;
      const single = await this.transaction(async (tx) => {
        await this.nestedParents().require(tx, ctx, type, parentId, 'write');
        return this.createWithin(tx, ctx, input, { values: { [nesting.typeColumn]: type, [nesting.idColumn]: parentId.toLowerCase() } });
      });
      return this.afterCommit(ctx, 'create', single, null, input);
    });
  }

  /**
   * Live records with these ids, serialized, aligned with `ids`: null where a record is absent, deleted or
   * another tenant's. Runs in the caller's tenant context; one statement, plus one per child collection read.
   */
  getMany(db: TenantTx | TenantClient, ids: readonly string[], options: ReadOptions = {}): Promise<(Single | null)[]> {
    return batched.getMany(this.reader, db, ids, options);
  }

  /**
   * Live records whose `column` (a uuid column of this resource, e.g. customer_id) is one of `keys`, serialized and
   * grouped per key, aligned with `keys`, each group in the resource's sibling order (def.siblingOrder; default
   * oldest first). With `perKey`, only the first perKey records of each group are read (a page of a parent's
   * collection reads what it serves, not the whole collection). Runs in the caller's tenant context; one
   * statement, plus one per child collection read.
   */
  listBy(db: TenantTx | TenantClient, column: string, keys: readonly string[], options: ReadOptions & batched.ListByOptions = {}): Promise<Single[][]> {
    return batched.listBy(this.reader, db, column, keys, options);
  }

  /** A page of the list (the spec's list parameters); `maxLimit` widens limit for a service's own bounded reads. */
  list(ctx: RequestContext, request: ListRequest, options: ListOptions = {}): Promise<ListResult<Single>> {
    return runAsTenant(ctx.principal.accountId, () => this.reader.list(request, options, []));
  }

  private storage(values: Record<string, unknown>): Record<string, unknown> {
    return storageValues(this.def.fields, values, this.def.writeOnly);
  }

  private async transaction<T>(fn: (tx: TenantTx) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.deps.db, fn);
    } catch (error) {
      const unique = uniqueViolation(this.def, error);
      if (unique) throw validationError(unique);
      throw error;
    }
  }

  /** Creates a record from its field values by their declared names (each adapter reads them from its own input). */
  create(ctx: RequestContext, input: RecordInput): Promise<Single> {
    // A financial create runs only through the idempotency store (kernel/idempotency.ts), whatever the adapter.
    const idempotency = this.def.idempotentCreate ? idempotencyOf(ctx, `A ${this.def.className}`) : undefined;
    assertStorableBody(input, bodyKeyOf(this.def));
    return runAsTenant(ctx.principal.accountId, async () => {
      const single = await this.transaction(async (tx) => {
        const created = await this.createWithin(tx, ctx, input);
        // An idempotent create stores its response in the transaction of the record (kernel/idempotency.ts).
        await idempotency?.complete(tx, { [this.def.name]: created });
        return created;
      });
      return this.afterCommit(ctx, 'create', single, null, input);
    });
  }

  /** The resource's afterCommit hook, when it declares one: what the write answers. */
  private afterCommit(ctx: RequestContext, mode: 'create' | 'update', single: Single, before: Record<string, unknown> | null, input: Record<string, unknown>): Promise<Single> | Single {
    const hook = this.def.hooks?.afterCommit;
    return hook ? hook({ ctx, mode, single, before, input, ...this.hookDeps, db: this.deps.db }) : single;
  }

  /**
   * Creates the record inside the caller's transaction (for services composing several writes). `trusted` holds
   * what the composing service takes from records already validated (an estimate's stored lines, the estimate
   * a job comes from): columns and child rows written as given, without input validation or computation, before
   * the hooks run and the created event is appended.
   */
  async createWithin(tx: TenantTx, ctx: RequestContext, input: Record<string, unknown>, trusted: TrustedValues = {}): Promise<Single> {
    const { def } = this;
    const { values, children } = await validateRecord(def, { tx, ctx, mode: 'create', input, existing: null, ...this.hookDeps, now: this.deps.clock.now() });
    const now = this.deps.clock.now();
    const data: Record<string, unknown> = { id: newId(), ...this.storage(values), ...trusted.values, created_at: now, updated_at: now };
    if (def.conventions.status) {
      const [initial] = await liveStatuses(tx, def.className);
      if (!initial) throw new AppError('status.transition_invalid', `no ${def.className} status is configured`);
      data.status = initial;
    }
    if (def.conventions.number && data.number === undefined) {
      data.number = await nextNumber(tx, def.className, async (n) => (await this.delegate(tx).count({ where: { number: n } })) > 0);
    }
    let row = await this.delegate(tx).create({ data });
    const previousChildren = await this.childCollections.writeSnapshots(tx, ctx, row, children, 'create');
    await this.childCollections.insertTrusted(tx, row, trusted.children ?? {}, children);
    if (def.hooks?.afterWrite) {
      await def.hooks.afterWrite({ tx, ctx, mode: 'create', input, row, values, previousChildren, ...this.hookDeps });
      row = await this.find(tx, row.id);
    }
    const single = await this.single(tx, row);
    await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: row.id, action: 'created', payload: single.record, etag: single.etag });
    return single;
  }

  /**
   * Updates a record: `etag` is the ETag the caller last read (absent: 428), `input` the changed field values by
   * their declared names, or what reads them from the adapter's input once the record is found and its ETag
   * matches (so a missing record is 404 and a stale ETag 412 before the input is looked at).
   */
  update(ctx: RequestContext, id: string, etag: string | undefined, input: RecordInput | (() => RecordInput)): Promise<Single> {
    const { def } = this;
    const expected = parseIfMatch(etag);
    return runAsTenant(ctx.principal.accountId, async () => {
      let before: Record<string, unknown> = {};
      let sent: RecordInput = {};
      const single = await this.transaction(async (tx) => {
        const existing = await this.guarded(tx, ctx, id, 'update');
        checkExpected(existing, expected);
        before = (await this.single(tx, existing)).record;
        sent = typeof input === 'function' ? input() : input;
        assertStorableBody(sent, bodyKeyOf(def));
        const { values, children } = await validateRecord(def, { tx, ctx, mode: 'update', input: sent, existing, ...this.hookDeps, now: this.deps.clock.now() });
        delete values.number;
        // Compare-and-set in one statement: the row changes only if nobody changed it since it was read.
        const changed = await this.delegate(tx).updateMany({
          where: { id, lock_version: expected.lockVersion, updated_at: expected.updatedAt, ...this.live },
          data: { ...this.storage(values), updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
        });
        if (changed.count === 0) throw new AppError('precondition.failed', 'The record changed since the ETag in If-Match was issued.');
        let row = await this.find(tx, id);
        const previousChildren = await this.childCollections.writeSnapshots(tx, ctx, row, children, 'update');
        if (def.hooks?.afterWrite) {
          await def.hooks.afterWrite({ tx, ctx, mode: 'update', input: sent, row, values, previousChildren, ...this.hookDeps });
          row = await this.find(tx, id);
        }
        const updated = await this.single(tx, row);
        await appendUpdateEvents(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: id, before, after: updated.record, etag: updated.etag, status: Boolean(def.conventions.status) });
        return updated;
      });
      return this.afterCommit(ctx, 'update', single, before, sent);
    });
  }

  remove(ctx: RequestContext, id: string, ifMatch: string | undefined): Promise<void> {
    const { def } = this;
    const expected = parseIfMatch(ifMatch);
    return runAsTenant(ctx.principal.accountId, () =>
      this.transaction(async (tx) => {
        // The row is locked before it is read, so beforeDelete's rules hold until the delete commits: a request
        // that changes what they check (e.g. linking the contact) takes the same lock and waits, or went first.
        await this.lockRow(tx, id);
        const existing = await this.guarded(tx, ctx, id, 'delete');
        // The ETag is checked before the delete's business rules (beforeDelete), as on update.
        checkExpected(existing, expected);
        const payload = (await this.single(tx, existing)).record;
        await def.hooks?.beforeDelete?.({ tx, ctx, row: existing, ...this.hookDeps });
        const changed = await this.deleteRow(tx, existing, { lock_version: expected.lockVersion, updated_at: expected.updatedAt });
        if (changed === 0) throw new AppError('precondition.failed', `If-Match does not match the current ETag ${etagOf(existing)}`);
        await def.hooks?.afterDelete?.({ tx, ctx, row: existing, ...this.hookDeps });
        await this.releaseFiles(tx, id);
        await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: id, action: 'deleted', payload });
      }),
    );
  }

  /**
   * Deletes every live record matching `where` inside the caller's transaction, with each record's afterDelete
   * hook and event: the cascade of deleting a parent. No If-Match: the parent's delete was the checked request.
   */
  async removeWhere(tx: TenantTx, ctx: RequestContext, where: Record<string, unknown>): Promise<number> {
    const { def } = this;
    const rows = await this.delegate(tx).findMany({ where: { ...where, ...this.live } });
    for (const row of rows) {
      const payload = (await this.single(tx, row)).record;
      await this.deleteRow(tx, row);
      await def.hooks?.afterDelete?.({ tx, ctx, row, ...this.hookDeps });
      await this.releaseFiles(tx, row.id);
      await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: row.id, action: 'deleted', payload });
    }
    return rows.length;
  }

  /** Deletes a live row (soft delete: marks it deleted, as a write) when it still matches `version`; answers how many. */
  private async deleteRow(tx: TenantTx, row: RecordRow, version: Record<string, unknown> = {}): Promise<number> {
    const where = { id: row.id, ...version, ...this.live };
    const changed = this.def.conventions.softDelete
      ? await this.delegate(tx).updateMany({ where, data: { deleted_at: this.deps.clock.now(), updated_at: this.nextUpdatedAt(row), lock_version: { increment: 1 } } })
      : await this.delegate(tx).deleteMany({ where });
    return changed.count;
  }

  /** A deleted record's attachment files are released in the delete's transaction (the purge job removes them). */
  private async releaseFiles(tx: TenantTx, id: string): Promise<void> {
    if (this.def.conventions.customFields) await releaseRecordFiles(tx, this.def.className, id, this.deps.clock.now());
  }

  /**
   * The checks of a write of one custom field through its sub-path (attachments), before its input is read:
   * If-Match present (428), the record live (404), its ETag current (412).
   */
  checkCurrent(ctx: RequestContext, id: string, ifMatch: string | undefined): Promise<void> {
    const expected = parseIfMatch(ifMatch);
    return runAsTenant(ctx.principal.accountId, async () => {
      checkExpected(await this.find(this.deps.db, id), expected);
    });
  }

  /**
   * Sets (value) or clears (null) one custom field of a record in one transaction: the ETag re-checked under the
   * row's lock (412), `within` run with the field's previous value (the attachment flow marks its files there),
   * then the write as touchWithin makes it (updated_at, lock_version, the updated event). Answers the record.
   */
  writeCustomField(ctx: RequestContext, id: string, ifMatch: string | undefined, fieldId: string, value: unknown, within: (tx: TenantTx, previous: unknown) => Promise<void>): Promise<Single> {
    const expected = parseIfMatch(ifMatch);
    return runAsTenant(ctx.principal.accountId, () =>
      this.transaction(async (tx) => {
        await this.lockRow(tx, id);
        const existing = await this.find(tx, id);
        checkExpected(existing, expected);
        const values = { ...((existing.custom_fields as Record<string, unknown> | null) ?? {}) };
        const previous = values[fieldId];
        if (value === null) delete values[fieldId];
        else values[fieldId] = value;
        await within(tx, previous);
        return this.touchWithin(tx, ctx, id, { custom_fields: values });
      }),
    );
  }

  /** Locks the tenant's row (FOR UPDATE) until the transaction ends; an absent row is left to find() to report. */
  private async lockRow(tx: TenantTx, id: string): Promise<void> {
    if (!isUuid(id)) return;
    await tenantQuery(tx, `SELECT 1 FROM "${this.def.table}" WHERE account_id = $1::uuid AND id = $2::uuid FOR UPDATE`, id);
  }

  /**
   * Sets columns a service owns (never client input, e.g. an estimate's converted_job_id) on a live record inside
   * the caller's transaction, which holds the record's lock. It is a write like any other: updated_at moves
   * forward, lock_version grows (the ETag changes) and an updated event is appended. Returns the record.
   */
  async touchWithin(tx: TenantTx, ctx: RequestContext | SystemOrigin, id: string, columns: Record<string, unknown>): Promise<Single> {
    const { def } = this;
    const existing = await this.find(tx, id);
    const before = (await this.single(tx, existing)).record;
    await this.delegate(tx).updateMany({
      where: { id, ...this.live },
      data: { ...columns, updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
    });
    const single = await this.single(tx, await this.find(tx, id));
    await appendUpdateEvents(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: id, before, after: single.record, etag: single.etag, status: Boolean(def.conventions.status) });
    return single;
  }

  /** Appends an event of this resource beyond the standard ones (`estimate.converted`) in the caller's transaction; answers its id. */
  announceWithin(tx: TenantTx, ctx: RequestContext | SystemOrigin, single: Single, action: EventAction, details?: Record<string, unknown>): Promise<string> {
    return appendEvent(tx, ctx, { resource: this.def.className, topicPrefix: this.def.name, recordId: single.record.id as string, action, payload: single.record, details, etag: single.etag });
  }

  /** updated_at moves forward on every write, even within the same millisecond, so ETags never repeat. */
  private nextUpdatedAt(existing: RecordRow): Date {
    return nextUpdatedAt(this.deps.clock.now(), existing.updated_at);
  }
}
