import { expect } from 'vitest';
import type { Client } from './http.ts';

// Factories for the issue 3 resources (sites, contacts, linkages, leads) used by the black-box REST tests.
// Each insists on the success status, so a test fails at the step that broke.

export interface Created {
  id: string;
  etag: string;
  record: Record<string, any>;
}

export type ParentType = 'Customer' | 'Lead';
export type LinkableType = 'Customer' | 'Lead' | 'Site';

/** The seeded system options catalog (migration sites_contacts_leads). */
export const systemOptionIds = Array.from({ length: 10 }, (_, i) => `01900000-0000-7000-8000-0000000000${(i + 1).toString(16).padStart(2, '0')}`);

export function ifMatch(etag: string) {
  return { headers: { 'if-match': etag } };
}

let sequence = 0;
/** A token unlikely to occur anywhere else in the data (for q searches). */
export function unique(prefix = 'u'): string {
  sequence += 1;
  return `${prefix}${process.pid}x${sequence}x${Math.random().toString(36).slice(2, 7)}`;
}

export async function createRecord(api: Client, plural: string, key: string, fields: Record<string, unknown>): Promise<Created> {
  const res = await api.post(`/${plural}`, { [key]: fields });
  expect(res.status, `POST /${plural}: ${res.text}`).toBe(201);
  return { id: res.body.data.id, etag: res.headers.get('etag')!, record: res.body.data };
}

export async function updateRecord(api: Client, plural: string, key: string, current: { id: string; etag: string }, fields: Record<string, unknown>): Promise<Created> {
  const res = await api.patch(`/${plural}/${current.id}`, { [key]: fields }, ifMatch(current.etag));
  expect(res.status, `PATCH /${plural}/${current.id}: ${res.text}`).toBe(200);
  return { id: current.id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** GETs the record and DELETEs it with its current ETag; insists on 204. */
export async function deleteRecord(api: Client, plural: string, id: string): Promise<void> {
  const read = await api.get(`/${plural}/${id}`);
  expect(read.status, read.text).toBe(200);
  const res = await api.delete(`/${plural}/${id}`, ifMatch(read.headers.get('etag')!));
  expect(res.status, `DELETE /${plural}/${id}: ${res.text}`).toBe(204);
}

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

export function createContact(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'contacts', 'contact', { first_name: 'Pat', last_name: unique('Contact'), ...fields });
}

export function createLead(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'leads', 'lead', { organization: unique('Lead Org '), ...fields });
}

/** POST /contacts/{id}/linkages; insists on 201 and returns the linkage. */
export async function link(
  api: Client,
  contactId: string,
  target: { type: LinkableType; id: string },
  extra: { primary?: boolean; relationship_type?: string } = {},
): Promise<Record<string, any>> {
  const res = await api.post(`/contacts/${contactId}/linkages`, { linkage: { linkable_id: target.id, linkable_type: target.type, ...extra } });
  expect(res.status, `link ${contactId} -> ${target.type} ${target.id}: ${res.text}`).toBe(201);
  return res.body.data;
}

/** GET /contacts/{id}/linkages; insists on 200 and returns the array. */
export async function linkagesOf(api: Client, contactId: string): Promise<Record<string, any>[]> {
  const res = await api.get(`/contacts/${contactId}/linkages`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.has_more).toBe(false);
  return res.body.data;
}

/** The ids of a list response, in order. */
export function idsOf(res: { body: { data: { id: string }[] } }): string[] {
  expect(Array.isArray(res.body?.data), JSON.stringify(res.body)).toBe(true);
  return res.body.data.map((r) => r.id);
}
