import type { TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

// Records a contact can be linked to, and sites can belong to. Each is a live (not deleted) row of the tenant.
export const linkableTables = { Customer: 'customers', Lead: 'leads', Site: 'sites' } as const;
export type LinkableType = keyof typeof linkableTables;
export const linkableTypes: readonly LinkableType[] = vocabulary('LinkableType', Object.keys(linkableTables) as LinkableType[], {
  description: 'The type of a record contacts can be linked to.',
  describe: (type) => ({ Customer: 'A customer.', Lead: 'A lead.', Site: 'A site (of a customer or a lead).' })[type],
});

/**
 * Locks the live record of the tenant (FOR UPDATE) and tells whether it exists. Changes to a record's contacts
 * and sites take this lock first, so concurrent requests on one record queue instead of racing.
 */
export async function lockLinkable(tx: TenantTx, type: LinkableType, id: string): Promise<boolean> {
  const rows = await tenantQuery(tx, `SELECT 1 FROM ${linkableTables[type]} WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`, id);
  return rows.length > 0;
}
