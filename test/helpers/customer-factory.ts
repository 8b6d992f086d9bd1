import { expect } from 'vitest';
import type { Client } from './http.ts';

export interface CreatedCustomer {
  id: string;
  etag: string;
  record: Record<string, any>;
}

let sequence = 0;

/** A unique organization name for tests that do not care about it. */
export function uniqueOrganization(prefix = 'Customer'): string {
  sequence += 1;
  return `${prefix} ${process.pid}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

/** POSTs a customer and insists on 201; the organization defaults to a unique name. */
export async function createCustomer(api: Client, fields: Record<string, unknown> = {}): Promise<CreatedCustomer> {
  const res = await api.post('/customers', { customer: { organization: uniqueOrganization(), ...fields } });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** PATCHes a customer with its ETag and insists on 200; returns the new record and ETag. */
export async function updateCustomer(api: Client, customer: { id: string; etag: string }, fields: Record<string, unknown>): Promise<CreatedCustomer> {
  const res = await api.patch(`/customers/${customer.id}`, { customer: fields }, { headers: { 'if-match': customer.etag } });
  expect(res.status, res.text).toBe(200);
  return { id: customer.id, etag: res.headers.get('etag')!, record: res.body.data };
}
