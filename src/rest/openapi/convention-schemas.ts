import { MAX_CUSTOM_TEXT_LENGTH } from '../../kernel/custom-fields.ts';
import { lookupClassOf, type ResourceDefinition } from '../../kernel/resource.ts';
import { z } from './zod.ts';

// The labels and custom_fields conventions, as served on a record and as written in a create or update body.

const valueTypes = `text, select: string (text: at most ${MAX_CUSTOM_TEXT_LENGTH} characters; select: one of the options); number: number; date: YYYY-MM-DD; checkbox: boolean; multiselect: array of distinct options.`;

/** A value of custom_fields, by definition type: one component as served, one as written (null clears it). */
function customFieldValue(mode: 'record' | 'create' | 'update'): z.ZodType {
  const types = [z.string().max(MAX_CUSTOM_TEXT_LENGTH), z.number(), z.boolean(), z.array(z.string())] as const;
  return mode === 'record'
    ? z.union(types).openapi('CustomFieldValue', { description: `A custom field value, by definition type: ${valueTypes}` })
    : z.union([...types, z.null()]).openapi('CustomFieldWriteValue', {
        description: `A custom field value as written, by definition type: ${valueTypes} null clears the value. Attachment fields are not set through the body.`,
      });
}

export function customFieldsSchema(def: ResourceDefinition, mode: 'record' | 'create' | 'update'): z.ZodType {
  const where = `GET /custom_field_definitions?related_name=${lookupClassOf(def)}`;
  const notes = {
    record: `Keyed by custom field definition id (${where}).`,
    create: `Keyed by custom field definition id (${where}), one key per definition at most.`,
    update: `Keyed by custom field definition id (${where}), one key per definition at most; merged into the stored values.`,
  }[mode];
  return z.record(z.string(), customFieldValue(mode)).openapi({ description: notes });
}

export function labelsSchema(def: ResourceDefinition, mode: 'record' | 'create' | 'update'): z.ZodType {
  const where = `display_name values of GET /labels?related_name=${lookupClassOf(def)}`;
  const notes = {
    record: `Labels (${where}).`,
    create: `Each value must be one of the ${where}; an unknown label gives 422 validation.failed.`,
    update: `Replaces the whole list; [] clears all labels, omitting the key keeps them. Each value must be one of the ${where}.`,
  }[mode];
  return z.array(z.string()).openapi({ description: notes });
}
