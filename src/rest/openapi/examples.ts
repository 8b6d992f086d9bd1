import { createHash } from 'node:crypto';
import { resources } from '../../domain.ts';
import type { FieldSpec } from '../../kernel/fields.ts';
import { childOutputFields, outputFields, valueFieldOf, type ChildCollection, type ReadOnlyField, type ResourceDefinition } from '../../kernel/resource.ts';
import type { WireField, WireShape } from '../../kernel/wire-shape.ts';
import { pascal, words } from './naming.ts';

// Example values, generated from the same declarations as the schemas they illustrate (FieldSpecs, read-only
// fields, child collections, conventions, wire shapes): nothing here is written per resource. The rules:
// - a value of the field's kind, within its enum (the first value), range and scale: text is
//   "Example <field name>", numbers are 1 (clamped to the range), decimals "1.00" at the field's scale, booleans
//   true, dates and timestamps one fixed moment;
// - ids are UUID v7s derived from what they name, so they agree across examples: a record's id is derived from
//   its class, and a field referencing a record (`references`, `<name>_id` of a resource, or `<stem>_id` beside a
//   `<stem>_type` enum) carries the id of that record's example;
// - every field has a value (nullable ones too, to show their type); computed fields are of their kind, not
//   computed from the others.

/** The moment every example date and timestamp shows. */
const MOMENT = '2026-01-15T09:30:00.000Z';
export const exampleMoment = MOMENT;

/** A user id (int64 ids are users'). */
const USER_ID = 7;

/** A continuation cursor as a list serves it: opaque, base64url payload "." base64url signature. */
export const exampleCursor = `${Buffer.from('{"example":"cursor"}').toString('base64url')}.${Buffer.from('signature').toString('base64url')}`;

/** A UUID v7 of the example moment whose other bits are derived from `seed`: the same seed, the same id. */
export function exampleId(seed: string): string {
  const time = Date.parse(MOMENT).toString(16).padStart(12, '0');
  const hash = createHash('sha256').update(seed).digest('hex');
  const variant = '89ab'[parseInt(hash[3], 16) % 4];
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hash.slice(0, 3)}-${variant}${hash.slice(4, 7)}-${hash.slice(7, 19)}`;
}

/** The class whose example id a uuid field named `name` carries (see the rules above); null: none is known. */
function referencedClass(name: string, references: FieldSpec['references'], siblings: Record<string, { enum?: readonly string[] }>): string | null {
  if (references) return resources.find((def) => def.model === references.model)?.className ?? pascal(references.model);
  const stem = /^(.+)_id$/.exec(name)?.[1];
  if (!stem) return null;
  const typed = siblings[`${stem}_type`]?.enum?.[0];
  return typed ?? resources.find((def) => def.name === stem)?.className ?? null;
}

/** "Example <field name>", or the bare name where that is too long for the field. */
function text(name: string, max = 255): string {
  const example = `Example ${words(name)}`;
  return (example.length <= max ? example : words(name)).slice(0, max);
}

function clamped(value: number, range?: readonly [number, number]): number {
  return range ? Math.min(Math.max(value, range[0]), range[1]) : value;
}

type ValueSpec = Pick<FieldSpec, 'kind' | 'enum' | 'range' | 'scale' | 'max' | 'references'>;

/** A value of a written or read-only field, as served (and accepted: every served form is also a valid input). */
function fieldValue(name: string, spec: ValueSpec, siblings: Record<string, { enum?: readonly string[] }>): unknown {
  if (spec.enum) return spec.enum[0];
  switch (spec.kind) {
    case 'string':
    case 'text':
      return text(name, spec.max);
    case 'email':
      return 'someone@example.com';
    case 'url':
      return 'https://www.example.com';
    case 'integer':
    case 'number':
      return clamped(1, spec.range);
    case 'int64':
      return USER_ID;
    case 'decimal':
      return clamped(1, spec.range).toFixed(spec.scale ?? 2);
    case 'boolean':
      return true;
    case 'date':
      return MOMENT.slice(0, 10);
    case 'datetime':
      return MOMENT;
    case 'uuid':
      return exampleId(referencedClass(name, spec.references, siblings) ?? name);
    case 'string[]':
      // One entry (`max` bounds the entries, not their length).
      return [text(name)];
  }
}

/** Every served field of an entity: read-only fields first (they shadow a written field of the same name). */
function servedValue(name: string, fields: Record<string, FieldSpec>, readOnly: Record<string, ReadOnlyField> = {}): unknown {
  const siblings = { ...fields, ...readOnly };
  return fieldValue(name, readOnly[name] ?? fields[name], siblings);
}

function childRecord(collection: ChildCollection): Record<string, unknown> {
  return Object.fromEntries(
    childOutputFields(collection).map((info) => [
      info.name,
      info.name === 'id' ? exampleId(collection.label) : servedValue(info.name, collection.fields, collection.readOnly),
    ]),
  );
}

/** A served value the kernel's conventions add (id, number, status, labels, custom_fields, timestamps). */
function conventionValue(def: ResourceDefinition, name: string): unknown {
  switch (name) {
    case 'id':
      return exampleId(def.className);
    case 'number':
      return '1';
    case 'status':
      return def.conventions.status?.defaults[0];
    case 'labels':
      return [];
    case 'custom_fields':
      return {};
    case 'created_at':
    case 'updated_at':
      return MOMENT;
    default:
      throw new Error(`openapi: no example for the field ${def.name}.${name}`);
  }
}

/** The record as served, field by field from outputFields(def), as recordSchema() describes it. */
export function recordExample(def: ResourceDefinition): Record<string, unknown> {
  const writeOnly = new Set(def.writeOnly ?? []);
  return Object.fromEntries(
    outputFields(def).map((info) => {
      if (def.readOnly?.[info.name] || (def.fields[info.name] && !writeOnly.has(info.name))) return [info.name, servedValue(info.name, def.fields, def.readOnly)];
      if (info.kind === 'children') {
        const valueField = valueFieldOf(info.children!);
        return [info.name, [valueField ? fieldValue(valueField.name, valueField.spec, info.children!.fields) : childRecord(info.children!)]];
      }
      return [info.name, conventionValue(def, info.name)];
    }),
  );
}

/** The fields of a create body: every field the create accepts. */
export function createFieldsExample(fields: Readonly<Record<string, FieldSpec>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, spec]) => spec.create !== 'not_accepted').map(([name, spec]) => [name, fieldValue(name, spec, fields)]));
}

/**
 * A partial write of one field (an update, or overrides of a create): the first field the write takes freely (not
 * immutable) of a text kind, else the first such field of any kind.
 */
export function partialFieldsExample(fields: Readonly<Record<string, FieldSpec>>, mode: 'create' | 'update'): Record<string, unknown> {
  const free = Object.keys(fields).filter((name) => (mode === 'create' ? fields[name].create !== 'not_accepted' : fields[name].update === 'optional'));
  const chosen = free.find((name) => fields[name].kind === 'string' || fields[name].kind === 'text') ?? free[0];
  return chosen ? { [chosen]: fieldValue(chosen, fields[chosen], fields) } : {};
}

/**
 * A create body's record: every accepted field and one new entry per child collection. The conventions are left
 * out: the server assigns the number, and labels and custom fields name the tenant's own definitions.
 */
export function createExample(def: ResourceDefinition): Record<string, unknown> {
  const children = Object.entries(def.children ?? {}).map(([name, collection]) => {
    const valueField = valueFieldOf(collection);
    return [name, [valueField ? fieldValue(valueField.name, valueField.spec, collection.fields) : createFieldsExample(collection.fields)]];
  });
  return { ...createFieldsExample(def.fields), ...Object.fromEntries(children) };
}

/** An update body's record: a partial write of one field. */
export function updateExample(def: ResourceDefinition): Record<string, unknown> {
  return partialFieldsExample(def.fields, 'update');
}

function wireValue(name: string, field: WireField, shape: WireShape): unknown {
  if (typeof field.kind !== 'string') return shapeExample(field.kind);
  if (field.kind === 'string[]') return [field.enum?.[0] ?? text(name)];
  if (field.kind === 'json') return Object.fromEntries(Object.entries(field.values ?? {}).map(([key, values]) => [key, values[0]]));
  if (name === 'id' && field.kind === 'uuid') return exampleId(shape.name);
  return fieldValue(name, { kind: field.kind, enum: field.enum }, shape.fields);
}

/** An object of a wire shape (me, lookups, contact linkages), nested shapes included. */
export function shapeExample(shape: WireShape): Record<string, unknown> {
  return Object.fromEntries(Object.entries(shape.fields).map(([name, field]) => [name, wireValue(name, field, shape)]));
}
