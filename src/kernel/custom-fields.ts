import { addError } from './body.ts';
import { parseCalendarDate } from './dates.ts';
import type { FieldErrors } from './errors.ts';
import type { CustomFieldDefinition } from './lookups.ts';

// custom_fields: an object keyed by definition id. Create sets, update merges (absent keys kept, null clears).
// Values are checked against the definition's type; required definitions must hold a value afterwards.
// Attachment fields are set through their multipart sub-resource, never through the body.

export type CustomFieldValues = Record<string, unknown>;

function checkValue(def: CustomFieldDefinition, value: unknown): string | null {
  switch (def.field_type) {
    case 'text':
      return typeof value === 'string' ? null : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && parseCalendarDate(value) ? null : 'is not a valid date (YYYY-MM-DD)';
    case 'select':
      return typeof value === 'string' && def.options.includes(value) ? null : `must be one of: ${def.options.join(', ')}`;
    case 'multiselect':
      return Array.isArray(value) && value.every((v) => typeof v === 'string' && def.options.includes(v))
        ? null
        : `must be an array of: ${def.options.join(', ')}`;
    case 'attachment':
      return 'is an attachment field; set it with PUT on the record\'s custom_fields/{field_id} sub-path';
  }
}

export function mergeCustomFields(
  input: unknown,
  definitions: readonly CustomFieldDefinition[],
  existing: CustomFieldValues | null,
  errors: FieldErrors,
): CustomFieldValues {
  const result: CustomFieldValues = { ...(existing ?? {}) };
  if (input !== undefined) {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      addError(errors, 'custom_fields', 'must be an object');
      return result;
    }
    const byId = new Map(definitions.map((d) => [d.id, d]));
    for (const [id, value] of Object.entries(input as Record<string, unknown>)) {
      const def = byId.get(id);
      const field = `custom_fields.${id}`;
      if (!def) {
        addError(errors, field, 'is not a custom field definition of this resource');
        continue;
      }
      if (value === null) {
        if (def.field_type === 'attachment') addError(errors, field, checkValue(def, value)!);
        else delete result[id];
        continue;
      }
      const problem = checkValue(def, value);
      if (problem) addError(errors, field, problem);
      else result[id] = value;
    }
  }
  for (const def of definitions) {
    if (!def.required || def.field_type === 'attachment') continue;
    const value = result[def.id];
    if (value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)) {
      addError(errors, `custom_fields.${def.id}`, `is required (${def.name})`);
    }
  }
  return result;
}
