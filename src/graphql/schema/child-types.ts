import type { InputObjectRef, ObjectRef } from '@pothos/core';
import { childOutputFields, type ChildCollection } from '../../kernel/resource.ts';
import type { Builder } from './builder.ts';
import { exposeEntryField } from './record-source.ts';
import { camelCase, pascalCase } from '../../kernel/naming.ts';
import { childTexts, inputFieldText, outputFieldText } from './descriptions.ts';
import { graphqlType, servedFieldExtensions } from './field-types.ts';

// The types of a child collection's entries (a job's lineitems, a contact's phone numbers): an output type, read
// in the parent record's connection, and an input type, given in the parent's create and update inputs. A
// collection is typed once per builder, shared by every parent that uses it.

/** The output and input type of a child collection's entries. */
export interface ChildTypes {
  output: ObjectRef<any, Record<string, unknown>>;
  input: InputObjectRef<any, unknown>;
}

/** The GraphQL type name of one entry of a child collection: "phone number" -> PhoneNumber. */
export function childTypeName(children: ChildCollection): string {
  return pascalCase(children.label.replace(/ /g, '_'));
}

const childTypeCache = new WeakMap<Builder, Map<string, ChildTypes>>();

/** Output and input types of a child collection's entries (PhoneNumber, PhoneNumberInput), made once per builder. */
export function childTypes(builder: Builder, children: ChildCollection): ChildTypes {
  const cache = childTypeCache.get(builder) ?? childTypeCache.set(builder, new Map()).get(builder)!;
  const name = childTypeName(children);
  const known = cache.get(name);
  if (known) return known;
  type AnyOptions = never;
  const output = builder.objectRef<Record<string, unknown>>(name).implement({
    description: childTexts.type(children),
    fields: (t) =>
      Object.fromEntries(
        childOutputFields(children).map((info) => [
          camelCase(info.name),
          // Read as a property of the entry (record-source.ts): no resolver.
          (exposeEntryField(camelCase(info.name), info.name),
          t.field({ type: graphqlType(info.kind, builder, info.enum), nullable: info.nullable, description: outputFieldText(info), extensions: servedFieldExtensions(info) } as AnyOptions)),
        ]),
      ) as never,
  });
  // An entry is named by its id only where an existing entry can change: entries whose fields are all fixed once
  // written (a transfer's or a receipt's lines) are only ever new.
  const changeable = Object.values(children.fields).some((spec) => spec.update !== 'not_accepted');
  const input = builder.inputType(`${name}Input`, {
    description: childTexts.input(children),
    fields: (t) =>
      Object.fromEntries([
        ...(changeable ? [['id', t.field({ type: 'ID', required: false, description: childTexts.inputId(children) } as AnyOptions)]] : []),
        ...Object.entries(children.fields).map(([wire, spec]) => [
          camelCase(wire),
          t.field({ type: graphqlType(spec.kind, builder, spec.enum), required: false, description: inputFieldText(spec) } as AnyOptions),
        ]),
      ]) as never,
  });
  const refs = { output, input };
  cache.set(name, refs);
  return refs;
}
