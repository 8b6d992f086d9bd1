import { addError, recordFromBody, throwIfErrors, zodIssuesToErrors } from './body.ts';
import type { Clock } from './clock.ts';
import { currentTenant, runAsTenant, type RequestContext } from './context.ts';
import { customFieldDefinitions, liveLabels, liveStatuses } from './lookups.ts';
import { mergeCustomFields } from './custom-fields.ts';
import { checkLabels } from './labels.ts';
import { AppError, notFound, validationError, type FieldErrors } from './errors.ts';
import { etagOf, parseIfMatch, type ExpectedVersion } from './etag.ts';
import { appendEvent } from './events.ts';
import { toStorage, toWire, valueSchema } from './fields.ts';
import { isUuid, newId } from './ids.ts';
import { own } from './own.ts';
import { runList, type ListResult, type RawQueryable } from './listing.ts';
import type { CursorCodec } from './cursor.ts';
import { lockNumberSequence, nextNumber } from './numbering.ts';
import { childOutputFields, outputFields, selectColumns, type ChildCollection, type ResourceDefinition } from './resource.ts';
import { inTransaction, type TenantClient, type TenantTx } from './tenancy.ts';

export type WireRecord = Record<string, unknown>;
export interface Single {
  record: WireRecord;
  etag: string;
}

export interface ResourceServiceDeps {
  db: TenantClient;
  /** Where list pages are read (the kernel's list SQL is tenant-scoped by runList itself). */
  raw: RawQueryable;
  cursors: CursorCodec;
  clock: Clock;
  /** The other resources' services (hooks cascade through them). */
  resources: (name: string) => ResourceService;
}

/** See createWithin. */
export interface TrustedValues {
  /** Columns of the record (storage values). */
  values?: Record<string, unknown>;
  /** Child rows per collection, with their stored (computed) columns. */
  children?: Record<string, Record<string, unknown>[]>;
}

type Row = Record<string, unknown> & { id: string; updated_at: Date; lock_version: number };
type Delegate = {
  findFirst(args: object): Promise<Row | null>;
  findMany(args: object): Promise<Row[]>;
  count(args: object): Promise<number>;
  create(args: object): Promise<Row>;
  updateMany(args: object): Promise<{ count: number }>;
  deleteMany(args: object): Promise<{ count: number }>;
};

/** Maps a unique-index violation raised by the database to the field it protects, if it is one we know. */
function uniqueViolation(def: ResourceDefinition, error: unknown): FieldErrors | null {
  const e = error as { code?: string; meta?: unknown; message?: string };
  const text = `${e?.message ?? ''} ${JSON.stringify(e?.meta ?? {})}`;
  if (e?.code !== 'P2002' && !text.includes('23505') && !/unique/i.test(text)) return null;
  for (const [index, target] of Object.entries(def.uniqueIndexes ?? {})) {
    if (text.includes(index)) return { [target.field]: [target.message] };
  }
  return null;
}

/** Early 412 when the record already differs from If-Match; the compare-and-set statement stays the guarantee. */
function checkExpected(existing: Row, expected: ExpectedVersion): void {
  if (existing.lock_version !== expected.lockVersion || existing.updated_at.getTime() !== expected.updatedAt.getTime()) {
    throw new AppError('precondition.failed', `If-Match does not match the current ETag ${etagOf(existing)}`);
  }
}

/** The kernel's implementation of the five standard operations for any declared resource. */
export class ResourceService {
  private readonly columns: string[];
  private readonly outputs: ReturnType<typeof outputFields>;
  /** The served fields of each child collection, by collection name. */
  private readonly childOutputs: Map<string, ReturnType<typeof childOutputFields>>;
  private readonly live: object;

  constructor(
    readonly def: ResourceDefinition,
    private readonly deps: ResourceServiceDeps,
  ) {
    this.columns = selectColumns(def);
    this.outputs = outputFields(def);
    this.childOutputs = new Map(Object.entries(def.children ?? {}).map(([name, children]) => [name, childOutputFields(children)]));
    this.live = def.conventions.softDelete ? { deleted_at: null } : {};
  }

  private delegate(tx: TenantTx | TenantClient): Delegate {
    return (tx as unknown as Record<string, Delegate>)[this.def.model];
  }

  /** The wire record of a row; child collections come from `children` (see loadChildren), empty when absent. */
  serialize(row: Record<string, unknown>, children?: Map<string, Record<string, unknown>[]>): WireRecord {
    const out: WireRecord = {};
    for (const field of this.outputs) {
      if (field.kind === 'children') {
        const fields = this.childOutputs.get(field.name)!;
        out[field.name] = (children?.get(`${field.name}:${row.id as string}`) ?? []).map((child) =>
          Object.fromEntries(fields.map((f) => [f.name, toWire(f.kind, child[f.name], f.scale)])),
        );
      } else out[field.name] = toWire(field.kind, row[field.name], field.scale);
    }
    if (this.def.conventions.labels && out.labels === null) out.labels = [];
    if (this.def.conventions.customFields && out.custom_fields === null) out.custom_fields = {};
    return out;
  }

  /** Child rows of the given records, one query per collection whatever the number of records. */
  async loadChildren(db: TenantTx | TenantClient, ids: string[]): Promise<Map<string, Record<string, unknown>[]>> {
    const byKey = new Map<string, Record<string, unknown>[]>();
    if (ids.length === 0) return byKey;
    for (const [name, collection] of Object.entries(this.def.children ?? {})) {
      const rows = await (db as unknown as Record<string, { findMany(args: object): Promise<Record<string, unknown>[]> }>)[collection.model].findMany({
        where: { [collection.foreignKey]: { in: ids } },
        orderBy: [{ position: 'asc' }, { created_at: 'asc' }],
      });
      for (const child of rows) {
        const key = `${name}:${child[collection.foreignKey] as string}`;
        (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(child);
      }
    }
    return byKey;
  }

  /**
   * loadChildren for list pages, read like the pages themselves (deps.raw, outside any transaction): one statement
   * per collection, the tenant's rows only, the served columns plus what grouping and order need.
   */
  private async loadChildrenRaw(ids: string[]): Promise<Map<string, Record<string, unknown>[]>> {
    const byKey = new Map<string, Record<string, unknown>[]>();
    if (ids.length === 0) return byKey;
    for (const [name, collection] of Object.entries(this.def.children ?? {})) {
      const columns = [...new Set([...this.childOutputs.get(name)!.map((f) => f.name), collection.foreignKey])].join(', ');
      const rows = await this.deps.raw.$queryRawUnsafe<Record<string, unknown>[]>(
        `SELECT ${columns} FROM ${collection.table} WHERE account_id = $1::uuid AND ${collection.foreignKey} = ANY($2::uuid[]) ORDER BY position, created_at`,
        currentTenant(),
        ids,
      );
      for (const child of rows) {
        const key = `${name}:${child[collection.foreignKey] as string}`;
        (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(child);
      }
    }
    return byKey;
  }

  private async single(db: TenantTx | TenantClient, row: Row): Promise<Single> {
    const children = this.def.children ? await this.loadChildren(db, [row.id]) : undefined;
    return { record: this.serialize(row, children), etag: etagOf(row) };
  }

  private async find(tx: TenantTx | TenantClient, id: string): Promise<Row> {
    const row = isUuid(id) ? await this.delegate(tx).findFirst({ where: { id, ...this.live } }) : null;
    if (!row) throw notFound(this.def.className);
    return row;
  }

  /** Reads a record inside the caller's transaction (tenant context already set). */
  async getWithin(tx: TenantTx, id: string): Promise<Single> {
    return this.single(tx, await this.find(tx, id));
  }

  get(ctx: RequestContext, id: string): Promise<Single> {
    return runAsTenant(ctx.principal.accountId, async () => this.single(this.deps.db, await this.find(this.deps.db, id)));
  }

  /** A page of the list (the spec's list parameters as entries); `maxLimit` widens limit for a service's own bounded reads. */
  list(ctx: RequestContext, entries: [string, string][], options: { maxLimit?: number } = {}): Promise<ListResult<WireRecord>> {
    const { def } = this;
    return runAsTenant(ctx.principal.accountId, async () => {
      const result = await runList<Row>(
        this.deps.raw,
        {
          resource: def.plural,
          table: def.table,
          columns: this.columns,
          live: def.conventions.softDelete ? 'deleted_at IS NULL' : undefined,
          filters: def.list.filters,
          sorts: def.list.sorts,
          defaultSort: def.list.defaultSort,
          searchColumn: def.list.searchable ? 'search_text' : undefined,
          customFields: def.conventions.customFields,
        },
        { entries, maxLimit: options.maxLimit },
        { cursors: this.deps.cursors, customFieldDefinitions: () => customFieldDefinitions(this.deps.db, def.className) },
      );
      const children = def.children ? await this.loadChildrenRaw(result.data.map((row) => row.id)) : undefined;
      return { ...result, data: result.data.map((row) => this.serialize(row, children)) };
    });
  }

  /** Validates the record under the body key for create or update; returns the values to store. */
  private async prepare(tx: TenantTx, ctx: RequestContext, mode: 'create' | 'update', input: Record<string, unknown>, existing: Row | null) {
    const { def } = this;
    const errors: FieldErrors = {};
    const values: Record<string, unknown> = {};
    const conventionKeys = new Set(['number', 'status', 'labels', 'custom_fields']);
    const children: Record<string, Record<string, unknown>[] | undefined> = {};
    for (const [key, value] of Object.entries(input)) {
      const collection = own(def.children, key);
      if (collection) {
        children[key] = this.checkChildren(key, collection, value, mode, errors);
        continue;
      }
      const field = own(def.fields, key);
      if (!field) {
        if (conventionKeys.has(key) && (def.conventions as Record<string, boolean | undefined>)[key === 'custom_fields' ? 'customFields' : key]) continue;
        addError(errors, key, 'is not a permitted field');
        continue;
      }
      const rule = mode === 'create' ? field.create : field.update;
      if (rule === 'not_accepted') {
        addError(errors, key, `cannot be set on ${mode}`);
        continue;
      }
      if (rule === 'immutable') {
        if (value !== toWire(field.kind, existing![key])) addError(errors, key, 'cannot be changed');
        continue;
      }
      if (value === null) {
        if (field.nullable === false || field.create === 'required') addError(errors, key, "can't be blank");
        else values[key] = null;
        continue;
      }
      const parsed = valueSchema(field).safeParse(value);
      if (!parsed.success) {
        Object.assign(errors, zodIssuesToErrors(parsed.error, key));
        continue;
      }
      if (typeof parsed.data === 'string' && parsed.data === '' && field.create === 'required') {
        addError(errors, key, "can't be blank");
        continue;
      }
      values[key] = parsed.data;
    }
    if (mode === 'create') {
      for (const [key, field] of Object.entries(def.fields)) {
        if (field.create === 'required' && input[key] === undefined) addError(errors, key, 'is missing');
      }
    }
    // References to other records: same tenant (the tenant client scopes the lookup) and live.
    for (const [key, field] of Object.entries(def.fields)) {
      const ref = field.references;
      if (!ref || values[key] === undefined || values[key] === null || errors[key]) continue;
      const target = (tx as unknown as Record<string, Delegate>)[ref.model];
      const id = toStorage(field, values[key]);
      const found = await target.count({ where: { id, ...(ref.live ? { deleted_at: null } : {}) } });
      if (found === 0) addError(errors, key, `does not match any ${ref.label}`);
    }
    if (def.conventions.number && input.number !== undefined) {
      const number = input.number;
      if (mode === 'update') {
        // Compared as it would be stored (trimmed): sending the record's own number back is not a change.
        if ((typeof number === 'string' ? number.trim() : number) !== existing!.number) throw new AppError('number.immutable', `number cannot be changed once assigned (it is "${String(existing!.number)}")`);
      } else if (typeof number !== 'string' || number.trim() === '' || number.length > 64) {
        addError(errors, 'number', 'must be a non-blank string of at most 64 characters');
      } else {
        // Queue with automatic numbering before checking that the value is free (see lockNumberSequence).
        await lockNumberSequence(tx, def.className);
        if ((await this.delegate(tx).count({ where: { number: number.trim() } })) > 0) addError(errors, 'number', 'has already been taken');
        else values.number = number.trim();
      }
    }
    if (def.conventions.status && mode === 'update' && input.status !== undefined) {
      const statuses = await liveStatuses(tx, def.className);
      if (typeof input.status !== 'string' || !statuses.includes(input.status)) {
        throw new AppError(
          'status.transition_invalid',
          `"${String(input.status)}" is not a configured ${def.className} status (configured: ${statuses.join(', ')})`,
        );
      }
      values.status = input.status;
    }
    if (def.conventions.status && mode === 'create' && input.status !== undefined) addError(errors, 'status', 'cannot be set on create');
    if (def.conventions.labels && input.labels !== undefined) {
      const labels = checkLabels(input.labels, await liveLabels(tx, def.className), def.className, errors);
      if (labels) values.labels = labels;
    }
    if (def.conventions.customFields) {
      // Required definitions hold on every write, custom_fields sent or not: a definition made required after
      // the record was written makes any later update name it until a value is given.
      const definitions = await customFieldDefinitions(tx, def.className);
      const existingValues = (existing?.custom_fields as Record<string, unknown> | undefined) ?? null;
      const merged = mergeCustomFields(input.custom_fields, definitions, existingValues, errors);
      if (mode === 'create' || input.custom_fields !== undefined) values.custom_fields = merged;
    }
    await def.hooks?.beforeWrite?.({ tx, ctx, mode, input, values, children, existing, errors, resources: this.deps.resources });
    throwIfErrors(errors);
    return { values, children };
  }

  /** Validates a child collection value: an array of entries with the collection's fields (and an id on update). */
  private checkChildren(name: string, collection: ChildCollection, value: unknown, mode: 'create' | 'update', errors: FieldErrors) {
    if (!Array.isArray(value)) {
      addError(errors, name, 'must be an array');
      return undefined;
    }
    if (value.length > 200) addError(errors, name, 'has too many entries (maximum is 200)');
    return value.map((entry, index) => {
      const at = `${name}.${index}`;
      const out: Record<string, unknown> = {};
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
        addError(errors, at, 'must be an object');
        return out;
      }
      for (const [key, raw] of Object.entries(entry as Record<string, unknown>)) {
        if (key === 'id') {
          if (mode === 'create') addError(errors, `${at}.id`, 'cannot be set on create');
          else if (!isUuid(raw)) addError(errors, `${at}.id`, 'is not a valid UUID');
          else out.id = raw;
          continue;
        }
        const field = own(collection.fields, key);
        if (!field) {
          addError(errors, `${at}.${key}`, 'is not a permitted field');
          continue;
        }
        if (raw === null) {
          if (field.create === 'required' || field.nullable === false) addError(errors, `${at}.${key}`, "can't be blank");
          else out[key] = null;
          continue;
        }
        const parsed = valueSchema(field).safeParse(raw);
        if (!parsed.success) Object.assign(errors, zodIssuesToErrors(parsed.error, `${at}.${key}`));
        else if (parsed.data === '' && field.create === 'required') addError(errors, `${at}.${key}`, "can't be blank");
        else out[key] = parsed.data;
      }
      for (const [key, field] of Object.entries(collection.fields)) {
        if (field.create === 'required' && out.id === undefined && (entry as Record<string, unknown>)[key] === undefined) addError(errors, `${at}.${key}`, 'is missing');
      }
      return out;
    });
  }

  /**
   * Writes a child collection as a snapshot: entries with an id update that child, entries without one create a
   * child, existing children whose id is absent are deleted. Positions follow the order given.
   */
  private async writeChildren(
    tx: TenantTx,
    ctx: RequestContext,
    parent: Row,
    children: Record<string, Record<string, unknown>[] | undefined>,
    mode: 'create' | 'update',
  ) {
    const now = this.deps.clock.now();
    for (const [name, entries] of Object.entries(children)) {
      if (entries === undefined) continue;
      const collection = this.def.children![name];
      const delegate = (tx as unknown as Record<string, Delegate>)[collection.model];
      const existing = mode === 'update' ? await delegate.findMany({ where: { [collection.foreignKey]: parent.id } }) : [];
      const byId = new Map(existing.map((child) => [child.id, child as Record<string, unknown>]));
      const errors: FieldErrors = {};
      const seen = new Set<string>();
      entries.forEach((entry, index) => {
        if (entry.id === undefined) return;
        if (!byId.has(entry.id as string)) addError(errors, `${name}.${index}.id`, `does not match any ${collection.label} of this ${this.def.className}`);
        else if (seen.has(entry.id as string)) addError(errors, `${name}.${index}.id`, 'is given more than once');
        seen.add(entry.id as string);
      });
      throwIfErrors(errors);
      // Each entry as it will be stored: the existing child's values, then what was sent, then what the
      // collection computes from them (defaults, resolved prices, totals).
      const rows = [];
      const computed = [];
      for (const [position, entry] of entries.entries()) {
        const { id, ...fields } = entry;
        const previous = id !== undefined ? byId.get(id as string)! : null;
        const merged: Record<string, unknown> = previous ? { ...previous } : {};
        const sent: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(fields)) merged[key] = sent[key] = toStorage(collection.fields[key], value);
        computed.push({ entry: merged, sent, previous, at: `${name}.${position}` });
        rows.push({ id: id as string | undefined, position, merged });
      }
      await collection.compute?.({ tx, ctx, parent, entries: computed, existing, errors });
      throwIfErrors(errors);
      const kept = new Set(entries.filter((e) => e.id !== undefined).map((e) => e.id as string));
      const removed = [...byId.keys()].filter((id) => !kept.has(id));
      if (removed.length > 0) await delegate.deleteMany({ where: { id: { in: removed } } });
      const stored = new Set([...Object.keys(collection.fields), ...Object.keys(collection.readOnly ?? {})]);
      // Kept entries are written before new ones, so a new entry may take a value (e.g. a user) that a kept entry
      // gives up in the same snapshot without meeting it in a unique index on the way.
      const ordered = [...rows.filter((row) => row.id !== undefined), ...rows.filter((row) => row.id === undefined)];
      for (const { id, position, merged } of ordered) {
        const data: Record<string, unknown> = { position, updated_at: now };
        for (const key of stored) if (merged[key] !== undefined) data[key] = merged[key];
        if (id !== undefined) await delegate.updateMany({ where: { id, [collection.foreignKey]: parent.id }, data });
        else await delegate.create({ data: { ...data, id: newId(), [collection.foreignKey]: parent.id, created_at: now } });
      }
    }
  }

  /** Child rows given as `trusted` to createWithin: stored as given (the collection's columns only), in order. */
  private async insertTrustedChildren(
    tx: TenantTx,
    parent: Row,
    trusted: Record<string, Record<string, unknown>[]>,
    children: Record<string, Record<string, unknown>[] | undefined>,
  ) {
    const now = this.deps.clock.now();
    for (const [name, rows] of Object.entries(trusted)) {
      const collection = this.def.children?.[name];
      if (!collection || children[name] !== undefined) throw new Error(`trusted ${name}: not a child collection, or also given as input`);
      const delegate = (tx as unknown as Record<string, Delegate>)[collection.model];
      const stored = [...Object.keys(collection.fields), ...Object.keys(collection.readOnly ?? {})];
      for (const [position, row] of rows.entries()) {
        const data: Record<string, unknown> = { id: newId(), [collection.foreignKey]: parent.id, position, created_at: now, updated_at: now };
        for (const key of stored) if (row[key] !== undefined) data[key] = row[key];
        await delegate.create({ data });
      }
    }
  }

  private storage(values: Record<string, unknown>): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    const writeOnly = new Set(this.def.writeOnly ?? []);
    for (const [key, value] of Object.entries(values)) {
      if (writeOnly.has(key)) continue;
      const field = this.def.fields[key];
      data[key] = field ? toStorage(field, value) : value;
    }
    return data;
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

  create(ctx: RequestContext, body: unknown): Promise<Single> {
    const input = recordFromBody(body, this.def.name);
    return runAsTenant(ctx.principal.accountId, () => this.transaction((tx) => this.createWithin(tx, ctx, input)));
  }

  /**
   * Creates the record inside the caller's transaction (for services composing several writes). `trusted` holds
   * what the composing service takes from records already validated (an estimate's stored lines, the estimate
   * a job comes from): columns and child rows written as given, without input validation or computation, before
   * the hooks run and the created event is appended.
   */
  async createWithin(tx: TenantTx, ctx: RequestContext, input: Record<string, unknown>, trusted: TrustedValues = {}): Promise<Single> {
    const { def } = this;
    const { values, children } = await this.prepare(tx, ctx, 'create', input, null);
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
    await this.writeChildren(tx, ctx, row, children, 'create');
    await this.insertTrustedChildren(tx, row, trusted.children ?? {}, children);
    if (def.hooks?.afterWrite) {
      await def.hooks.afterWrite({ tx, ctx, mode: 'create', input, row, values, resources: this.deps.resources });
      row = await this.find(tx, row.id);
    }
    const single = await this.single(tx, row);
    await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: row.id, action: 'created', payload: single.record });
    return single;
  }

  update(ctx: RequestContext, id: string, ifMatch: string | undefined, body: unknown): Promise<Single> {
    const { def } = this;
    const expected = parseIfMatch(ifMatch);
    return runAsTenant(ctx.principal.accountId, () =>
      this.transaction(async (tx) => {
        const existing = await this.find(tx, id);
        checkExpected(existing, expected);
        const input = recordFromBody(body, def.name);
        const { values, children } = await this.prepare(tx, ctx, 'update', input, existing);
        delete values.number;
        // Compare-and-set in one statement: the row changes only if nobody changed it since it was read.
        const changed = await this.delegate(tx).updateMany({
          where: { id, lock_version: expected.lockVersion, updated_at: expected.updatedAt, ...this.live },
          data: { ...this.storage(values), updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
        });
        if (changed.count === 0) throw new AppError('precondition.failed', 'The record changed since the ETag in If-Match was issued.');
        let row = await this.find(tx, id);
        await this.writeChildren(tx, ctx, row, children, 'update');
        if (def.hooks?.afterWrite) {
          await def.hooks.afterWrite({ tx, ctx, mode: 'update', input, row, values, resources: this.deps.resources });
          row = await this.find(tx, id);
        }
        const single = await this.single(tx, row);
        await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: id, action: 'updated', payload: single.record });
        return single;
      }),
    );
  }

  remove(ctx: RequestContext, id: string, ifMatch: string | undefined): Promise<void> {
    const { def } = this;
    const expected = parseIfMatch(ifMatch);
    return runAsTenant(ctx.principal.accountId, () =>
      this.transaction(async (tx) => {
        // The row is locked before it is read, so beforeDelete's rules hold until the delete commits: a request
        // that changes what they check (e.g. linking the contact) takes the same lock and waits, or went first.
        await this.lockRow(tx, id);
        const existing = await this.find(tx, id);
        // The ETag is checked before the delete's business rules (beforeDelete), as on update.
        checkExpected(existing, expected);
        const payload = (await this.single(tx, existing)).record;
        await def.hooks?.beforeDelete?.({ tx, ctx, row: existing, resources: this.deps.resources });
        const where = { id, lock_version: expected.lockVersion, updated_at: expected.updatedAt, ...this.live };
        const changed = def.conventions.softDelete
          ? await this.delegate(tx).updateMany({
              where,
              data: { deleted_at: this.deps.clock.now(), updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
            })
          : await this.delegate(tx).deleteMany({ where });
        if (changed.count === 0) throw new AppError('precondition.failed', `If-Match does not match the current ETag ${etagOf(existing)}`);
        await def.hooks?.afterDelete?.({ tx, ctx, row: existing, resources: this.deps.resources });
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
      if (def.conventions.softDelete) {
        await this.delegate(tx).updateMany({
          where: { id: row.id, ...this.live },
          data: { deleted_at: this.deps.clock.now(), updated_at: this.nextUpdatedAt(row), lock_version: { increment: 1 } },
        });
      } else {
        await this.delegate(tx).deleteMany({ where: { id: row.id } });
      }
      await def.hooks?.afterDelete?.({ tx, ctx, row, resources: this.deps.resources });
      await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: row.id, action: 'deleted', payload });
    }
    return rows.length;
  }

  /** Locks the tenant's row (FOR UPDATE) until the transaction ends; an absent row is left to find() to report. */
  private async lockRow(tx: TenantTx, id: string): Promise<void> {
    if (!isUuid(id)) return;
    await tx.$queryRawUnsafe(`SELECT 1 FROM "${this.def.table}" WHERE id = $1::uuid AND account_id = $2::uuid FOR UPDATE`, id, currentTenant());
  }

  /**
   * Sets columns a service owns (never client input, e.g. an estimate's converted_job_id) on a live record inside
   * the caller's transaction, which holds the record's lock. It is a write like any other: updated_at moves
   * forward, lock_version grows (the ETag changes) and an updated event is appended. Returns the record.
   */
  async touchWithin(tx: TenantTx, ctx: RequestContext, id: string, columns: Record<string, unknown>): Promise<Single> {
    const { def } = this;
    const existing = await this.find(tx, id);
    await this.delegate(tx).updateMany({
      where: { id, ...this.live },
      data: { ...columns, updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
    });
    const single = await this.single(tx, await this.find(tx, id));
    await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: id, action: 'updated', payload: single.record });
    return single;
  }

  /** updated_at moves forward on every write, even within the same millisecond, so ETags never repeat. */
  private nextUpdatedAt(existing: Row): Date {
    const now = this.deps.clock.now().getTime();
    return new Date(Math.max(now, existing.updated_at.getTime() + 1));
  }
}
