import type { ChildCollection, ResourceDefinition } from '../../kernel/resource.ts';
import { camelCase } from '../../kernel/naming.ts';
import type { RecordInput } from '../../kernel/resource-service.ts';
import { writableFields } from './write-input.ts';

// A write over GraphQL gives the resource service the record's field values by their declared names: the input's
// camelCase fields (and those of its child entries) renamed, omitted staying omitted and null staying null.

/** A child entry given in camelCase -> its values by declared names. */
function childValues(children: ChildCollection, entry: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['id', ...Object.keys(children.fields)]) {
    if (entry[camelCase(key)] !== undefined) out[key] = entry[camelCase(key)];
  }
  return out;
}

/** A create or update input -> the record's field values by their declared names. */
export function recordValues(def: ResourceDefinition, mode: 'create' | 'update', input: Record<string, unknown>): RecordInput {
  const record: RecordInput = {};
  for (const field of writableFields(def, mode)) {
    const value = input[field.name];
    if (value === undefined) continue;
    // A list of values (valueField) is given as it is.
    record[field.wire] = field.children && !field.children.valueField && Array.isArray(value) ? value.map((entry) => childValues(field.children!, entry as Record<string, unknown>)) : value;
  }
  return record;
}
