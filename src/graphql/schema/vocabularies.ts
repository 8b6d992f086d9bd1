import type { EnumRef } from '@pothos/core';
import { vocabularyOf } from '../../kernel/vocabulary.ts';
import type { Builder } from './builder.ts';
import { enumTexts, graphqlText } from './descriptions.ts';

// One GraphQL enum type per named vocabulary (src/kernel/vocabulary.ts), made once per builder: LinkableType,
// RelationshipType, Role, ItemType ... Every field, argument and input field whose `enum` is a named vocabulary is
// typed by it. A value's GraphQL name is its wire value in UPPER_SNAKE (Customer -> CUSTOMER, decision_maker ->
// DECISION_MAKER) and its internal value is the wire value, so resolvers read and services receive the REST values
// unchanged. An unnamed enum array (scopes, API versions) stays String.

/** The GraphQL name of a wire value: Customer -> CUSTOMER, decision_maker -> DECISION_MAKER, CustomerItemPrice -> CUSTOMER_ITEM_PRICE. */
export function enumValueName(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

const made = new WeakMap<Builder, Map<string, EnumRef<any, string>>>();

/** The enum type of a named vocabulary; undefined for an unnamed (or absent) enum array. */
export function vocabularyEnum(builder: Builder, values: readonly string[] | undefined): EnumRef<any, string> | undefined {
  const info = vocabularyOf(values);
  if (!info || !values) return undefined;
  const refs = made.get(builder) ?? made.set(builder, new Map()).get(builder)!;
  const known = refs.get(info.name);
  if (known) return known;
  const enumValues: Record<string, { value: string; description: string }> = {};
  for (const value of values) {
    const name = enumValueName(value);
    if (name in enumValues) throw new Error(`vocabulary ${info.name}: ${value} and ${enumValues[name]!.value} are both ${name}`);
    enumValues[name] = { value, description: graphqlText(info.describe?.(value)) ?? enumTexts.value(info.name, value) };
  }
  const ref = builder.enumType(info.name, { description: graphqlText(info.description), values: enumValues }) as EnumRef<any, string>;
  refs.set(info.name, ref);
  return ref;
}

/**
 * The GraphQL type of a value of this kind when its enum is a named vocabulary (a list of the enum for a string
 * list); otherwise `scalar`, the type of the kind alone.
 */
export function vocabularyType<S>(builder: Builder, kind: string, values: readonly string[] | undefined, scalar: S): S | EnumRef<any, string> | [EnumRef<any, string>] {
  const ref = vocabularyEnum(builder, values);
  if (!ref) return scalar;
  return kind === 'string[]' ? [ref] : ref;
}
