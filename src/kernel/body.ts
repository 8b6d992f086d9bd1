import { z } from 'zod';
import { AppError, validationError, type FieldErrors } from './errors.ts';

/**
 * The body-shape rule: the record travels under the resource-named key. A missing key and a non-object
 * value are validation.failed on that key.
 */
export function recordFromBody(body: unknown, key: string): Record<string, unknown> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError({ [key]: ['is missing'] });
  }
  const value = (body as Record<string, unknown>)[key];
  if (value === undefined) throw validationError({ [key]: ['is missing'] });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError({ [key]: ['must be an object'] });
  return value as Record<string, unknown>;
}

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
