import { addError } from '../../kernel/body.ts';
import type { FieldErrors } from '../../kernel/errors.ts';

/**
 * The rule "a tax rate must be active when it is set", for every record that takes one (an estimate's default
 * tax rate, a line's tax rate). Callers apply it only where the value is new or changes, so a record whose tax
 * rate was deactivated since keeps it. When the rate is inactive, adds "is an inactive tax rate" to `field`,
 * followed by `note` (where the id came from, when the client did not send it). Answers whether it may be set.
 */
export function checkTaxRateActive(taxRate: { active: boolean }, errors: FieldErrors, field: string, note = ''): boolean {
  if (taxRate.active) return true;
  addError(errors, field, `is an inactive tax rate${note}`);
  return false;
}
