import { addError } from '../../kernel/body.ts';
import type { FieldErrors } from '../../kernel/errors.ts';
import type { WriteHookArgs } from '../../kernel/resource.ts';

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

/**
 * A record's default tax rate of new lines (`tax_rate_id` of an estimate or an invoice) must be active when it is
 * set or changed; that it exists is the field reference's check. A rate deactivated since it was set stays.
 */
export async function checkDefaultTaxRate({ tx, values, existing, errors }: WriteHookArgs<{ tax_rate_id?: string | null }, { tax_rate_id: string | null }>): Promise<void> {
  const taxRateId = values.tax_rate_id;
  if (!taxRateId || errors.tax_rate_id || taxRateId.toLowerCase() === existing?.tax_rate_id) return;
  const taxRate = await tx.taxRate.findFirst({ where: { id: taxRateId, deleted_at: null }, select: { active: true } });
  if (taxRate) checkTaxRateActive(taxRate, errors, 'tax_rate_id');
}
