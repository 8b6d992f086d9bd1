import type { ActionBody, ActionInput } from '../kernel/action.ts';
import { validationError } from '../kernel/errors.ts';
import { overridesFromBody, recordFromBody } from './record-body.ts';

/** No body, or `{}`. */
function isEmptyBody(body: unknown): boolean {
  return body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0);
}

/**
 * An action's input from its REST body, as the action declares the body. The values are taken out of the body
 * when the service reads them, so a body of the wrong shape is refused where the service checks its input (after
 * the records it names are found). A body the action refuses outright (ActionBody `refusal`) is refused at
 * once: nothing would read it later.
 */
export function actionInputOf(declared: ActionBody | undefined, body: unknown): ActionInput {
  if (!declared) return () => ({});
  if ('empty' in declared) {
    if (declared.refusal !== undefined && !isEmptyBody(body)) throw validationError({ body: [declared.refusal] });
    return () => ({});
  }
  if ('overrides' in declared) return () => overridesFromBody(body, declared.key);
  return () => recordFromBody(body, declared.key, { topLevel: declared.topLevel });
}
