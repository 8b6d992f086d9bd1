import type { Builder } from './builder.ts';
import { DateScalar, DateTimeScalar, DecimalScalar, JSONScalar, SafeIntScalar } from './scalars.ts';

/** Types every resource shares: scalars, page info, custom field filters, the result of a delete. */
export function registerSharedTypes(builder: Builder) {
  builder.addScalarType('DateTime', DateTimeScalar);
  builder.addScalarType('Date', DateScalar);
  builder.addScalarType('SafeInt', SafeIntScalar);
  builder.addScalarType('Decimal', DecimalScalar);
  builder.addScalarType('JSON', JSONScalar);

  const PageInfo = builder.objectRef<{ hasNextPage: boolean; endCursor: string | null }>('PageInfo').implement({
    description: 'Keyset paging: pass endCursor as the cursor argument for the next page.',
    fields: (t) => ({
      hasNextPage: t.exposeBoolean('hasNextPage', { description: 'REST has_more.' }),
      endCursor: t.exposeString('endCursor', {
        nullable: true,
        description: 'The signed cursor REST gives in its Link header (usable on either API); null on the last page.',
      }),
    }),
  });

  const CustomFieldFilter = builder.inputType('CustomFieldFilter', {
    description: 'REST custom_fields[<id>]=<value>.',
    fields: (t) => ({
      id: t.id({ required: true, description: 'A custom field definition id of the resource.' }),
      value: t.string({ required: true }),
    }),
  });

  const DeletedRecord = builder.objectRef<{ id: string }>('DeletedRecord').implement({
    description: 'The id of a record that was deleted.',
    fields: (t) => ({ id: t.exposeID('id') }),
  });

  return { PageInfo, CustomFieldFilter, DeletedRecord };
}

export type SharedTypes = ReturnType<typeof registerSharedTypes>;
