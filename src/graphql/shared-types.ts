import type { RecordShape } from './resource-schema.ts';
import { enumTexts } from './descriptions.ts';
import type { Builder } from './builder.ts';
import { DateScalar, DateTimeScalar, DecimalScalar, JSONScalar, SafeIntScalar } from './scalars.ts';

/** Types every resource shares: scalars, page info, custom field filters, the result of a delete. */
export function registerSharedTypes(builder: Builder) {
  builder.addScalarType('DateTime', DateTimeScalar);
  builder.addScalarType('Date', DateScalar);
  builder.addScalarType('SafeInt', SafeIntScalar);
  builder.addScalarType('Decimal', DecimalScalar);
  builder.addScalarType('JSON', JSONScalar);

  const SortDirection = builder.enumType('SortDirection', {
    description: 'The direction of an order.',
    values: { ASC: { value: 'asc', description: enumTexts.ascending }, DESC: { value: 'desc', description: enumTexts.descending } } as const,
  });

  const CustomFieldFilter = builder.inputType('CustomFieldFilter', {
    description: 'A condition on one custom field: its value must match.',
    fields: (t) => ({
      id: t.id({ required: true, description: 'A custom field definition id of the resource.' }),
      value: t.string({ required: true, description: 'The value to match: true or false for a checkbox, YYYY-MM-DD for a date, one option for a multiselect (its selection must contain it), the exact value otherwise.' }),
    }),
  });

  const DeletedRecord = builder.objectRef<{ id: string }>('DeletedRecord').implement({
    description: 'The id of a record that was deleted.',
    fields: (t) => ({ id: t.exposeID('id', { description: 'The id of the deleted record.' }) }),
  });

  // Every record type implements Node (node.ts serves node(id) and nodes(ids)); `typename` names the record's type.
  const Node = builder.interfaceRef<RecordShape & { typename?: string }>('Node').implement({
    description: 'A record of any resource, identified by its id alone.',
    resolveType: (value) => value.typename!,
    fields: (t) => ({ id: t.id({ description: 'The id of the record: a UUID, unique across resources.', resolve: (value) => value.record.id as string }) }),
  });

  return { SortDirection, CustomFieldFilter, DeletedRecord, Node };
}

export type SharedTypes = ReturnType<typeof registerSharedTypes>;
