import { addError, recordFromBody, throwIfErrors, zodIssuesToErrors } from './body.ts';
import type { Clock } from './clock.ts';
import { runAsTenant, type RequestContext } from './context.ts';
import { customFieldDefinitions, liveLabels, liveStatuses } from './lookups.ts';
import { mergeCustomFields } from './custom-fields.ts';
import { checkLabels } from './labels.ts';
import { AppError, notFound, validationError, type FieldErrors } from './errors.ts';
import { etagOf, parseIfMatch } from './etag.ts';
import { appendEvent } from './events.ts';
import { toStorage, toWire, valueSchema } from './fields.ts';
import { isUuid, newId } from './ids.ts';
import { runList, type ListResult } from './listing.ts';
import type { CursorCodec } from './cursor.ts';
import { lockNumberSequence, nextNumber } from './numbering.ts';
import { outputFields, selectColumns, type ResourceDefinition } from './resource.ts';
import type { TenantClient, TenantTx } from './tenancy.ts';

export type WireRecord = Record<string, unknown>;
export interface Single {
  record: WireRecord;
  etag: string;
}

export interface ResourceServiceDeps {
  db: TenantClient;
  cursors: CursorCodec;
  clock: Clock;
}

type Row = Record<string, unknown> & { id: string; updated_at: Date; lock_version: number };
type Delegate = {
  findFirst(args: object): Promise<Row | null>;
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

/** The kernel's implementation of the five standard operations for any declared resource. */
export class ResourceService {
  private readonly columns: string[];
  private readonly outputs: ReturnType<typeof outputFields>;
  private readonly live: object;

  constructor(
    readonly def: ResourceDefinition,
    private readonly deps: ResourceServiceDeps,
  ) {
    this.columns = selectColumns(def);
    this.outputs = outputFields(def);
    this.live = def.conventions.softDelete ? { deleted_at: null } : {};
  }

  private delegate(tx: TenantTx | TenantClient): Delegate {
    return (tx as unknown as Record<string, Delegate>)[this.def.model];
  }

  serialize(row: Record<string, unknown>): WireRecord {
    const out: WireRecord = {};
    for (const field of this.outputs) out[field.name] = toWire(field.kind, row[field.name]);
    if (this.def.conventions.labels && out.labels === null) out.labels = [];
    if (this.def.conventions.customFields && out.custom_fields === null) out.custom_fields = {};
    return out;
  }

  private single(row: Row): Single {
    return { record: this.serialize(row), etag: etagOf(row) };
  }

  private async find(tx: TenantTx | TenantClient, id: string): Promise<Row> {
    const row = isUuid(id) ? await this.delegate(tx).findFirst({ where: { id, ...this.live } }) : null;
    if (!row) throw notFound(this.def.className);
    return row;
  }

  get(ctx: RequestContext, id: string): Promise<Single> {
    return runAsTenant(ctx.principal.accountId, async () => this.single(await this.find(this.deps.db, id)));
  }

  list(ctx: RequestContext, entries: [string, string][]): Promise<ListResult<WireRecord>> {
    const { def } = this;
    return runAsTenant(ctx.principal.accountId, async () => {
      const result = await runList<Row>(
        this.deps.db,
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
        { entries },
        { cursors: this.deps.cursors, customFieldDefinitions: () => customFieldDefinitions(this.deps.db, def.className) },
      );
      return { ...result, data: result.data.map((row) => this.serialize(row)) };
    });
  }

  /** Validates the record under the body key for create or update; returns the values to store. */
  private async prepare(tx: TenantTx, ctx: RequestContext, mode: 'create' | 'update', input: Record<string, unknown>, existing: Row | null) {
    const { def } = this;
    const errors: FieldErrors = {};
    const values: Record<string, unknown> = {};
    const conventionKeys = new Set(['number', 'status', 'labels', 'custom_fields']);
    for (const [key, value] of Object.entries(input)) {
      const field = def.fields[key];
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
        if (number !== existing!.number) throw new AppError('number.immutable', `number cannot be changed once assigned (it is "${String(existing!.number)}")`);
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
    if (def.conventions.customFields && (mode === 'create' || input.custom_fields !== undefined)) {
      const definitions = await customFieldDefinitions(tx, def.className);
      const existingValues = (existing?.custom_fields as Record<string, unknown> | undefined) ?? null;
      values.custom_fields = mergeCustomFields(input.custom_fields, definitions, existingValues, errors);
    }
    await def.hooks?.beforeWrite?.({ tx, ctx, mode, values, existing, errors });
    throwIfErrors(errors);
    return values;
  }

  private storage(values: Record<string, unknown>): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(values)) {
      const field = this.def.fields[key];
      data[key] = field ? toStorage(field, value) : value;
    }
    return data;
  }

  private async transaction<T>(fn: (tx: TenantTx) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.$transaction(fn, { timeout: 15_000, maxWait: 10_000 });
    } catch (error) {
      const unique = uniqueViolation(this.def, error);
      if (unique) throw validationError(unique);
      throw error;
    }
  }

  create(ctx: RequestContext, body: unknown): Promise<Single> {
    const { def } = this;
    const input = recordFromBody(body, def.name);
    return runAsTenant(ctx.principal.accountId, () =>
      this.transaction(async (tx) => {
        const values = await this.prepare(tx, ctx, 'create', input, null);
        const now = this.deps.clock.now();
        const data: Record<string, unknown> = { id: newId(), ...this.storage(values), created_at: now, updated_at: now };
        if (def.conventions.status) {
          const [initial] = await liveStatuses(tx, def.className);
          if (!initial) throw new AppError('status.transition_invalid', `no ${def.className} status is configured`);
          data.status = initial;
        }
        if (def.conventions.number && data.number === undefined) {
          data.number = await nextNumber(tx, def.className, async (n) => (await this.delegate(tx).count({ where: { number: n } })) > 0);
        }
        const row = await this.delegate(tx).create({ data });
        const single = this.single(row);
        await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: row.id, action: 'created', payload: single.record });
        return single;
      }),
    );
  }

  update(ctx: RequestContext, id: string, ifMatch: string | undefined, body: unknown): Promise<Single> {
    const { def } = this;
    const expected = parseIfMatch(ifMatch);
    return runAsTenant(ctx.principal.accountId, () =>
      this.transaction(async (tx) => {
        const existing = await this.find(tx, id);
        if (existing.lock_version !== expected.lockVersion || existing.updated_at.getTime() !== expected.updatedAt.getTime()) {
          throw new AppError('precondition.failed', `If-Match does not match the current ETag ${etagOf(existing)}`);
        }
        const input = recordFromBody(body, def.name);
        const values = await this.prepare(tx, ctx, 'update', input, existing);
        delete values.number;
        // Compare-and-set in one statement: the row changes only if nobody changed it since it was read.
        const changed = await this.delegate(tx).updateMany({
          where: { id, lock_version: expected.lockVersion, updated_at: expected.updatedAt, ...this.live },
          data: { ...this.storage(values), updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
        });
        if (changed.count === 0) throw new AppError('precondition.failed', 'The record changed since the ETag in If-Match was issued.');
        const row = await this.find(tx, id);
        const single = this.single(row);
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
        const existing = await this.find(tx, id);
        const where = { id, lock_version: expected.lockVersion, updated_at: expected.updatedAt, ...this.live };
        const changed = def.conventions.softDelete
          ? await this.delegate(tx).updateMany({
              where,
              data: { deleted_at: this.deps.clock.now(), updated_at: this.nextUpdatedAt(existing), lock_version: { increment: 1 } },
            })
          : await this.delegate(tx).deleteMany({ where });
        if (changed.count === 0) throw new AppError('precondition.failed', `If-Match does not match the current ETag ${etagOf(existing)}`);
        await appendEvent(tx, ctx, { resource: def.className, topicPrefix: def.name, recordId: id, action: 'deleted', payload: this.serialize(existing) });
      }),
    );
  }

  /** updated_at moves forward on every write, even within the same millisecond, so ETags never repeat. */
  private nextUpdatedAt(existing: Row): Date {
    const now = this.deps.clock.now().getTime();
    return new Date(Math.max(now, existing.updated_at.getTime() + 1));
  }
}
