import type { ZodOpenAPIMetadata } from '@asteasolutions/zod-to-openapi';
import type { FieldSpec } from '../../kernel/fields.ts';
import type { RecordFieldInfo, ResourceDefinition } from '../../kernel/resource.ts';
import { describe, kindNote, kindSchema, referenceNote } from './field-schemas.ts';
import { z } from './zod.ts';

// The fields of a create or update body, from FieldSpecs and their create/update rules: shared by the resource
// bodies, the child entry bodies and the bodies of extra operations (contact linkages). A field reads the same in
// every body that takes it: whether a body needs it is the body's `required`, and that null clears a value is said
// by the update body. So each field is described once: by the record when it is written as served, else by the
// create body; the other bodies refer to that description instead of repeating it.

/** Whether null is accepted on write (it clears the value); mirrors ResourceService.prepare and checkChildren. */
function writeNullable(spec: FieldSpec): boolean {
  return spec.nullable !== false && spec.create !== 'required';
}

/**
 * What a body says about one of its fields beyond its spec: a sentence, the writeOnly keyword, and keywords of a
 * rule the resource enforces in its own code (body-rules.ts: a list that must not be empty).
 */
export type FieldNotes = (name: string) => { text?: string; writeOnly?: boolean; keywords?: ZodOpenAPIMetadata } | undefined;

/**
 * A member described once, by property `name` of the component schema `component`: a JSON pointer into that
 * component. zod-to-openapi only refers to whole components, and its metadata type has no $ref (it writes the
 * metadata into the schema as given). Required like any member unless made optional (unknown alone accepts
 * undefined, which the generator reads as optional).
 */
export function sameAs(component: string, name: string): z.ZodType {
  return z
    .unknown()
    .nonoptional()
    .openapi({ $ref: `#/components/schemas/${component}/properties/${name}` } as ZodOpenAPIMetadata);
}

/**
 * Where a body finds a field already described as it takes it: the component schema whose property of the same
 * name the body refers to, or undefined when the body describes the field itself.
 */
export type DescribedIn = (name: string, spec: FieldSpec) => string | undefined;

/**
 * Where the create and update bodies of a record's fields find each field described: the record (component
 * `record`) describes the fields it serves exactly as the bodies take them (served.field gives them the same kind,
 * nullability and text: not decimals, served as strings, nor fields with a write rule or note); the create body
 * (component `createBody`) describes the others, for the update body (and overrides of the create fields) to refer
 * to. `served` are the record's fields (outputFields), `readOnly` those it serves read-only instead (no body's).
 */
export function fieldHomes(record: string, createBody: string, served: RecordFieldInfo[], readOnly: Record<string, unknown> = {}, notes: FieldNotes = () => undefined): { create: DescribedIn; update: DescribedIn } {
  const nullable = new Map(served.filter((info) => !readOnly[info.name]).map((info) => [info.name, info.nullable]));
  const asServed = (name: string, spec: FieldSpec) => nullable.get(name) === writeNullable(spec) && spec.kind !== 'decimal' && !spec.writeRule && !notes(name);
  return {
    create: (name, spec) => (asServed(name, spec) ? record : undefined),
    update: (name, spec) => (spec.create === 'not_accepted' ? undefined : asServed(name, spec) ? record : createBody),
  };
}

/**
 * The writable fields of a body, each with its create or update rule: required fields are required on create,
 * not_accepted fields are left out (the body is strict, so sending them is refused), immutable fields are
 * accepted on update with the current value only. `notes` adds a sentence to a field (write-only fields); a field
 * that `describedIn` places elsewhere is a reference to that description.
 */
export function writeShape(fields: Record<string, FieldSpec>, mode: 'create' | 'update', notes: FieldNotes = () => undefined, describedIn: DescribedIn = () => undefined): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const rule = mode === 'create' ? spec.create : spec.update;
    if (rule === 'not_accepted') continue;
    const home = rule === 'immutable' ? undefined : describedIn(name, spec);
    let schema: z.ZodType;
    if (home) {
      schema = sameAs(home, name);
    } else {
      schema = kindSchema(spec);
      if (writeNullable(spec)) schema = schema.nullable();
      const note = notes(name);
      schema = describe(schema, spec.description, spec.writeRule, kindNote(spec, 'write'), referenceNote(spec), note?.text);
      // What an immutable field accepts the info says once; the keyword marks the field.
      if (rule === 'immutable') schema = schema.openapi({ 'x-immutable': true });
      if (note?.writeOnly) schema = schema.openapi({ writeOnly: true });
      if (note?.keywords) schema = schema.openapi(note.keywords);
    }
    shape[name] = rule === 'required' ? schema : schema.optional();
  }
  return shape;
}

/**
 * A strict body object with its x-not-accepted and x-immutable lists. That unknown fields are refused, and how an
 * update body treats omitted fields and null, the info says once for every body.
 */
export function bodyObject(shape: Record<string, z.ZodType>, description: string, refused: string[], immutable: string[] = []): z.ZodObject {
  return z
    .object(shape)
    .strict()
    .openapi({
      description: `${description}${refused.length ? ` Not accepted: ${refused.join(', ')}.` : ''}${immutable.length ? ` Not changeable (current value only): ${immutable.join(', ')}.` : ''}`,
      'x-not-accepted': refused,
      ...(immutable.length ? { 'x-immutable': immutable } : {}),
    });
}

/** Fields not accepted in a create or update body (they answer "cannot be set on create|update"). */
export function notAccepted(fields: Record<string, FieldSpec>, mode: 'create' | 'update', conventions: ResourceDefinition['conventions'] = {}): string[] {
  const out = Object.entries(fields)
    .filter(([, spec]) => (mode === 'create' ? spec.create : spec.update) === 'not_accepted')
    .map(([name]) => name);
  if (conventions.status && mode === 'create') out.push('status');
  return out;
}

/** Fields accepted on update only with their current value. */
export function immutableFields(fields: Record<string, FieldSpec>): string[] {
  return Object.entries(fields)
    .filter(([, spec]) => spec.update === 'immutable')
    .map(([name]) => name);
}
