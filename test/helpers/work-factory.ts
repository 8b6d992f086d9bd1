import { expect } from 'vitest';
import type { Role } from '../../src/kernel/permissions.ts';
import type { Tenant, TestApp } from './app.ts';
import { client, type Client } from './http.ts';
import { createCustomer } from './customer-factory.ts';
import { createRecord, createSite, ifMatch, unique, type Created } from './crm-factory.ts';

// Factories for the issue 4 resources (jobs, estimates, line items, items, tax rates, systems) used by the
// black-box REST tests. Each insists on the success status, so a test fails at the step that broke.

export interface Place {
  customer: Created;
  site: Created;
}

/** A customer with one site of its own. */
export async function createPlace(api: Client, customerFields: Record<string, unknown> = {}, siteFields: Record<string, unknown> = {}): Promise<Place> {
  const customer = await createCustomer(api, customerFields);
  const site = await createSite(api, { type: 'Customer', id: customer.id }, siteFields);
  return { customer, site };
}

export function createItem(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'items', 'item', { name: unique('Item '), item_type: 'material', unit_price: '10', ...fields });
}

export function createTaxRate(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'tax_rates', 'tax_rate', { name: unique('Tax '), rate: '8.25', ...fields });
}

export function createSystem(api: Client, siteId: string, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'systems', 'system', { site_id: siteId, system_type: unique('Type'), name: unique('System '), ...fields });
}

export function createJob(api: Client, fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'jobs', 'job', fields);
}

export function createEstimate(api: Client, fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'estimates', 'estimate', fields);
}

/** PATCH with the record's ETag (body key: the singular of plural); returns the raw response. */
export function patch(api: Client, plural: 'jobs' | 'estimates', current: { id: string; etag: string }, fields: Record<string, unknown>) {
  return api.patch(`/${plural}/${current.id}`, { [plural.slice(0, -1)]: fields }, ifMatch(current.etag));
}

/** GET a record and insist on 200. */
export async function read(api: Client, plural: string, id: string): Promise<Created> {
  const res = await api.get(`/${plural}/${id}`);
  expect(res.status, res.text).toBe(200);
  return { id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** A user of the tenant with the given role, and a client with a key of that user (every scope unless given). */
export async function userClient(t: TestApp, tenant: Tenant, role: Role, name = unique('User '), scopes?: string[]) {
  const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name, email: `${unique('u')}@example.test`, role });
  const key = await t.app.domain.admin.createKey({ userId: user.id, scopes });
  return { user, api: client(`${t.url}/api/v2`, key.token) };
}

export function setModules(t: TestApp, tenant: Tenant, modules: { AddressRequired?: 'Yes' | 'No'; System?: 'on' | 'off' }) {
  return t.app.domain.admin.updateAccount(tenant.accountId, { modules });
}
