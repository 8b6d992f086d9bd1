import { addError, NOT_PERMITTED, throwIfErrors } from '../kernel/body.ts';
import { validationError, type FieldErrors } from '../kernel/errors.ts';
import { printable } from '../kernel/storable.ts';

// The shapes of REST's JSON bodies: the record travels under its key ({"customer": {...}}), as the OpenAPI
// document describes each body. What is inside is the domain's to judge (its fields, and text PostgreSQL cannot
// store: src/kernel/storable.ts), whichever API it came from; here only where the values are in the body, and
// that nothing else is in it: a member beside the key is refused as an unknown field is, so that a typo (or a
// field sent at the wrong level) never silently drops data.

/** Each member of the body other than `key`, refused (by its name, printable-escaped as field names are). */
function addStrayMembers(errors: FieldErrors, body: object, key: string): void {
  for (const name of Object.keys(body)) if (name !== key) addError(errors, printable(name), NOT_PERMITTED);
}

/**
 * The record under `key`. A missing key and a non-object value are validation.failed on that key; any other member
 * of the body is validation.failed naming it ("is not a permitted field"), with the key's own error if it has one.
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
  const errors: FieldErrors = {};
  if (options.topLevel) {
    const others = Object.keys(body).filter((name) => name !== key);
    if (value === undefined || !Object.hasOwn(body, key)) value = body;
    else if (others.length > 0) {
      for (const name of others) addError(errors, printable(name), `cannot be given beside ${key}: send the fields either at the top level or under ${key}, not both`);
      throw validationError(errors);
    }
  } else {
    if (!Object.hasOwn(body, key)) value = undefined;
    addStrayMembers(errors, body, key);
  }
  if (value === undefined) addError(errors, key, 'is missing');
  else if (value === null || typeof value !== 'object' || Array.isArray(value)) addError(errors, key, 'must be an object');
  throwIfErrors(errors);
  return value as Record<string, unknown>;
}

/**
 * The optional overrides body of an action (`{"customer": {...}}`, ActionBody `overrides`): no body or no key is
 * {}; any other key is refused (422 naming it), so a misspelt one never runs the action with defaults silently.
 */
export function overridesFromBody(body: unknown, key: string): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const errors: FieldErrors = {};
    addStrayMembers(errors, body, key);
    throwIfErrors(errors);
  }
  return body === undefined || (typeof body === 'object' && body !== null && !(key in body)) ? {} : recordFromBody(body, key);
}
