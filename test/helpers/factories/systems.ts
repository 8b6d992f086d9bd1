import type { Client } from '../http.ts';
import { createRecord, unique, type Created } from './records.ts';

/** The seeded system options catalog (migration sites_contacts_leads). */
export const systemOptionIds = Array.from({ length: 10 }, (_, i) => `01900000-0000-7000-8000-0000000000${(i + 1).toString(16).padStart(2, '0')}`);

export function createSystem(api: Client, siteId: string, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'systems', 'system', { site_id: siteId, system_type: unique('Type'), name: unique('System '), ...fields });
}
