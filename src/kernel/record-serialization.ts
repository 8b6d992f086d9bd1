import type { ChildRows } from './child-collections.ts';
import { toWire } from './fields.ts';
import { childOutputFields, outputFields, type RecordFieldInfo, type ResourceDefinition } from './resource.ts';

/** Rows of one resource as served: the REST record, and the source object of its GraphQL type. */
export class RecordSerializer {
  private readonly fields: RecordFieldInfo[];
  /** The served fields of each child collection, by collection name. */
  private readonly childFields: Map<string, RecordFieldInfo[]>;

  constructor(private readonly def: ResourceDefinition) {
    this.fields = outputFields(def);
    this.childFields = new Map(Object.entries(def.children ?? {}).map(([name, collection]) => [name, childOutputFields(collection)]));
  }

  /** The wire record of a row; each child collection comes from `children`, empty when it was not read. */
  serialize(row: Record<string, unknown>, children?: ChildRows): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of this.fields) {
      if (field.kind === 'children') {
        const fields = this.childFields.get(field.name)!;
        out[field.name] = (children?.get(field.name)?.get(row.id as string) ?? []).map((child) =>
          Object.fromEntries(fields.map((f) => [f.name, toWire(f.kind, child[f.name], f.scale)])),
        );
      } else out[field.name] = toWire(field.kind, row[field.name], field.scale);
    }
    if (this.def.conventions.labels && out.labels === null) out.labels = [];
    if (this.def.conventions.customFields && out.custom_fields === null) out.custom_fields = {};
    return out;
  }
}
