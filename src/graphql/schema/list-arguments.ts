import type { ResourceDefinition } from '../../kernel/resource.ts';
import type { ValueType } from '../../kernel/listing.ts';
import { withArgumentNames } from './errors.ts';
import { camelCase } from '../../kernel/naming.ts';
import { listTexts } from './descriptions.ts';
import type { ScalarName } from './field-types.ts';

// The filter arguments of a resource's list <-> the REST query parameters: a list over GraphQL calls the resource
// service with the [key, value] entries REST would pass it, and its errors name the GraphQL arguments.

/** One filter field of a resource's list: its GraphQL name and type, and the REST parameter it becomes. */
export interface ListArgument {
  name: string;
  type: ScalarName | [ScalarName] | 'CustomFieldFilter';
  /** The enum of the filtered field (a named vocabulary types the argument by its GraphQL enum). */
  enum?: readonly string[];
  description: string;
  /** The REST parameter it becomes (custom_fields: its prefix), to name the argument in GraphQL messages. */
  key: string;
  /** The [key, value] query entries REST would receive for this argument's value. */
  entries(value: unknown): [string, string][];
}

const filterScalar: Record<ValueType, ScalarName> = { string: 'String', uuid: 'ID', date: 'Date', datetime: 'DateTime', integer: 'SafeInt', boolean: 'Boolean' };
const opSuffix = { gt: 'Gt', gte: 'Gte', lt: 'Lt', lte: 'Lte' } as const;

/** The filter fields of a resource's list (its REST filters, q and custom_fields), each converting itself to the REST query entries. */
export function filterFields(def: ResourceDefinition): ListArgument[] {
  const args: ListArgument[] = [];
  if (def.list.search) {
    args.push({ name: 'q', type: 'String', description: listTexts.q(def), key: 'q', entries: (v) => [['q', String(v)]] });
  }
  for (const [field, spec] of Object.entries(def.list.filters)) {
    const scalar = filterScalar[spec.type];
    const name = camelCase(field);
    const values = def.fields[field]?.enum ?? def.readOnly?.[field]?.enum;
    for (const op of spec.ops) {
      if (op === 'eq') {
        args.push({ name, type: scalar, enum: values, description: listTexts.filter(field, op), key: field, entries: (v) => [[field, String(v)]] });
      } else if (op === 'in') {
        args.push({
          name: `${name}In`,
          type: [scalar],
          enum: values,
          description: listTexts.filter(field, op),
          key: `${field}[in]`,
          entries: (v) => [[`${field}[in]`, (v as unknown[]).map(String).join(',')]],
        });
      } else {
        args.push({ name: `${name}${opSuffix[op]}`, type: scalar, enum: values, description: listTexts.filter(field, op), key: `${field}[${op}]`, entries: (v) => [[`${field}[${op}]`, String(v)]] });
      }
    }
  }
  if (def.conventions.customFields) {
    args.push({
      name: 'customFields',
      type: 'CustomFieldFilter',
      description: listTexts.customFields,
      key: 'custom_fields[',
      entries: (v) => (v as { id: string; value: string }[]).map((f) => [`custom_fields[${f.id}]`, f.value] as [string, string]),
    });
  }
  return args;
}

/**
 * A list error of the kernel names the REST parameter at fault ("status[in]: ...", "custom_fields[<id>]: ...");
 * over GraphQL the same error names the argument ("filter.statusIn: ...", "filter.customFields[<id>]: ...").
 */
export function graphqlListError(error: unknown, filters: ListArgument[]): unknown {
  return withArgumentNames(error, [
    ['limit', 'first'],
    ['cursor', 'after'],
    ...filters.map((arg): [string, string] => [arg.key, arg.key.endsWith('[') ? `filter.${arg.name}[` : `filter.${arg.name}`]),
  ]);
}

/** Filter values -> REST query entries; null and omitted fields are absent, as an absent parameter. */
export function listEntries(args: ListArgument[], values: Record<string, unknown>): [string, string][] {
  const entries: [string, string][] = [];
  for (const arg of args) {
    const value = values[arg.name];
    if (value !== undefined && value !== null) entries.push(...arg.entries(value));
  }
  return entries;
}
