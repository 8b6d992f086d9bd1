import type { Client } from '../http.ts';
import { createRecord, type Created } from './records.ts';

export function createEstimate(api: Client, fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'estimates', 'estimate', fields);
}
