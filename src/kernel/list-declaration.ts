import type { FieldKind } from './fields.ts';
import type { FilterSpec, Operator, SortSpec, ValueType } from './listing.ts';
import type { ResourceDefinition } from './resource.ts';

// A declaration's list parameters as written: a filter is its operators (`status: ['eq', 'in']`, `created_at:
// rangeOps`) and a sort is `true`, their value type following from the field of the same name (a declared
// field, a read-only one, a convention's column or a timestamp). An explicit spec ({type, ops, column}) is still
// accepted where the name is not a field (a filter on a child's column) or the type must differ.

/** A filter as written: its operators (type from the field), or a spec whose type may be left out. */
export type FilterSource = readonly Operator[] | (Omit<FilterSpec, 'type'> & { type?: ValueType });
/** A sort as written: `true` (type from the field), or a spec whose type may be left out. */
export type SortSource = true | (Omit<SortSpec, 'type'> & { type?: SortSpec['type'] });

export interface ListSource extends Omit<ResourceDefinition['list'], 'filters' | 'sorts'> {
  filters: Record<string, FilterSource>;
  sorts: Record<string, SortSource>;
}

/** The value type of list parameters on a field of each kind (none: a list cannot filter or sort on it). */
const kindValueTypes: Partial<Record<FieldKind, ValueType>> = {
  string: 'string',
  text: 'string',
  email: 'string',
  url: 'string',
  uuid: 'uuid',
  integer: 'integer',
  int64: 'integer',
  decimal: 'decimal',
  boolean: 'boolean',
  date: 'date',
  datetime: 'datetime',
};

type Named = Pick<ResourceDefinition, 'name' | 'fields' | 'readOnly' | 'conventions'>;

/** The value type of a list parameter named after a column of the resource. */
function valueTypeOf(def: Named, name: string, what: 'filter' | 'sort'): ValueType {
  if (name === 'id') return 'uuid';
  if (name === 'created_at' || name === 'updated_at') return 'datetime';
  if ((name === 'number' && def.conventions.number) || (name === 'status' && def.conventions.status)) return 'string';
  const kind = def.fields[name]?.kind ?? def.readOnly?.[name]?.kind;
  const type = kind ? kindValueTypes[kind] : undefined;
  if (!type) {
    throw new Error(
      `${def.name}: the ${what} "${name}" ${kind ? `is on a ${kind} field, which lists cannot ${what} on` : 'names no field of the resource'}; declare its type ({ type, ... }) or remove it`,
    );
  }
  return type;
}

/** The list parameters of a declaration, each with its value type. */
export function listParameters(def: Named, list: ListSource): ResourceDefinition['list'] {
  const filters = Object.fromEntries(
    Object.entries(list.filters).map(([name, source]): [string, FilterSpec] => {
      const spec = Array.isArray(source) ? { ops: source as readonly Operator[] } : (source as Exclude<FilterSource, readonly Operator[]>);
      const column = spec.column ?? name;
      const values = spec.values ?? def.fields[column]?.enum ?? def.readOnly?.[column]?.enum;
      return [name, { ...spec, type: spec.type ?? valueTypeOf(def, column, 'filter'), ...(values ? { values } : {}) }];
    }),
  );
  const sorts = Object.fromEntries(
    Object.entries(list.sorts).map(([name, source]): [string, SortSpec] => {
      const spec = source === true ? {} : source;
      const type = spec.type ?? valueTypeOf(def, spec.column ?? name, 'sort');
      if (type === 'boolean') throw new Error(`${def.name}: the sort "${name}" is on a boolean field, which lists cannot sort on`);
      return [name, { ...spec, type }];
    }),
  );
  return { ...list, filters, sorts };
}
