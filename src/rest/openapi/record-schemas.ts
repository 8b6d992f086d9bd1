import { outputFields, valueFieldOf, type RecordFieldInfo, type ResourceDefinition } from '../../kernel/resource.ts';
import { childRecordSchema } from './child-schemas.ts';
import { customFieldsSchema, labelsSchema } from './convention-schemas.ts';
import { docText } from './doc-text.ts';
import { kindSchema, readOnlySchema, served, timestamp } from './field-schemas.ts';
import { z } from './zod.ts';

// A resource's record as served, field by field from outputFields(def).

/** A served field that the kernel's conventions add (id, timestamps, number, status, labels, custom_fields). */
function conventionSchema(def: ResourceDefinition, info: RecordFieldInfo): z.ZodType {
  switch (info.name) {
    case 'id':
      return served.id();
    case 'created_at':
    case 'updated_at':
      return timestamp().openapi({ description: docText(info.description) });
    case 'number':
      return z.string().openapi({ description: docText(info.description) });
    case 'status':
      return z.string().openapi({ description: `${docText(info.description ?? '').replace(/\.$/, '')} (GET /statuses?related_name=${def.className}).` });
    case 'labels':
      return labelsSchema(def, 'record');
    case 'custom_fields':
      return customFieldsSchema(def, 'record');
    default:
      throw new Error(`openapi: no schema for the field ${def.name}.${info.name} (kind ${info.kind})`);
  }
}

/** The record as served: own fields, read-only fields, child collections and the conventions. */
export function recordSchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const writeOnly = new Set(def.writeOnly ?? []);
  for (const info of outputFields(def)) {
    const readOnly = def.readOnly?.[info.name];
    const spec = writeOnly.has(info.name) ? undefined : def.fields[info.name];
    if (readOnly) {
      shape[info.name] = readOnlySchema(readOnly, info.nullable);
    } else if (info.kind === 'children') {
      const collection = info.children!;
      const valueField = valueFieldOf(collection);
      // A list of values (valueField): the values alone, each as its field is served.
      shape[info.name] = z.array(valueField ? kindSchema(valueField.spec) : childRecordSchema(def, collection)).openapi({ description: [docText(collection.description), 'In the order last written.'].filter(Boolean).join(' ') });
    } else if (spec) {
      shape[info.name] = served.field(spec, info.nullable);
    } else {
      const schema = conventionSchema(def, info);
      shape[info.name] = info.nullable ? schema.nullable() : schema;
    }
  }
  return z.object(shape).openapi({ description: docText(def.description) });
}
