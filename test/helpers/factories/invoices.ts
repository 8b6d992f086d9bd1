import { expect } from 'vitest';
import type { Client } from '../http.ts';
import { freshKey, type Created } from './records.ts';

export { freshKey };

/** POST /invoices with a fresh Idempotency-Key; insists on 201. */
export async function createInvoice(api: Client, fields: Record<string, unknown>): Promise<Created> {
  const res = await api.post('/invoices', { invoice: fields }, freshKey());
  expect(res.status, `POST /invoices: ${res.text}`).toBe(201);
  return { id: res.body.data.id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** A line as a copy keeps it: every stored field but its id and position (an invoice's lines copied from a job ...). */
export function copiedLines(lines: Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.map(({ id: _id, ...line }) => line);
}
