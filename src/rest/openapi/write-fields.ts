import type { FieldSpec } from '../../kernel/fields.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import { describe, kindNote, kindSchema, referenceNote } from './field-schemas.ts';
import { z } from './zod.ts';

// The fields of a create or update body, from FieldSpecs and their create/update rules: shared by the resource
// bodies, the child entry bodies and the bodies of extra operations (contact linkages).

/** Whether null is accepted on write (it clears the value); mirrors ResourceService.prepare and checkChildren. */
function writeNullable(spec: FieldSpec): boolean {
  return spec.nullable !== false && spec.create !== 'required';
}

const immutableNote = 'Cannot be changed: accepted only with the current value (a no-op); any other value gives 422 validation.failed ("cannot be changed").';

/** What a body says about one of its fields beyond its spec: a sentence, and the writeOnly keyword. */
export type FieldNotes = (name: string) => { text: string; writeOnly?: boolean } | undefined;

/**
 * The writable fields of a body, each with its create or update rule: required fields are required on create,
 * not_accepted fields are left out (the body is strict, so sending them is refused), immutable fields are
 * accepted on update with the current value only. `notes` adds a sentence to a field (write-only fields).
 */
export function writeShape(fields: Record<string, FieldSpec>, mode: 'create' | 'update', notes: FieldNotes = () => undefined): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const rule = mode === 'create' ? spec.create : spec.update;
    if (rule === 'not_accepted') continue;
    let schema = kindSchema(spec);
    if (writeNullable(spec)) schema = schema.nullable();
    const required = mode === 'create' && rule === 'required';
    const clears = mode === 'update' && rule === 'optional' && writeNullable(spec) ? 'null clears the value.' : undefined;
    const note = notes(name);
    schema = describe(schema, spec.description, spec.writeRule, kindNote(spec, 'write'), referenceNote(spec), note?.text, required ? 'Required.' : clears, rule === 'immutable' ? immutableNote : undefined);
    if (rule === 'immutable') schema = schema.openapi({ 'x-immutable': true });
    if (note?.writeOnly) schema = schema.openapi({ writeOnly: true });
    shape[name] = required ? schema : schema.optional();
  }
  return shape;
}

/** A strict body object (unknown fields are refused) with its x-not-accepted and x-immutable lists. */
export function bodyObject(shape: Record<string, z.ZodType>, description: string, refused: string[], immutable: string[] = []): z.ZodObject {
  return z
    .object(shape)
    .strict()
    .openapi({
      description: `${description} Unknown fields are refused.${refused.length ? ` Not accepted: ${refused.join(', ')}.` : ''}${immutable.length ? ` Not changeable (current value only): ${immutable.join(', ')}.` : ''}`,
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
