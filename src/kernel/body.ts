import { z } from 'zod';
import { AppError, validationError, type FieldErrors } from './errors.ts';
import { assertStorableBody, printable } from './storable.ts';

/**
 * The body-shape rule: the record travels under the resource-named key. A missing key and a non-object
 * value are validation.failed on that key. The record's text is then checked once for what PostgreSQL cannot
 * store (src/kernel/storable.ts): every service that takes a body takes its record from here, so REST and
 * GraphQL (whose resolvers send the same wire body) answer 422 naming the field, never 500.
 *
 * With `topLevel` (the fields an endpoint's spec lists at the top level of the body, as for contact linkages),
 * the record may also be the body itself: a body without the key is the record. A body with the key and any
 * other member is ambiguous and refused (422 naming each other member), so nothing sent is silently ignored.
 */
export function recordFromBody(body: unknown, key: string, options: { topLevel?: boolean } = {}): Record<string, unknown> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw validationError({ [key]: ['is missing'] });
  }
  let value = (body as Record<string, unknown>)[key];
  if (options.topLevel) {
    const others = Object.keys(body).filter((name) => name !== key);
    if (value === undefined || !Object.hasOwn(body, key)) value = body;
    else if (others.length > 0) {
      const errors: FieldErrors = {};
      for (const name of others) addError(errors, printable(name), `cannot be given beside ${key}: send the fields either at the top level or under ${key}, not both`);
      throw validationError(errors);
    }
  }
  if (value === undefined) throw validationError({ [key]: ['is missing'] });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError({ [key]: ['must be an object'] });
  assertStorableBody(value, key);
  return value as Record<string, unknown>;
}

/**
 * The optional overrides body of an action (`{"customer": {...}}`, ActionBody `overrides`): no body or no key is
 * {}; any other key is refused (422 naming it), so a misspelt one never runs the action with defaults silently.
 */
export function overridesFromBody(body: unknown, key: string): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const stray = Object.keys(body).filter((name) => name !== key);
    if (stray.length > 0) throw validationError(Object.fromEntries(stray.map((name) => [printable(name), ['is not a permitted field']])));
  }
  return body === undefined || (typeof body === 'object' && body !== null && !(key in body)) ? {} : recordFromBody(body, key);
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
