import { addError } from './body.ts';
import { parseCalendarDate } from './dates.ts';
import { MAX_FIELD_ERRORS, type FieldErrors } from './errors.ts';
import type { CustomFieldDefinition } from './lookups.ts';

// custom_fields: an object keyed by definition id. Create sets, update merges (absent keys kept, null clears).
// Values are checked against the definition's type; required definitions must hold a value afterwards.
// Attachment fields are set through their multipart sub-resource, never through the body.

export type CustomFieldValues = Record<string, unknown>;

/** The most characters of a text custom field's value. */
export const MAX_CUSTOM_TEXT_LENGTH = 10_000;

function checkValue(def: CustomFieldDefinition, value: unknown): string | null {
  switch (def.field_type) {
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      return value.length > MAX_CUSTOM_TEXT_LENGTH ? `is too long (maximum is ${MAX_CUSTOM_TEXT_LENGTH} characters)` : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && parseCalendarDate(value) ? null : 'is not a valid date (YYYY-MM-DD)';
    case 'select':
      return typeof value === 'string' && def.options.includes(value) ? null : `must be one of: ${def.options.join(', ')}`;
    case 'multiselect':
      // Each option once at most, so the array is never longer than the options.
      return Array.isArray(value) && value.length <= def.options.length && value.every((v) => typeof v === 'string' && def.options.includes(v)) && new Set(value).size === value.length
        ? null
        : `must be an array of distinct values of: ${def.options.join(', ')}`;
    case 'attachment':
      return `is an attachment field; set or clear it with a multipart/form-data PUT or a DELETE on the record's custom_fields/${def.id} sub-path`;
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
    // An object holds one key per definition at most. More keys than the definitions and than one error names
    // (MAX_FIELD_ERRORS) are refused whole, before any key is looked at: a 1 MB body holds 40,000 keys.
    const keys = Object.keys(input);
    if (keys.length > Math.max(definitions.length, MAX_FIELD_ERRORS)) {
      addError(errors, 'custom_fields', `has ${keys.length} keys; at most ${definitions.length} (one per custom field definition of this resource)`);
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
