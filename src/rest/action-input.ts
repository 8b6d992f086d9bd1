import type { ActionDefinition, ActionInput } from '../kernel/action.ts';
import { addError, NOT_PERMITTED, throwIfErrors } from '../kernel/body.ts';
import { validationError, type FieldErrors } from '../kernel/errors.ts';
import type { FieldSpec } from '../kernel/fields.ts';
import { printable } from '../kernel/storable.ts';
import { overridesFromBody, recordFromBody } from './record-body.ts';

/** No body, or `{}`. */
function isEmptyBody(body: unknown): boolean {
  return body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
}

/**
 * A parameter's text as the value of its kind, where the text is one: an integer's digits ("20" -> 20), a
 * boolean's true or false. Any other text stays text, which the kernel refuses with the kind's own message
 * ("must be an integer"), as it would a JSON string sent for the field.
 */
function parameterValue(spec: FieldSpec, text: string): unknown {
  if (spec.kind === 'integer' && /^-?\d{1,16}$/.test(text)) return Number(text);
  if (spec.kind === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * A GET action's input from the query string (ActionQuery): each declared parameter once, as the value of its
 * kind. What only a query string can get wrong is refused here, with the 422 of the other input errors: a
 * parameter the action does not take ("is not a permitted field", as an unknown body member; its name
 * printable-escaped) and one given twice. The values' own rules (range, type, required) are the kernel's.
 */
function queryValuesOf(fields: Readonly<Record<string, FieldSpec>>, entries: readonly [string, string][]): Record<string, unknown> {
  const errors: FieldErrors = {};
  const values: Record<string, unknown> = {};
  for (const [name, text] of entries) {
    if (!Object.hasOwn(fields, name)) addError(errors, printable(name), NOT_PERMITTED);
    else if (Object.hasOwn(values, name)) {
      if (!errors[name]) addError(errors, name, 'is given more than once');
    } else values[name] = parameterValue(fields[name], text);
  }
  throwIfErrors(errors);
  return values;
}

/**
 * An action's input from its REST request, as the action declares it: its JSON body, or for a GET action that
 * takes them its query parameters. The values are taken out of the request when the service reads them, so a body
 * of the wrong shape or an unknown parameter is refused where the service checks its input (after the records it
 * names are found). A body the action refuses outright (ActionBody `refusal`) is refused at once: nothing would
 * read it later.
 */
export function actionInputOf(action: Pick<ActionDefinition, 'body' | 'query'>, body: unknown, query: readonly [string, string][]): ActionInput {
  if (action.query) {
    const fields = action.query.fields;
    return () => queryValuesOf(fields, query);
  }
  const declared = action.body;
  if (!declared) return () => ({});
  if ('empty' in declared) {
    if (declared.refusal !== undefined && !isEmptyBody(body)) throw validationError({ body: [declared.refusal] });
    return () => ({});
  }
  if ('overrides' in declared) return () => overridesFromBody(body, declared.key);
  return () => recordFromBody(body, declared.key, { topLevel: declared.topLevel });
}
