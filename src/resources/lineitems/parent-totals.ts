import { Decimal } from 'decimal.js';
import type { TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { validationError } from '../../kernel/errors.ts';
import { checkParentAmount, type LineParentKey } from './lineitems.ts';
import { appliedToInvoice } from '../payments/invoice-balance.ts';

// What the server derives on a parent of line items (jobs, estimates, invoices and sales orders) after each
// write of it, in one place for every parent:
//   amount       the sum of its line totals (422 naming lineitems when it exceeds the column, checkParentAmount); the
//                lines are summed once per write
//   balance      invoices only: what is still owed, the amount minus what live payments apply (invoice-balance.ts).
//                The applied part never changes here, so a new amount below it is refused (422 naming lineitems)
//                and the CHECK invoices_balance_range stays true.
//   search_text  the parent's q text, computed by the SQL function fl_<parent>_search_text (migration
//                20261123052000_search_refresh), the same function the triggers on related records call when a
//                customer, site, user or system is renamed. Neither write touches updated_at or lock_version:
//                both are recomputed from state the record's write already moved the ETag for.

export type LineParent = 'job' | 'estimate' | 'invoice' | 'sales_order' | 'recurring_job' | 'recurring_invoice';

// A recurring template's search_text is a generated column (src/db/declared-sql.ts): nothing to refresh.
const parents: Record<LineParent, { table: string; foreignKey: LineParentKey; searchText?: string; balance?: true }> = {
  job: { table: 'jobs', foreignKey: 'job_id', searchText: 'fl_job_search_text' },
  estimate: { table: 'estimates', foreignKey: 'estimate_id', searchText: 'fl_estimate_search_text' },
  invoice: { table: 'invoices', foreignKey: 'invoice_id', searchText: 'fl_invoice_search_text', balance: true },
  sales_order: { table: 'sales_orders', foreignKey: 'sales_order_id', searchText: 'fl_sales_order_search_text' },
  recurring_job: { table: 'recurring_jobs', foreignKey: 'recurring_job_id' },
  recurring_invoice: { table: 'recurring_invoices', foreignKey: 'recurring_invoice_id' },
};

/** Recomputes the parent's amount from its lines (and an invoice's balance), then its search text (which may include them). */
export async function refreshParentTotals(tx: TenantTx, parent: LineParent, id: string): Promise<void> {
  const { table, foreignKey, searchText, balance } = parents[parent];
  // The lines' sum and what payments apply, read once (the invoice row is locked by its write, and payments lock
  // it before applying: neither moves until this transaction ends).
  const [totals] = await tenantQuery<{ total: string; applied: string | null }>(
    tx,
    `SELECT (SELECT coalesce(sum(line_total), 0) FROM lineitems WHERE account_id = $1::uuid AND ${foreignKey} = $2::uuid)::text AS total,
       ${balance ? `${appliedToInvoice('p')}::text` : 'NULL'} AS applied
     FROM ${table} p WHERE p.account_id = $1::uuid AND p.id = $2::uuid`,
    id,
  );
  if (!totals) return;
  checkParentAmount(totals.total);
  if (totals.applied !== null && new Decimal(totals.total).lt(totals.applied)) {
    throw validationError({ lineitems: [`would bring the amount below the ${totals.applied} that payments apply to the invoice`] });
  }
  // Each statement writes the row only when the value changes.
  await tenantQuery(
    tx,
    `UPDATE ${table} p SET amount = $3::numeric${balance ? ', balance = $3::numeric - $4::numeric' : ''}
     WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.amount IS DISTINCT FROM $3::numeric`,
    id,
    totals.total,
    ...(balance ? [totals.applied] : []),
  );
  if (!searchText) return;
  await tenantQuery(
    tx,
    `UPDATE ${table} p SET search_text = ${searchText}(p)
     WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.search_text IS DISTINCT FROM ${searchText}(p)`,
    id,
  );
}
