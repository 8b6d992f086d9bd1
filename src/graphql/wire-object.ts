import type { ObjectRef } from '@pothos/core';
import type { WireField, WireKind, WireOf, WireShape } from '../kernel/wire-shape.ts';
import type { Builder } from './builder.ts';
import { camelCase } from './naming.ts';
import { graphqlText, wireFieldText } from './descriptions.ts';

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
  const typeOf = (field: WireField) => (typeof field.kind === 'string' ? scalarOf[field.kind] : wireObject(builder, field.kind));
  const ref = builder.objectRef<WireOf<S>>(shape.name);
  refs.set(shape.name, ref);
  ref.implement({
    description: graphqlText(shape.description),
    fields: (t) =>
      Object.fromEntries(
        Object.entries(shape.fields).map(([wire, field]) => [
          camelCase(wire),
          t.field({
            type: typeOf(field),
            nullable: field.nullable ?? false,
            description: wireFieldText(shape.name, wire, field.description),
            resolve: (parent: Record<string, unknown>) => parent[wire],
          } as never),
        ]),
      ) as never,
  });
  return ref;
}
