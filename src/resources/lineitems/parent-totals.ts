import type { TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { validationError } from '../../kernel/errors.ts';
import { checkParentAmount, type LineParentKey } from './lineitems.ts';
import { appliedToInvoice } from '../invoices/invoice-balance.ts';

// What the server derives on a parent of line items (jobs, estimates, invoices and sales orders) after each
// write of it, in one place for every parent:
//   amount       the sum of its line totals (422 naming lineitems when it exceeds the column, checkParentAmount)
//   balance      invoices only: what is still owed, the amount minus what live payments apply (invoice-balance.ts).
//                The applied part never changes here, so a new amount below it is refused (422 naming lineitems)
//                and the CHECK invoices_balance_range stays true.
//   search_text  the parent's q text, computed by the SQL function fl_<parent>_search_text (migration
//                20261123052000_search_refresh), the same function the triggers on related records call when a
//                customer, site, user or system is renamed. Neither write touches updated_at or lock_version:
//                both are recomputed from state the record's write already moved the ETag for.

export type LineParent = 'job' | 'estimate' | 'invoice' | 'sales_order';

const parents: Record<LineParent, { table: string; foreignKey: LineParentKey; searchText: string; balance?: true }> = {
  job: { table: 'jobs', foreignKey: 'job_id', searchText: 'fl_job_search_text' },
  estimate: { table: 'estimates', foreignKey: 'estimate_id', searchText: 'fl_estimate_search_text' },
  invoice: { table: 'invoices', foreignKey: 'invoice_id', searchText: 'fl_invoice_search_text', balance: true },
  sales_order: { table: 'sales_orders', foreignKey: 'sales_order_id', searchText: 'fl_sales_order_search_text' },
};

/** Recomputes the parent's amount from its lines, then its search text (which may include the amount). */
export async function refreshParentTotals(tx: TenantTx, parent: LineParent, id: string): Promise<void> {
  const { table, foreignKey, searchText, balance } = parents[parent];
  await checkParentAmount(tx, foreignKey, id);
  const lines = `SELECT coalesce(sum(line_total), 0) AS total FROM lineitems WHERE account_id = $1::uuid AND ${foreignKey} = $2::uuid`;
  if (balance) {
    const [below] = await tenantQuery<{ applied: string }>(
      tx,
      `WITH lines AS (${lines}) SELECT ${appliedToInvoice('p')}::text AS applied FROM ${table} p, lines
       WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND lines.total < ${appliedToInvoice('p')}`,
      id,
    );
    if (below) throw validationError({ lineitems: [`would bring the amount below the ${below.applied} that payments apply to the invoice`] });
  }
  // Each statement writes the row only when the value changes.
  await tenantQuery(
    tx,
    `WITH lines AS (${lines})
     UPDATE ${table} p SET amount = lines.total${balance ? `, balance = lines.total - ${appliedToInvoice('p')}` : ''} FROM lines
     WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.amount IS DISTINCT FROM lines.total`,
    id,
  );
  await tenantQuery(
    tx,
    `UPDATE ${table} p SET search_text = ${searchText}(p)
     WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.search_text IS DISTINCT FROM ${searchText}(p)`,
    id,
  );
}
