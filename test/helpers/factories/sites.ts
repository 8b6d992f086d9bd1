import type { Client } from '../http.ts';
import { createCustomer } from './customers.ts';
import { createRecord, unique, type Created } from './records.ts';

/** What a site hangs from. */
export type ParentType = 'Customer' | 'Lead';

/** The required site fields with a unique name and street. */
export function siteFields(parent: { type: ParentType; id: string }, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    site_name: unique('Site '),
    street: `${unique('')} Main Street`,
    city: 'Springfield',
    state: 'IL',
    siteable_id: parent.id,
    siteable_type: parent.type,
    ...fields,
  };
}

export function createSite(api: Client, parent: { type: ParentType; id: string }, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'sites', 'site', siteFields(parent, fields));
}

/** A customer with one site of its own. */
export interface Place {
  customer: Created;
  site: Created;
}

export async function createPlace(api: Client, customerFields: Record<string, unknown> = {}, siteFields: Record<string, unknown> = {}): Promise<Place> {
  const customer = await createCustomer(api, customerFields);
  const site = await createSite(api, { type: 'Customer', id: customer.id }, siteFields);
  return { customer, site };
}
