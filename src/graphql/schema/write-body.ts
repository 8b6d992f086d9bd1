import { bodyKeyOf, type ChildCollection, type ResourceDefinition } from '../../kernel/resource.ts';
import { camelCase } from '../../kernel/naming.ts';
import { writableFields } from './write-input.ts';

// A write over GraphQL calls the resource service with the body REST would pass it: the input's fields under
// their wire names, under the resource key.

/** A child entry given in camelCase -> its wire entry. */
function childToWire(children: ChildCollection, entry: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of ['id', ...Object.keys(children.fields)]) {
    if (entry[camelCase(key)] !== undefined) out[key] = entry[camelCase(key)];
  }
  return out;
}

/** GraphQL input -> the REST request body `{ <resource>: { snake_case fields } }`; omitted stays omitted, null stays null. */
export function toWireBody(def: ResourceDefinition, mode: 'create' | 'update', input: Record<string, unknown>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of writableFields(def, mode)) {
    const value = input[field.name];
    if (value === undefined) continue;
    record[field.wire] = field.children && Array.isArray(value)
      ? value.map((entry) => childToWire(field.children!, entry as Record<string, unknown>))
      : value;
  }
  return { [bodyKeyOf(def)]: record };
}
