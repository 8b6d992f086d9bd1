import { addError } from '../../kernel/body.ts';
import type { FieldErrors } from '../../kernel/errors.ts';
import type { TenantTx } from '../../kernel/tenancy.ts';

// An estimate quotes for a deal of its own customer: a deal still with a lead takes estimates once the lead is
// converted (its deals then move to the customer). Checked when deal_id or customer_id is written and the
// estimate then names a deal; one statement, none on writes that touch neither.

interface EstimateDealWrite {
  tx: TenantTx;
  values: { deal_id?: string | null; customer_id?: string | null };
  existing: { deal_id?: string | null; customer_id?: string | null } | null;
  errors: FieldErrors;
}

export async function checkEstimateDeal({ tx, values, existing, errors }: EstimateDealWrite): Promise<void> {
  if (values.deal_id === undefined && values.customer_id === undefined) return;
  const dealId = values.deal_id !== undefined ? values.deal_id : (existing?.deal_id ?? null);
  const customerId = values.customer_id !== undefined ? values.customer_id : (existing?.customer_id ?? null);
  if (dealId === null || errors.deal_id || errors.customer_id) return;
  const deal = await tx.deal.findFirst({ where: { id: dealId, deleted_at: null }, select: { customer_id: true, lead_id: true } });
  // A deal deleted since it was named stays named until the estimate's deal_id is written.
  if (!deal) return;
  if (deal.customer_id === null) addError(errors, 'deal_id', 'is a deal with a lead (convert the lead first: its deals move to the customer)');
  else if (customerId === null || deal.customer_id !== customerId.toLowerCase()) addError(errors, 'deal_id', 'must be a deal of the estimate\'s customer (customer_id)');
}
