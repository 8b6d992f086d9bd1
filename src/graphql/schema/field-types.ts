import type { EnumRef } from '@pothos/core';
import { LIST_ENTRY_CHARACTERS } from '../../kernel/fields.ts';
import type { RecordFieldInfo } from '../../kernel/resource.ts';
import type { Builder } from './builder.ts';
import { vocabularyType } from './vocabularies.ts';

// The GraphQL type of a declared field, from its kind (src/kernel/fields.ts): the scalar it is read and written
// as, or the enum of its named vocabulary.

/** The scalars a field kind maps to (the custom ones are registered in shared-types.ts). */
export type ScalarName = 'String' | 'Int' | 'Float' | 'Boolean' | 'ID' | 'SafeInt' | 'Decimal' | 'Date' | 'DateTime' | 'JSON';
/** The kind of a declared field. */
export type FieldKind = RecordFieldInfo['kind'];

const scalarOfKind: Record<Exclude<FieldKind, 'string[]' | 'children'>, ScalarName> = {
  string: 'String',
  text: 'String',
  email: 'String',
  url: 'String',
  integer: 'Int',
  int64: 'SafeInt',
  number: 'Float',
  decimal: 'Decimal',
  boolean: 'Boolean',
  date: 'Date',
  datetime: 'DateTime',
  uuid: 'ID',
  json: 'JSON',
};

/**
 * The GraphQL type of a field kind; with the builder and the field's enum, a named vocabulary's enum type instead
 * (a list of it for a string list; src/graphql/schema/vocabularies.ts).
 */
export function graphqlType(kind: FieldKind): ScalarName | [ScalarName];
export function graphqlType(kind: FieldKind, builder: Builder, values: readonly string[] | undefined): ScalarName | [ScalarName] | EnumRef<any, string> | [EnumRef<any, string>];
export function graphqlType(kind: FieldKind, builder?: Builder, values?: readonly string[]) {
  if (kind === 'children') throw new Error('child collections are typed by their own object type');
  const scalar: ScalarName | [ScalarName] = kind === 'string[]' ? ['String'] : scalarOfKind[kind];
  return builder ? vocabularyType(builder, kind, values, scalar) : scalar;
}

/**
 * The extensions of a served field that the result bound reads (../transport/result-bound.ts): the most characters
 * of its value when its declaration says (a text kind's max, a string list's entries of 255 characters); other
 * kinds are bounded by their scalar.
 */
export function servedFieldExtensions(info: Pick<RecordFieldInfo, 'kind' | 'max'>): { maxChars: number } | undefined {
  if (info.max === undefined) return undefined;
  return { maxChars: info.kind === 'string[]' ? info.max * LIST_ENTRY_CHARACTERS : info.max };
}
