import type { TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { checkParentAmount } from './lineitems.ts';

// What the server derives on a parent of line items (jobs and estimates now; invoices and sales orders later)
// after each write of it, in one place for every parent:
//   amount       the sum of its line totals (422 naming lineitems when it exceeds the column, checkParentAmount)
//   search_text  the parent's q text, computed by the SQL function fl_<parent>_search_text (migration
//                20261123052000_search_refresh), the same function the triggers on related records call when a
//                customer, site, user or system is renamed. Neither write touches updated_at or lock_version:
//                both are recomputed from state the record's write already moved the ETag for.

export type LineParent = 'job' | 'estimate';

const parents: Record<LineParent, { table: string; foreignKey: 'job_id' | 'estimate_id'; searchText: string }> = {
  job: { table: 'jobs', foreignKey: 'job_id', searchText: 'fl_job_search_text' },
  estimate: { table: 'estimates', foreignKey: 'estimate_id', searchText: 'fl_estimate_search_text' },
};

/** Recomputes the parent's amount from its lines, then its search text (which may include the amount). */
export async function refreshParentTotals(tx: TenantTx, parent: LineParent, id: string): Promise<void> {
  const { table, foreignKey, searchText } = parents[parent];
  await checkParentAmount(tx, foreignKey, id);
  // Each statement writes the row only when the value changes.
  await tenantQuery(
    tx,
    `WITH lines AS (SELECT coalesce(sum(line_total), 0) AS total FROM lineitems WHERE account_id = $1::uuid AND ${foreignKey} = $2::uuid)
     UPDATE ${table} p SET amount = lines.total FROM lines
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
