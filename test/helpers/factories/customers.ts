import type { Client } from '../http.ts';
import { createRecord, unique, updateRecord, type Created } from './records.ts';

/** A unique organization name for tests that do not care about it. */
export function uniqueOrganization(prefix = 'Customer'): string {
  return unique(`${prefix} `);
}

/** POSTs a customer and insists on 201; the organization defaults to a unique name. */
export function createCustomer(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'customers', 'customer', { organization: uniqueOrganization(), ...fields });
}

/** PATCHes a customer with its ETag and insists on 200; returns the new record and ETag. */
export function updateCustomer(api: Client, customer: { id: string; etag: string }, fields: Record<string, unknown>): Promise<Created> {
  return updateRecord(api, 'customers', 'customer', customer, fields);
}

/** A new customer as the parent of a site or the target of a contact linkage. */
export async function customerTarget(api: Client, fields: Record<string, unknown> = {}) {
  const customer = await createCustomer(api, fields);
  return { type: 'Customer' as const, id: customer.id, customer };
}
