import { AppError, validationError, type FieldErrors } from './errors.ts';

// Text PostgreSQL cannot store: a NUL character (text columns refuse it, jsonb refuses \u0000) and UTF-16 code
// units that are not part of a pair (lone surrogates have no UTF-8 form: the driver would silently turn them into
// U+FFFD, and jsonb refuses them). This is the one check of every client-chosen string on its way to the
// database, at the services' boundary, so REST and GraphQL answer alike and never with a 500:
//
// - the values a write or an action receives (ResourceService create and update, readActionInput in
//   src/kernel/action.ts): 422 validation.failed naming each field that holds such text, in the dotted style of
//   nested errors (`lineitems.0.description`, `custom_fields.<id>`); an object key holding it is reported on the
//   object (`custom_fields`, or the record's own key);
// - query parameters (runList, the lookups): 400 filter.invalid naming the parameter.

export const UNSTORABLE_MESSAGE = 'contains a character that cannot be stored (NUL or unpaired surrogate)';
export const UNSTORABLE_KEY_MESSAGE = 'has a key that contains a character that cannot be stored (NUL or unpaired surrogate)';

/** At most this many fields are named; a body full of such text gets a bounded answer. */
const MAX_REPORTED = 20;

/** String.prototype.isWellFormed (ES2024, in Node 24; the project's TypeScript lib is ES2023). */
const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed;

/** True when PostgreSQL can store the text as it is. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && isWellFormed.call(text);
}

/** The text with NUL, lone surrogates, quotes and control characters escaped as in JSON, to name it in a message. */
export function printable(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * The fields of a body value (a record, or any JSON-like value) holding text that cannot be stored, each with its
 * message. `root` names the value itself (a key found at its top level is reported under it); nested fields are
 * named from the value, without the root: `organization`, `lineitems.0.description`. Iterative, so no nesting
 * depth can overflow the stack.
 */
export function unstorableFields(value: unknown, root: string): FieldErrors {
  const errors: FieldErrors = {};
  let reported = 0;
  const report = (field: string, message: string) => {
    if (!Object.hasOwn(errors, field)) {
      Object.defineProperty(errors, field, { value: [], enumerable: true, writable: true, configurable: true });
      reported += 1;
    }
    if (!errors[field].includes(message)) errors[field].push(message);
  };
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0 && reported < MAX_REPORTED) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (!isStorableText(current)) report(path || root, UNSTORABLE_MESSAGE);
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const at = (segment: string) => (path ? `${path}.${segment}` : segment);
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) stack.push([current[index], at(String(index))]);
      continue;
    }
    const entries = Object.entries(current as Record<string, unknown>);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [key, child] = entries[index];
      if (!isStorableText(key)) report(path || root, UNSTORABLE_KEY_MESSAGE);
      else stack.push([child, at(key)]);
    }
  }
  return errors;
}

/** 422 validation.failed naming every field of the body value that holds text that cannot be stored. */
export function assertStorableBody(value: unknown, root: string): void {
  const errors = unstorableFields(value, root);
  if (Object.keys(errors).length > 0) throw validationError(errors);
}

/** 400 filter.invalid naming the first query parameter (name or value) that holds text that cannot be stored. */
export function assertStorableParameters(entries: readonly (readonly [string, string])[]): void {
  for (const [name, value] of entries) {
    if (!isStorableText(name)) throw new AppError('filter.invalid', `${printable(name)}: the parameter name ${UNSTORABLE_MESSAGE}`);
    if (!isStorableText(value)) throw new AppError('filter.invalid', `${name}: ${UNSTORABLE_MESSAGE}`);
  }
}
