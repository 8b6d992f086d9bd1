import { addError, NOT_PERMITTED, throwIfErrors } from '../kernel/body.ts';
import { AppError, validationError, type FieldErrors } from '../kernel/errors.ts';
import type { ListRequestDraft } from '../kernel/listing.ts';

// A tool's arguments, read by the adapter itself (as REST reads its path, query and body): unknown members,
// missing or mistyped ids, records and etags are refused with the codes REST gives for the same mistakes.

export type Args = Record<string, unknown>;

/** Refuses any argument the tool does not take (validation.failed naming it), as REST refuses an unknown member. */
export function onlyKnown(args: Args, known: readonly string[]): void {
  const errors: FieldErrors = {};
  for (const name of Object.keys(args)) if (!known.includes(name)) addError(errors, name, NOT_PERMITTED);
  throwIfErrors(errors);
}

/** A record id: a string, else no record has it (as an id REST cannot find). */
export function idArg(args: Args, name = 'id'): string {
  const value = args[name];
  if (value === undefined) throw validationError({ [name]: ['is missing'] });
  if (typeof value !== 'string') throw new AppError('resource.not_found', 'No record has this id.');
  return value;
}

/** The record under the resource's body key, an object. */
export function recordArg(args: Args, key: string, required = true): Record<string, unknown> {
  const value = args[key];
  if (value === undefined && !required) return {};
  if (value === undefined) throw validationError({ [key]: ['is missing'] });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError({ [key]: ['must be an object'] });
  return value as Record<string, unknown>;
}

/** The etag argument (If-Match of REST): absent, the service answers precondition.required. */
export function etagArg(args: Args): string | undefined {
  const value = args.etag;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validationError({ etag: ['must be a string'] });
  return value;
}

export const LIST_CONTROLS = ['cursor', 'limit', 'sort', 'q'] as const;

/**
 * A list tool's arguments as the kernel's list request: the list parameters of the OpenAPI operation, by the same
 * names (`cursor`, `limit`, `sort`, `q`, `<filter>`, `<filter>[<operator>]`), and `custom_fields` as an object keyed by
 * definition ids.
 */
export function listRequestOf(args: Args): ListRequestDraft {
  const request: ListRequestDraft = { filters: [], customFields: [] };
  const text = (name: string, value: unknown): string | string[] => {
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new AppError('filter.invalid', `${name}: must be a string`);
  };
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if ((LIST_CONTROLS as readonly string[]).includes(key)) {
      const given = text(key, value);
      if (Array.isArray(given)) throw new AppError('filter.invalid', `${key}: must be a string`);
      request[key as (typeof LIST_CONTROLS)[number]] = given;
      continue;
    }
    if (key === 'custom_fields') {
      // The document's deepObject parameter (`custom_fields[<field_id>]=<value>` in a query string) is an object
      // argument here: `{"custom_fields": {"<field_id>": "<value>"}}`.
      if (typeof value !== 'object' || Array.isArray(value)) throw new AppError('filter.invalid', 'custom_fields: must be an object keyed by custom field definition ids');
      for (const [id, given] of Object.entries(value)) {
        const one = text(`custom_fields[${id}]`, given);
        if (Array.isArray(one)) throw new AppError('filter.invalid', `custom_fields[${id}]: must be a string`);
        request.customFields.push({ id, value: one });
      }
      continue;
    }
    const m = /^([a-z_]+)(?:\[([^\][]+)\])?$/.exec(key);
    if (!m || (LIST_CONTROLS as readonly string[]).includes(m[1])) throw new AppError('filter.invalid', `unknown parameter: ${key}`);
    const [, field, modifier] = m;
    request.filters.push({ field, op: modifier, value: text(key, value) });
  }
  return request;
}

/** A text list parameter (a lookup's related_name): absent, or a string (a number or boolean as its text). */
export function textParameter(args: Args, name: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new AppError('filter.invalid', `${name}: must be a string`);
}
