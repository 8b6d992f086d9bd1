import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { CURSOR_FORM } from '../../kernel/cursor.ts';
import { DEFAULT_LIMIT, MAX_LIMIT, type Operator, type ValueType } from '../../kernel/listing.ts';
import { lookupClassOf, searchDescription, type ResourceDefinition } from '../../kernel/resource.ts';
import { z } from './zod.ts';

// The query parameters of a resource's list, from def.list and the kernel's list rules: cursor, limit, sort,
// q, one parameter per filter operator, custom_fields[<id>]. Those that read the same on every list (cursor,
// limit, each filter) are shared components; sort, q and custom_fields name the resource's own fields.

/**
 * The JSON Schema of a cursor parameter: not empty, and of the form every cursor has (src/kernel/cursor.ts
 * CURSOR_FORM, refused with 400 cursor.invalid before it is decoded).
 */
export function cursorSchema(): { type: 'string'; minLength: number; pattern: string } {
  return { type: 'string', minLength: 1, pattern: CURSOR_FORM.source };
}

/** JSON Schema of a filter value (an `in` list is a comma-separated string of them). */
const filterValueSchemas: Record<ValueType, { type: 'string' | 'integer' | 'boolean'; format?: string; maxLength?: number; pattern?: string }> = {
  string: { type: 'string', maxLength: 500 },
  uuid: { type: 'string', format: 'uuid' },
  date: { type: 'string', format: 'date' },
  datetime: { type: 'string', format: 'date-time' },
  integer: { type: 'integer' },
  decimal: { type: 'string', format: 'decimal', pattern: '^-?\\d{1,18}(\\.\\d{1,10})?$' },
  boolean: { type: 'boolean' },
};

function filterNote(field: string, op: Operator, type: ValueType): string {
  switch (op) {
    case 'eq':
      return `${field} equals the value`;
    case 'in':
      return `${field} is one of the comma-separated values (1 to 100, each a ${type})`;
    case 'gt':
      return `${field} is greater than the value`;
    case 'gte':
      return `${field} is greater than or equal to the value`;
    case 'lt':
      return `${field} is less than the value`;
    case 'lte':
      return `${field} is less than or equal to the value`;
  }
}

/** Query parameter name of a filter operator: `field` for equality, `field[op]` otherwise. */
function filterParameterName(field: string, op: Operator): string {
  return op === 'eq' ? field : `${field}[${op}]`;
}

/** The sort values a list accepts: each sortable field, also with the - prefix. */
function sortValues(def: ResourceDefinition): string[] {
  return Object.keys(def.list.sorts).flatMap((name) => [name, `-${name}`]);
}

/** The query parameters that read the same on every list, registered once under components.parameters. */
export function createListParameters(registry: OpenAPIRegistry) {
  const registered = new Set<string>();
  /** A reference to the parameter component `name`, registered on its first use. */
  const shared = (name: string, parameter: () => Parameters<typeof registry.registerComponent<'parameters'>>[2]) => {
    if (!registered.has(name)) {
      registry.registerComponent('parameters', name, parameter());
      registered.add(name);
    }
    return { $ref: `#/components/parameters/${name}` };
  };
  const cursor = () =>
    shared('Cursor', () => ({
      name: 'cursor',
      in: 'query',
      schema: cursorSchema(),
      description:
        'Opaque, HMAC-signed continuation cursor: the next_cursor of the previous page (also in its Link header). Omit on the first page; pass back verbatim. Bound to the filters, q and custom_fields of the first request (changing them: 400 cursor.invalid_filters); valid for 24 hours (400 cursor.expired); empty, tampered or from a retired signing key: 400 cursor.invalid.',
    }));
  const limit = () =>
    shared('Limit', () => ({
      name: 'limit',
      in: 'query',
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
      description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}). Above ${MAX_LIMIT}: 400 pagination.limit_too_large with max_limit.`,
    }));
  /** The value type of each filter parameter component by name: a field whose type differs on another list gets its own. */
  // A filter on a field with a fixed set of values (an enum) is its own component per set: `priority.eq.2`.
  const filterTypes = new Map<string, string>();
  const valueSets = new Map<string, number>();
  const filterName = (field: string, op: Operator, type: ValueType, values?: readonly string[]) => {
    const name = `${field}.${op}`;
    const kind = values ? `${type}:${values.join(',')}` : type;
    if (!filterTypes.has(name)) filterTypes.set(name, kind);
    if (filterTypes.get(name) === kind) return name;
    if (!values) return `${name}.${type}`;
    if (!valueSets.has(kind)) valueSets.set(kind, valueSets.size + 1);
    return `${name}.${valueSets.get(kind)}`;
  };
  const valueSchema = (op: Operator, type: ValueType, values?: readonly string[]) => {
    if (!values) return op === 'in' ? { type: 'string' as const } : filterValueSchemas[type];
    if (op === 'in') {
      const one = `(${values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`;
      return { type: 'string' as const, pattern: `^${one}(,${one})*$` };
    }
    return { type: 'string' as const, enum: [...values] };
  };
  const filter = (field: string, op: Operator, type: ValueType, values?: readonly string[]) =>
    shared(filterName(field, op, type, values), () => ({
      name: filterParameterName(field, op),
      in: 'query',
      schema: valueSchema(op, type, values),
      description: `Filter: ${filterNote(field, op, type)}${values ? ` (${values.join(', ')})` : ''}.`,
    }));
  return {
    /** The shared parameters of the resource's list: cursor, limit and one per filter operator. */
    of: (def: ResourceDefinition) => [
      cursor(),
      limit(),
      ...Object.entries(def.list.filters).flatMap(([field, { ops, type, values }]) => ops.map((op) => filter(field, op, type, values))),
    ],
  };
}

/** The custom_fields filter of every list: how its values match, the same for every resource. */
function customFieldsFilter(): z.ZodType {
  return z.record(z.string(), z.string()).openapi('CustomFieldsFilter', {
    description:
      'Custom field filters of a list: each key a custom field definition id of the listed resource, its value the value to match. Several keys combine with AND and with the other filters, q, sort and cursor. Matching per field type: checkbox takes true or false; date takes YYYY-MM-DD; multiselect matches records whose selection contains the value; other types match the exact string. Attachment fields cannot be filtered. An unknown id or malformed value: 400 filter.invalid.',
  });
}

/** The query parameters of the resource's list that name its own fields: sort, q and custom_fields. */
export function listQuerySchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const sorts = sortValues(def);
  if (sorts.length > 0) {
    shape.sort = z
      .enum(sorts as [string, ...string[]])
      .default(def.list.defaultSort)
      .optional()
      .openapi({
        param: {
          // The schema states the default; the info states the sort rules every list shares.
          description: 'One field; prefix - for descending.',
        },
      });
  }
  if (def.list.search) {
    shape.q = z
      .string()
      .max(200)
      .optional()
      .openapi({ param: { description: `Free-text search over ${searchDescription(def)}.` } });
  }
  if (def.conventions.customFields) {
    shape.custom_fields = customFieldsFilter()
      .optional()
      .openapi({
        param: {
          style: 'deepObject',
          explode: true,
          description: `\`custom_fields[<field_id>]=<value>\` with the ids of GET /custom_field_definitions?related_name=${lookupClassOf(def)}.`,
        },
      });
  }
  return z.object(shape).strict();
}
