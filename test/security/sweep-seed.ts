import { expect } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { client, type Client } from '../helpers/http.ts';

// Seeds one tenant of the sweep through the API (custom field definitions and a second user through the admin
// service, as the `fieldline` command does: there is no API for them). Every text the tenant writes carries its
// marker, so that any answer to the other tenant that contains it is a leak. Records are made in an order that
// keeps the first record of each kind coherent with the first of the others (the first site belongs to the
// first customer, the first system to the first site, the first linkage of the first contact is to the first
// customer ...): the sweep builds valid requests from the first records of its own tenant.

export interface Seeded {
  tenant: Tenant;
  api: Client;
  marker: string;
}

let n = 0;
const u = (marker: string, what: string) => {
  n += 1;
  return `${marker} ${what} ${n}`;
};

async function created(api: Client, plural: string, key: string, fields: Record<string, unknown>): Promise<any> {
  const res = await api.post(`/${plural}`, { [key]: fields });
  expect(res.status, `seed POST /${plural}: ${res.text.slice(0, 500)}`).toBe(201);
  return res.body.data;
}

async function patched(api: Client, plural: string, id: string, key: string, fields: Record<string, unknown>): Promise<any> {
  const read = await api.get(`/${plural}/${id}`);
  const res = await api.patch(`/${plural}/${id}`, { [key]: fields }, { headers: { 'if-match': read.headers.get('etag')! } });
  expect(res.status, `seed PATCH /${plural}/${id}: ${res.text.slice(0, 500)}`).toBe(200);
  return res.body.data;
}

/** Two or more records of every resource, linked the way real data is, plus converted leads and estimates. */
export async function seedTenant(t: TestApp, marker: string, relatedNames: string[]): Promise<Seeded> {
  const tenant = await t.tenant({ name: `${marker} account` });
  const api = client(`${t.url}/api/v2`, tenant.token);
  const admin = t.app.domain.admin;
  const fields: Record<string, string> = {};
  for (const relatedName of relatedNames) {
    fields[relatedName] = (await admin.addCustomField({ accountId: tenant.accountId, relatedName, name: `${marker} ${relatedName} note`, type: 'text' })).id;
    await admin.addLookup('label', { accountId: tenant.accountId, relatedName, name: `${marker} ${relatedName} label` });
  }
  const tech = await admin.createUser({ accountId: tenant.accountId, name: `${marker} Technician`, email: `${marker.toLowerCase()}-tech@example.test`, role: 'technician' });
  const cf = (relatedName: string) => (fields[relatedName] ? { custom_fields: { [fields[relatedName]]: u(marker, 'custom value') } } : {});

  const c0 = await created(api, 'customers', 'customer', { organization: u(marker, 'Customer'), reference: u(marker, 'ref'), assignee_id: tenant.userId, ...cf('Customer') });
  const c1 = await created(api, 'customers', 'customer', { organization: u(marker, 'Customer') });
  const l0 = await created(api, 'leads', 'lead', { organization: u(marker, 'Lead'), first_name: marker, assignee_id: tenant.userId, ...cf('Lead') });
  const l1 = await created(api, 'leads', 'lead', { organization: u(marker, 'Lead') });
  const site = (parent: any, type: string, extra: Record<string, unknown> = {}) =>
    created(api, 'sites', 'site', { site_name: u(marker, 'Site'), street: u(marker, 'Street'), city: 'Springfield', state: 'IL', siteable_id: parent.id, siteable_type: type, ...extra });
  const s0 = await site(c0, 'Customer', cf('Site'));
  await site(c0, 'Customer');
  await site(l0, 'Lead');
  await site(l1, 'Lead');
  const ct0 = await created(api, 'contacts', 'contact', {
    first_name: marker,
    last_name: u(marker, 'Contact'),
    email: `${marker.toLowerCase()}@example.test`,
    phone_numbers: [{ number: '555-0100', kind: 'mobile' }, { number: '555-0101', kind: 'office' }],
    linkable_id: c0.id,
    linkable_type: 'Customer',
    ...cf('Contact'),
  });
  const ct1 = await created(api, 'contacts', 'contact', { first_name: marker, last_name: u(marker, 'Contact'), phone_numbers: [{ number: '555-0102' }], linkable_id: c1.id, linkable_type: 'Customer' });
  for (const [contact, id, type] of [[ct0, s0.id, 'Site'], [ct0, l0.id, 'Lead'], [ct1, l1.id, 'Lead']] as const) {
    const res = await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: id, linkable_type: type, relationship_type: 'billing' } });
    expect(res.status, res.text).toBe(201);
  }
  const i0 = await created(api, 'items', 'item', { name: u(marker, 'Item'), item_type: 'material', unit_price: '12.5', ...cf('Item') });
  const i1 = await created(api, 'items', 'item', { name: u(marker, 'Item'), item_type: 'labor', unit_price: '80' });
  const t0 = await created(api, 'tax_rates', 'tax_rate', { name: u(marker, 'Tax'), rate: '8.25' });
  await created(api, 'tax_rates', 'tax_rate', { name: u(marker, 'Tax'), rate: '5' });
  await created(api, 'customer_item_prices', 'customer_item_price', { customer_id: c0.id, item_id: i0.id, unit_price: '11' });
  await created(api, 'customer_item_prices', 'customer_item_price', { customer_id: c1.id, item_id: i1.id, unit_price: '75' });
  const sy0 = await created(api, 'systems', 'system', { site_id: s0.id, system_type: 'HVAC', name: u(marker, 'System'), ...cf('System') });
  await created(api, 'systems', 'system', { site_id: s0.id, system_type: 'Plumbing', name: u(marker, 'System') });
  const line = () => ({ item_id: i0.id, quantity: '2', tax_rate_id: t0.id, description: u(marker, 'line') });
  await created(api, 'jobs', 'job', {
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    system_id: sy0.id,
    title: u(marker, 'Job'),
    scheduled_start: '2026-06-01T09:00:00.000Z',
    scheduled_end: '2026-06-01T11:00:00.000Z',
    lineitems: [line(), { description: u(marker, 'labor'), quantity: 1, unit_price: '50' }],
    assignments: [{ user_id: tenant.userId }, { user_id: tech.id }],
    ...cf('Job'),
  });
  await created(api, 'jobs', 'job', { site_id: s0.id, title: u(marker, 'Job'), scheduled_start: '2026-06-02T09:00:00.000Z', lineitems: [line()], assignments: [{ user_id: tech.id }] });
  const e0 = await created(api, 'estimates', 'estimate', {
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    system_id: sy0.id,
    tax_rate_id: t0.id,
    title: u(marker, 'Estimate'),
    lineitems: [line(), { description: u(marker, 'labor'), quantity: 1, unit_price: '50', labor_visible: false }],
    ...cf('Estimate'),
  });
  const e1 = await created(api, 'estimates', 'estimate', { site_id: s0.id, title: u(marker, 'Estimate'), lineitems: [line()] });
  // The first estimate is Accepted and not converted (a conversion by the other tenant would show); the second
  // is converted, so that estimates and jobs carry converted_job_id / estimate_id.
  await patched(api, 'estimates', e0.id, 'estimate', { status: 'Accepted' });
  await patched(api, 'estimates', e1.id, 'estimate', { status: 'Accepted' });
  const converted = await api.post(`/estimates/${e1.id}/convert`);
  expect(converted.status, converted.text).toBe(201);
  // The second lead is converted (converted_customer_id, moved site and linkage); the first stays a lead.
  const lead = await api.post(`/leads/${l1.id}/convert`, { customer: { organization: u(marker, 'Converted customer') } });
  expect(lead.status, lead.text).toBe(201);
  return { tenant, api, marker };
}
