import type { ObjectRef } from '@pothos/core';
import type { WireField, WireKind, WireOf, WireShape } from '../../kernel/wire-shape.ts';
import { vocabularyOf } from '../../kernel/vocabulary.ts';
import type { Builder } from './builder.ts';
import { camelCase, pascalCase } from '../../kernel/naming.ts';
import { graphqlText, wireFieldText } from './descriptions.ts';
import { vocabularyEnum, vocabularyType } from './vocabularies.ts';

// The GraphQL object type of a wire shape (src/kernel/wire-shape.ts): each field is the camelCase name of a wire
// field and resolves to that field of the object the service serialized, so both APIs serve the same content.
// One type per shape and schema, made on first use (shapes nest and several fields return the same one).

const scalarOf: Record<WireKind, string | [string]> = {
  string: 'String',
  email: 'String',
  uuid: 'ID',
  datetime: 'DateTime',
  integer: 'Int',
  number: 'Float',
  int64: 'SafeInt',
  boolean: 'Boolean',
  'string[]': ['String'],
  json: 'JSON',
};

const made = new WeakMap<Builder, Map<string, ObjectRef<any, any>>>();

export function wireObject<S extends WireShape>(builder: Builder, shape: S): ObjectRef<any, WireOf<S>> {
  const refs = made.get(builder) ?? made.set(builder, new Map()).get(builder)!;
  const known = refs.get(shape.name);
  if (known) return known;
  const typeOf = (field: WireField, wire: string) =>
    typeof field.kind !== 'string'
      ? wireObject(builder, field.kind)
      : (settingsObject(builder, `${shape.name}${pascalCase(wire)}`, field) ?? vocabularyType(builder, field.kind, field.enum, scalarOf[field.kind]));
  const ref = builder.objectRef<WireOf<S>>(shape.name);
  refs.set(shape.name, ref);
  ref.implement({
    description: graphqlText(shape.description),
    fields: (t) =>
      Object.fromEntries(
        Object.entries(shape.fields).map(([wire, field]) => [
          camelCase(wire),
          t.field({
            type: typeOf(field, wire),
            nullable: field.nullable ?? false,
            description: wireFieldText(shape.name, wire, field.description),
            // A one-word name is the object's own property: no resolver, so graphql-jit reads it inline.
            ...(camelCase(wire) === wire ? {} : { resolve: (parent: Record<string, unknown>) => parent[wire] }),
          } as never),
        ]),
      ) as never,
  });
  return ref;
}

const settings = new WeakMap<Builder, Map<string, ObjectRef<any, any>>>();

/**
 * A json field whose keys are fixed and whose values are each a named vocabulary (the account's modules) as an
 * object type of enums: `MeAccountModules { addressRequired: AddressRequiredSetting! ... }`; undefined otherwise.
 */
function settingsObject(builder: Builder, name: string, field: WireField): ObjectRef<any, Record<string, string>> | undefined {
  const values = field.values;
  if (field.kind !== 'json' || !values || !Object.values(values).every((vocabulary) => vocabularyOf(vocabulary))) return undefined;
  const refs = settings.get(builder) ?? settings.set(builder, new Map()).get(builder)!;
  const known = refs.get(name);
  if (known) return known;
  const ref = builder.objectRef<Record<string, string>>(name).implement({
    description: "The account's modules, each with its setting.",
    fields: (t) =>
      Object.fromEntries(
        Object.entries(values).map(([key, vocabulary]) => [
          key.charAt(0).toLowerCase() + key.slice(1),
          t.field({ type: vocabularyEnum(builder, vocabulary)!, description: vocabularyOf(vocabulary)!.description, resolve: (parent: Record<string, string>) => parent[key] } as never),
        ]),
      ) as never,
  });
  refs.set(name, ref);
  return ref;
}
