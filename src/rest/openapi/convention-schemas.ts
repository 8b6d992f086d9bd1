import type { ResourceDefinition } from '../../kernel/resource.ts';
import { z } from './zod.ts';

// The labels and custom_fields conventions, as served on a record and as written in a create or update body.

/** A value of custom_fields, by definition type. */
function customFieldValue(nullable: boolean): z.ZodType {
  const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
  return (nullable ? value.nullable() : value).openapi({
    description:
      'text, select: string (select: one of the options); number: number; date: YYYY-MM-DD; checkbox: boolean; multiselect: array of options. Attachment fields are not set through the body.',
  });
}

export function customFieldsSchema(def: ResourceDefinition, mode: 'record' | 'create' | 'update'): z.ZodType {
  const where = `GET /custom_field_definitions?related_name=${def.className}`;
  const notes = {
    record: `Keyed by custom field definition id (${where}).`,
    create: `Keyed by custom field definition id (${where}). Unknown ids or wrongly typed values give 422 validation.failed; required definitions must be given.`,
    update: `Merged into the stored values: ids absent from the payload are kept, an id set to null is cleared. Keys are custom field definition ids (${where}).`,
  }[mode];
  return z.record(z.string(), customFieldValue(mode !== 'record')).openapi({ description: notes });
}

export function labelsSchema(def: ResourceDefinition, mode: 'record' | 'create' | 'update'): z.ZodType {
  const where = `display_name values of GET /labels?related_name=${def.className}`;
  const notes = {
    record: `Labels (${where}).`,
    create: `Each value must be one of the ${where}; an unknown label gives 422 validation.failed.`,
    update: `Replaces the whole list; [] clears all labels, omitting the key keeps them. Each value must be one of the ${where}.`,
  }[mode];
  return z.array(z.string()).openapi({ description: notes });
}
