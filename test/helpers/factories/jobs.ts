import type { Client } from '../http.ts';
import { createRecord, type Created } from './records.ts';

export function createJob(api: Client, fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'jobs', 'job', fields);
}
