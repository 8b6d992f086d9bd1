import type { RequestContext } from '../../kernel/context.ts';
import type { ResourceLookup } from '../../kernel/resource.ts';
import type { TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// An invoice's balance, in one place: balance = amount − Σ applications of live payments (payment_applications of
// payments not deleted). Every write that can move it (an invoice's lines, a payment's amount or applications, a
// payment's deletion) locks the invoices it touches (FOR UPDATE, in id order, so two writes over the same invoices
// never deadlock), then recomputes the balance from this sum: concurrent payments of one invoice run one after the
// other, each seeing what the previous one applied. The CHECK invoices_balance_range (0 <= balance <= amount)
// backs the rule in the database.

/** SQL: what live payments apply to the invoice row aliased `invoice` (a numeric). */
export const appliedToInvoice = (invoice: string) =>
  `(SELECT coalesce(sum(fl_applied.amount), 0) FROM payment_applications fl_applied
     JOIN payments fl_payer ON fl_payer.account_id = fl_applied.account_id AND fl_payer.id = fl_applied.payment_id AND fl_payer.deleted_at IS NULL
    WHERE fl_applied.account_id = ${invoice}.account_id AND fl_applied.invoice_id = ${invoice}.id)`;

export interface LockedInvoice {
  id: string;
  customer_id: string;
  balance: string;
}

/** Locks the live invoices among `ids` (FOR UPDATE, in id order) and reads them; absent or deleted ones are left out. */
export async function lockInvoices(tx: TenantTx, ids: readonly string[]): Promise<Map<string, LockedInvoice>> {
  if (ids.length === 0) return new Map();
  const rows = await tenantQuery<LockedInvoice>(
    tx,
    `SELECT id, customer_id, balance::text AS balance FROM invoices
     WHERE account_id = $1::uuid AND id = ANY($2::uuid[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE`,
    [...new Set(ids)],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Recomputes the balance of the given invoices after payments changed (locking them first). An invoice whose
 * balance moves is written like any update (updated_at, a new ETag, an invoice.updated event) and its search text
 * follows (it includes the balance).
 */
export async function refreshInvoiceBalances(tx: TenantTx, ctx: RequestContext, resources: ResourceLookup, ids: readonly string[]): Promise<void> {
  const locked = await lockInvoices(tx, ids);
  if (locked.size === 0) return;
  const moved = await tenantQuery<{ id: string; balance: string }>(
    tx,
    `SELECT id, owed::text AS balance FROM (SELECT i.id, i.balance, i.amount - ${appliedToInvoice('i')} AS owed FROM invoices i
       WHERE i.account_id = $1::uuid AND i.id = ANY($2::uuid[])) computed
     WHERE balance IS DISTINCT FROM owed ORDER BY id`,
    [...locked.keys()],
  );
  const invoices = resources('invoice');
  for (const { id, balance } of moved) {
    await invoices.touchWithin(tx, ctx, id, { balance });
    await tenantQuery(tx, `UPDATE invoices i SET search_text = fl_invoice_search_text(i) WHERE i.account_id = $1::uuid AND i.id = $2::uuid`, id);
  }
}
