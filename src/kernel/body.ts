import { z } from 'zod';
import { AppError, validationError, type FieldErrors } from './errors.ts';

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

export { AppError };
