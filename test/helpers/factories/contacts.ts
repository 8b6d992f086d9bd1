import { expect } from 'vitest';
import type { Client } from '../http.ts';
import { createRecord, unique, type Created } from './records.ts';

/** What a contact can be linked to. */
export type LinkableType = 'Customer' | 'Lead' | 'Site';

export function createContact(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'contacts', 'contact', { first_name: 'Pat', last_name: unique('Contact'), ...fields });
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
