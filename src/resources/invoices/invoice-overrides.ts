import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import { validationError } from '../../kernel/errors.ts';

/**
 * The optional input of the actions that make an invoice from a job, an estimate or a sales order: invoice create
 * fields that override or add to what the source gives. The lines are the source's, copied as stored.
 */
export function invoiceOverrides(input: ActionInput, source: 'job' | 'estimate' | 'sales order'): Record<string, unknown> {
  const overrides = readActionInput(input, 'invoice');
  if ('lineitems' in overrides) throw validationError({ lineitems: [`are copied from the ${source}; change them on the invoice afterwards`] });
  return overrides;
}
