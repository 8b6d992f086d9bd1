import type { ChildRead, ChildRows } from './child-collections.ts';
import { decimalToWire, toWire } from './fields.ts';
import { childOutputFields, outputFields, valueFieldOf, type RecordFieldInfo, type ResourceDefinition } from './resource.ts';

/** One served field: its name and how a stored value becomes its wire value (toWire, specialised once per field). */
interface WireField {
  name: string;
  wire(value: unknown): unknown;
}

/** Kinds whose stored value (from Prisma or from the raw reader) is already its wire value. */
const asStored = new Set<RecordFieldInfo['kind']>(['string', 'text', 'email', 'url', 'uuid', 'integer', 'number', 'boolean', 'json', 'string[]']);

function wireField(field: RecordFieldInfo): WireField {
  const { name, kind, scale = 2 } = field;
  if (kind === 'decimal') return { name, wire: (value) => (value === null || value === undefined ? null : decimalToWire(value, scale)) };
  if (asStored.has(kind)) return { name, wire: (value) => (value === undefined ? null : typeof value === 'bigint' ? Number(value) : value) };
  if (kind === 'datetime') return { name, wire: (value) => (value instanceof Date ? value.toISOString() : toWire(kind, value)) };
  return { name, wire: (value) => toWire(kind, value, scale) };
}

/**
 * An entry of a child collection as served: a plain object of its wire fields (own properties, all that JSON
 * writes), of a class so that the GraphQL adapter can read its fields under their GraphQL names through the
 * prototype (src/graphql/schema/record-source.ts), as it reads a Single's.
 */
export class ChildEntry {
  [field: string]: unknown;
}

/**
 * A wire record read back from JSON (an event's payload) as the serializer would have served it: the entries of
 * its child collections become ChildEntry objects, so the GraphQL types read them as they read served ones.
 */
export function asServed(def: ResourceDefinition, wire: Record<string, unknown>): Record<string, unknown> {
  const record = { ...wire };
  for (const field of outputFields(def)) {
    const entries = record[field.name];
    if (field.kind === 'children' && !field.children?.valueField && Array.isArray(entries)) record[field.name] = entries.map((entry) => Object.assign(new ChildEntry(), entry));
  }
  return record;
}

/** Rows of one resource as served: the REST record, and the source object of its GraphQL type. */
export class RecordSerializer {
  private readonly fields: WireField[];
  /** Served fields that are child collections, with the served fields of their entries. */
  private readonly collections: { name: string; fields: WireField[]; value?: WireField }[];
  /** Position of each field in `fields` whose value is a child collection. */
  private readonly isCollection: boolean[];

  /**
   * `served`: the record's fields to serve (id always) and its child collections with the fields of their entries
   * to serve (all when undefined; id always); every field when omitted (a projection, see ReadOptions.fields).
   */
  constructor(
    private readonly def: ResourceDefinition,
    served?: { own: ReadonlySet<string>; children: ChildRead },
  ) {
    const fields = outputFields(def).filter((field) => !served || field.name === 'id' || served.own.has(field.name) || served.children.has(field.name));
    this.fields = fields.map(wireField);
    this.isCollection = fields.map((field) => field.kind === 'children');
    this.collections = fields
      .filter((field) => field.kind === 'children')
      .map((field) => {
        const entryFields = served?.children.get(field.name);
        const collection = def.children![field.name];
        const entries = childOutputFields(collection).filter((entry) => !entryFields || entry.name === 'id' || entryFields.includes(entry.name));
        // A list of values (valueField) serves each entry's value alone.
        const valueField = valueFieldOf(collection);
        const value = valueField ? wireField({ ...childOutputFields(collection).find((f) => f.name === valueField.name)! }) : undefined;
        return { name: field.name, fields: entries.map(wireField), value };
      });
  }

  /** The wire record of a row (the served fields); each child collection comes from `children`, empty when it was not read. */
  serialize(row: Record<string, unknown>, children?: ChildRows): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const { fields, isCollection } = this;
    let collection = 0;
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (isCollection[i]) {
        const { name, fields: entryFields, value } = this.collections[collection++];
        const rows = children?.get(name)?.get(row.id as string);
        const entries: unknown[] = [];
        if (rows && value) {
          for (const child of rows) entries.push(value.wire(child[value.name]));
        } else if (rows) {
          for (const child of rows) {
            const entry: Record<string, unknown> = new ChildEntry();
            for (const f of entryFields) entry[f.name] = f.wire(child[f.name]);
            entries.push(entry);
          }
        }
        out[field.name] = entries;
      } else out[field.name] = field.wire(row[field.name]);
    }
    if (this.def.conventions.labels && out.labels === null) out.labels = [];
    if (this.def.conventions.customFields && out.custom_fields === null) out.custom_fields = {};
    return out;
  }
}
