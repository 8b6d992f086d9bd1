import { z } from 'zod';
import { validationError, type FieldErrors } from './errors.ts';

/** The message of a field a body may not carry: unknown to the record, or a member beside the body's key. */
export const NOT_PERMITTED = 'is not a permitted field';

/** Adds a message under a field name the client may have chosen ("constructor", "__proto__"): an own key always. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  if (!Object.hasOwn(errors, field)) Object.defineProperty(errors, field, { value: [], enumerable: true, writable: true, configurable: true });
  errors[field].push(message);
}

/** Turns zod issues into field -> messages, keyed by the top-level field (or field.sub for nested values). */
export function zodIssuesToErrors(error: z.ZodError, prefix?: string): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of error.issues) {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    addError(errors, path || (prefix ?? 'body'), issue.message);
  }
  return errors;
}

export function throwIfErrors(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

