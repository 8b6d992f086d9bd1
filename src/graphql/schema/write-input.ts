import { valueFieldOf, type ChildCollection, type ResourceDefinition } from '../../kernel/resource.ts';
import type { Builder } from './builder.ts';
import { camelCase } from '../../kernel/naming.ts';
import { inputFieldText, inputTexts } from './descriptions.ts';
import { graphqlType, type FieldKind } from './field-types.ts';
import { childTypes } from './child-types.ts';

// The inputs of writes: the one declarative mapping between GraphQL input fields and the record's declared fields
// (writableFields), which types the create and update inputs (recordInput) and renames them (write-body.ts).

/** A field a create or update accepts: its wire name, its GraphQL name and how it is typed. */
export interface WritableField {
  wire: string;
  name: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  children?: ChildCollection;
  /** The field's enum (a named vocabulary is typed by its GraphQL enum). */
  enum?: readonly string[];
}

/** Fields accepted by create or update, in wire order, with their GraphQL names. */
export function writableFields(def: ResourceDefinition, mode: 'create' | 'update'): WritableField[] {
  const out: WritableField[] = [];
  const add = (wire: string, kind: FieldKind, required: boolean, description?: string, values?: readonly string[]) =>
    out.push({ wire, name: camelCase(wire), kind, required, description, enum: values });
  if (def.conventions.number) {
    add('number', 'string', false, inputTexts.number(mode));
  }
  for (const [wire, spec] of Object.entries(def.fields)) {
    const rule = mode === 'create' ? spec.create : spec.update;
    if (rule === 'not_accepted') continue;
    add(wire, spec.kind, rule === 'required', inputFieldText(spec, mode), spec.enum);
  }
  if (def.conventions.status && mode === 'update') add('status', 'string', false, inputTexts.status(def));
  if (def.conventions.labels) add('labels', 'string[]', false, inputTexts.labels(def));
  if (def.conventions.customFields) {
    add('custom_fields', 'json', false, inputTexts.customFields(def, mode));
  }
  for (const [wire, children] of Object.entries(def.children ?? {})) {
    out.push({ wire, name: camelCase(wire), kind: 'children', required: false, description: inputTexts.children(children), children });
  }
  return out;
}

/**
 * The input type of a resource's writable fields (create or update); with allOptional every field may be
 * omitted (overrides applied on top of defaults, as lead conversion's customer).
 */
export function recordInput(builder: Builder, def: ResourceDefinition, name: string, mode: 'create' | 'update', description: string, allOptional = false, except: readonly string[] = []) {
  type AnyOptions = never;
  return builder.inputType(name, {
    description,
    fields: (t) => {
      const fields: Record<string, unknown> = {};
      for (const field of writableFields(def, mode)) {
        if (except.includes(field.wire)) continue;
        const valueField = field.children && valueFieldOf(field.children);
        const type = valueField
          ? [graphqlType(valueField.spec.kind, builder, valueField.spec.enum)]
          : field.children
            ? [childTypes(builder, field.children).input]
            : graphqlType(field.kind, builder, field.enum);
        fields[field.name] = t.field({ type, required: field.required && !allOptional, description: field.description } as AnyOptions);
      }
      return fields as never;
    },
  });
}
