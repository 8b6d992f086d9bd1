import type { RecordShape } from './record-type.ts';
import { typenameOf } from './record-source.ts';
import type { UserError } from './user-errors.ts';
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

  const UserError = builder.objectRef<UserError>('UserError').implement({
    description: 'Something in the arguments of a mutation that the caller can fix: nothing was written.',
    fields: (t) => ({
      field: t.stringList({
        nullable: true,
        description: 'The path of the argument at fault, in GraphQL names (["input", "lineitems", "0", "quantity"]); null when the error is about the request as a whole.',
        resolve: (error) => error.field,
      }),
      message: t.exposeString('message', { description: 'What is wrong, for a person.' }),
      code: t.exposeString('code', { description: 'The error code of the catalog, as the REST API answers it (validation.failed, precondition.failed ...).' }),
    }),
  });
  /** The userErrors field of every mutation payload. */
  const userErrorsField = (t: any) =>
    t.field({ type: [UserError], description: 'What the caller can fix in the arguments; empty when the mutation succeeded.', resolve: (payload: { userErrors: UserError[] }) => payload.userErrors });

  const DeletePayload = builder.objectRef<{ deletedId?: string; userErrors: UserError[] }>('DeletePayload').implement({
    description: 'The answer of a delete: the id of the record deleted, or what to fix.',
    fields: (t) => ({
      deletedId: t.id({ nullable: true, description: 'The id of the deleted record; null when nothing was deleted.', resolve: (payload) => payload.deletedId ?? null }),
      userErrors: userErrorsField(t),
    }),
  });

  // Every record type implements Node (node.ts serves node(id) and nodes(ids)); `typename` names the record's type.
  const Node = builder.interfaceRef<RecordShape>('Node').implement({
    description: 'A record of any resource, identified by its id alone.',
    resolveType: (value) => typenameOf(value)!,
    fields: (t) => ({ id: t.id({ description: 'The id of the record: a UUID, unique across resources.' }) }),
  });

  return { SortDirection, CustomFieldFilter, DeletePayload, UserError, userErrorsField, Node };
}

export type SharedTypes = ReturnType<typeof registerSharedTypes>;
