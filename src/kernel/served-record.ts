import { RecordSerializer } from './record-serialization.ts';
import type { ChildRead } from './child-collections.ts';
import type { ListSpec } from './listing.ts';
import { childOutputFields, outputFields, type ResourceDefinition } from './resource.ts';

// What the resource services serve and take besides bodies: a record with its ETag, the options of a read, the
// values a composing service trusts, and how a read of some fields is planned (src/kernel/resource-service.ts).

export type WireRecord = Record<string, unknown>;

/**
 * A record as served, with its ETag. A class, so every record an adapter gets is one (object literals are not
 * Singles): the GraphQL adapter reads record fields through its prototype (src/graphql/schema/record-source.ts).
 */
export class Single {
  declare private readonly nominal: never;

  constructor(
    readonly record: WireRecord,
    readonly etag: string,
  ) {}
}

/** See createWithin. */
export interface TrustedValues {
  /** Columns of the record (storage values). */
  values?: Record<string, unknown>;
  /** Child rows per collection, with their stored (computed) columns. */
  children?: Record<string, Record<string, unknown>[]>;
}

/** What a read serves beside the record's own columns. */
export interface ListOptions extends ReadOptions {
  /** Widens limit for a service's own bounded reads (the dispatch board). */
  maxLimit?: number;
}

export interface ReadOptions {
  /**
   * The wire fields to serve, by wire name: own fields, child collections (whole entries) and fields of a child
   * collection's entries as `<collection>.<field>` (e.g. ["number", "customer_id", "lineitems.quantity"]); all
   * when omitted. Only their columns are read (with id and what the ETag needs) and only the child collections
   * named are read; the record (and each entry) served holds id and these fields, nothing else. An adapter passes
   * what its caller selected, so a board of 1,000 jobs does not read and serialize the columns it does not show.
   */
  fields?: readonly string[];
}

/** How a read with ReadOptions.fields reads and serves: its columns, its child collections, its serializer. */
export interface Projection {
  columns: readonly string[];
  /** The list spec reading these columns. */
  listSpec: ListSpec;
  /** Child collections to read, with their entry fields; undefined: all. */
  children: ChildRead | undefined;
  serializer: RecordSerializer;
}

/** The projections of a resource's reads, made once per set of fields (undefined: every field). */
export class Projections {
  private readonly made = new Map<string, Projection>();
  private readonly full: Projection;

  constructor(
    private readonly def: ResourceDefinition,
    private readonly listSpec: ListSpec,
  ) {
    this.full = { columns: listSpec.columns, listSpec, children: undefined, serializer: new RecordSerializer(def) };
  }

  of(fields: readonly string[] | undefined): Projection {
    if (fields === undefined) return this.full;
    const key = fields.join(',');
    let projection = this.made.get(key);
    if (!projection) {
      projection = this.plan(fields);
      this.made.set(key, projection);
    }
    return projection;
  }

  private plan(fields: readonly string[]): Projection {
    const served = new Map(outputFields(this.def).map((field) => [field.name, field]));
    const own = new Set<string>();
    const children = new Map<string, string[] | undefined>();
    for (const name of fields) {
      const [collection, entry] = name.split('.', 2);
      const field = served.get(collection);
      if (!field || (entry !== undefined && (!field.children || !childOutputFields(field.children).some((f) => f.name === entry)))) {
        throw new Error(`${this.def.plural} serve no field ${name}`);
      }
      if (field.kind !== 'children') own.add(name);
      else if (entry === undefined) children.set(collection, undefined);
      else if (!children.has(collection)) children.set(collection, [entry]);
      else children.get(collection)?.push(entry);
    }
    const columns = [...new Set(['id', ...this.listSpec.columns.filter((column) => own.has(column)), 'lock_version', 'updated_at'])];
    return { columns, listSpec: { ...this.listSpec, columns }, children, serializer: new RecordSerializer(this.def, { own, children }) };
  }
}
