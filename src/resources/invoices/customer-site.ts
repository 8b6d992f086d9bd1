import { addError } from '../../kernel/body.ts';
import type { WriteHookArgs } from '../../kernel/resource.ts';
import { readShared } from '../../kernel/tenancy.ts';

type CustomerSite = { customer_id: string | null; site_id: string | null };

/**
 * Who a money record is for (invoices, sales orders): its site must be its customer's (422 naming site_id). Both
 * are read with a share lock: the customer's organization is in the record's search text (readShared).
 */
export async function checkCustomerSite({ tx, values, existing, errors }: WriteHookArgs<Partial<CustomerSite>, CustomerSite>): Promise<void> {
  const customerId = 'customer_id' in values ? values.customer_id : existing?.customer_id;
  const siteId = 'site_id' in values ? values.site_id : existing?.site_id;
  if (customerId && !errors.customer_id) await readShared(tx, 'customers', 'id', [customerId]);
  if (siteId && customerId && !errors.site_id && !errors.customer_id && ('site_id' in values || 'customer_id' in values)) {
    const [site] = await readShared<{ customer_id: string | null }>(tx, 'sites', 'customer_id', [siteId]);
    if (site && site.customer_id !== customerId) addError(errors, 'site_id', 'does not belong to {customer_id}');
  }
}
