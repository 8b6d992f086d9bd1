import { addError, throwIfErrors } from './body.ts';
import type { Clock } from './clock.ts';
import type { RequestContext } from './context.ts';
import type { FieldErrors } from './errors.ts';
import { toStorage } from './fields.ts';
import { newId } from './ids.ts';
import { modelDelegate, type RecordRow } from './model-delegates.ts';
import { childOutputFields, type ChildCollection, type ResourceDefinition } from './resource.ts';
import type { TenantTx } from './tenancy.ts';
import { tenantQuery, type RawRunner } from './tenant-sql.ts';

/** Child rows of many parents: collection name -> parent id -> its rows in position order. */
export type ChildRows = Map<string, Map<string, Record<string, unknown>[]>>;

/** Collections to read -> the served fields of their entries to read (undefined: all). */
export type ChildRead = ReadonlyMap<string, readonly string[] | undefined>;

/** The columns of a collection's entries read: id, the served fields (all when omitted), the parent key. */
function entryColumns(collection: ChildCollection, fields?: readonly string[]): string {
  const served = childOutputFields(collection).map((field) => field.name);
  return [...new Set(['id', ...(fields ? served.filter((name) => fields.includes(name)) : served), collection.foreignKey])].join(', ');
}

/** The children a write's snapshots replaced, per collection written (rows as stored before the write). */
export type PreviousChildren = Record<string, Record<string, unknown>[]>;

/** Validated child entries of one write, per collection; undefined: the collection was not sent. */
export type ChildEntries = Record<string, Record<string, unknown>[] | undefined>;

/** The child collections of one resource (def.children): read for many parents at once, written as snapshots. */
export class ChildCollections {
  /** The columns read of each collection when all its served fields are read: those fields and the parent key. */
  private readonly columns: Map<string, string>;

  constructor(
    private readonly def: ResourceDefinition,
    private readonly clock: Clock,
  ) {
    this.columns = new Map(Object.entries(def.children ?? {}).map(([name, collection]) => [name, entryColumns(collection)]));
  }

  /**
   * Child rows of the given parents: one statement per collection read, whatever the number of parents, the
   * caller's rows only. `read` names the collections to read (all when omitted, none when empty), each with the
   * served fields of its entries to read (all when undefined; id always).
   */
  async load(db: RawRunner, parentIds: readonly string[], read?: ChildRead): Promise<ChildRows> {
    const all = Object.entries(this.def.children ?? {});
    for (const name of read?.keys() ?? []) if (!this.columns.has(name)) throw new Error(`${this.def.name} has no child collection ${name}`);
    const selected = read ? all.filter(([name]) => read.has(name)) : all;
    const loaded: ChildRows = new Map();
    if (parentIds.length === 0) return loaded;
    // The collections are read at the same time (each statement on its own connection of the pool; in a
    // transaction the driver queues them on its one connection), each into its own entry.
    const readOne = async ([name, collection]: [string, ChildCollection]) => {
      const fields = read?.get(name);
      const rows = await tenantQuery<Record<string, unknown>>(
        db,
        `SELECT ${fields ? entryColumns(collection, fields) : this.columns.get(name)} FROM ${collection.table} WHERE account_id = $1::uuid AND ${collection.foreignKey} = ANY($2::uuid[]) ORDER BY position, created_at`,
        [...parentIds],
      );
      const byParent = new Map<string, Record<string, unknown>[]>();
      for (const child of rows) {
        const parentId = child[collection.foreignKey] as string;
        (byParent.get(parentId) ?? byParent.set(parentId, []).get(parentId)!).push(child);
      }
      return [name, byParent] as const;
    };
    for (const [name, byParent] of await Promise.all(selected.map(readOne))) loaded.set(name, byParent);
    return loaded;
  }

  /**
   * Writes each collection sent as a snapshot: entries with an id update that child, entries without one create a
   * child, existing children whose id is absent are deleted. Positions follow the order given. Returns the children
   * each written collection had before (empty on create).
   */
  async writeSnapshots(tx: TenantTx, ctx: RequestContext, parent: RecordRow, children: ChildEntries, mode: 'create' | 'update'): Promise<PreviousChildren> {
    const now = this.clock.now();
    const previous: PreviousChildren = {};
    for (const [name, sent] of Object.entries(children)) {
      if (sent === undefined) continue;
      let entries = sent;
      const collection = this.def.children![name];
      const delegate = modelDelegate(tx, collection.model);
      const existing = mode === 'update' ? await delegate.findMany({ where: { [collection.foreignKey]: parent.id } }) : [];
      previous[name] = existing;
      const byId = new Map(existing.map((child) => [child.id, child as Record<string, unknown>]));
      const valueField = collection.valueField;
      if (valueField !== undefined) {
        // A list of values: a value the collection holds keeps its row (once), the others are new rows.
        const free = new Map<string, string[]>();
        for (const child of existing) {
          const key = String(child[valueField]).toLowerCase();
          (free.get(key) ?? free.set(key, []).get(key)!).push(child.id);
        }
        entries = entries.map((entry) => {
          const id = entry[valueField] === undefined ? undefined : free.get(String(entry[valueField]).toLowerCase())?.shift();
          return id === undefined ? entry : { ...entry, id };
        });
      }
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
      const stored = storedColumns(collection);
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
    return previous;
  }

  /**
   * Stores child rows a composing service took from records already validated (see ResourceService.createWithin)
   * as given: the collection's columns only, in order. A collection may not be both trusted and sent.
   */
  async insertTrusted(tx: TenantTx, parent: RecordRow, trusted: Record<string, Record<string, unknown>[]>, sent: ChildEntries): Promise<void> {
    const now = this.clock.now();
    for (const [name, rows] of Object.entries(trusted)) {
      const collection = this.def.children?.[name];
      if (!collection || sent[name] !== undefined) throw new Error(`trusted ${name}: not a child collection, or also given as input`);
      const delegate = modelDelegate(tx, collection.model);
      const stored = storedColumns(collection);
      for (const [position, row] of rows.entries()) {
        const data: Record<string, unknown> = { id: newId(), [collection.foreignKey]: parent.id, position, created_at: now, updated_at: now };
        for (const key of stored) if (row[key] !== undefined) data[key] = row[key];
        await delegate.create({ data });
      }
    }
  }
}

/** The columns of a child a write stores: its writable fields and those the collection computes. */
function storedColumns(collection: ChildCollection): string[] {
  return [...new Set([...Object.keys(collection.fields), ...Object.keys(collection.readOnly ?? {})])];
}
