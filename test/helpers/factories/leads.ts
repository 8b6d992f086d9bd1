import type { Client } from '../http.ts';
import { createRecord, unique, type Created } from './records.ts';

export function createLead(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'leads', 'lead', { organization: unique('Lead Org '), ...fields });
}
