import { expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Client } from '../http.ts';

// What every resource's factories share: create, read, update and delete over REST, each insisting on the
// success status (so a test fails at the step that broke), ETags, unique text and the ids of a list.

/** A record as a factory returns it: its id, current ETag and the served record. */
export interface Created {
  id: string;
  etag: string;
  record: Record<string, any>;
}

/** A weak ETag: W/"<updated_at epoch ms>-<lock_version>" (the two numbers are the groups). */
export const weakEtag = /^W\/"(\d+)-(\d+)"$/;

/** Request options that send If-Match. */
export function ifMatch(etag: string) {
  return { headers: { 'if-match': etag } };
}

let sequence = 0;
/** A token unlikely to occur anywhere else in the data (for q searches). */
export function unique(prefix = 'u'): string {
  sequence += 1;
  return `${prefix}${process.pid}x${sequence}x${Math.random().toString(36).slice(2, 7)}`;
}

/** Request options with a fresh Idempotency-Key (every financial create needs one; other routes ignore it). */
export function freshKey(): { headers: Record<string, string> } {
  return { headers: { 'idempotency-key': randomUUID() } };
}

/** POST /<plural> with the fields under the body key (and a fresh Idempotency-Key, which financial creates need); insists on 201. */
export async function createRecord(api: Client, plural: string, key: string, fields: Record<string, unknown>): Promise<Created> {
  const res = await api.post(`/${plural}`, { [key]: fields }, freshKey());
  expect(res.status, `POST /${plural}: ${res.text}`).toBe(201);
  return { id: res.body.data.id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** GET /<plural>/<id>; insists on 200. */
export async function readRecord(api: Client, plural: string, id: string): Promise<Created> {
  const res = await api.get(`/${plural}/${id}`);
  expect(res.status, res.text).toBe(200);
  return { id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** PATCH with the record's ETag; insists on 200 and returns the new record and ETag. */
export async function updateRecord(api: Client, plural: string, key: string, current: { id: string; etag: string }, fields: Record<string, unknown>): Promise<Created> {
  const res = await api.patch(`/${plural}/${current.id}`, { [key]: fields }, ifMatch(current.etag));
  expect(res.status, `PATCH /${plural}/${current.id}: ${res.text}`).toBe(200);
  return { id: current.id, etag: res.headers.get('etag')!, record: res.body.data };
}

/** PATCH of a job or an estimate with its ETag (body key: the singular); returns the raw response. */
export function patch(api: Client, plural: 'jobs' | 'estimates' | 'invoices', current: { id: string; etag: string }, fields: Record<string, unknown>) {
  return api.patch(`/${plural}/${current.id}`, { [plural.slice(0, -1)]: fields }, ifMatch(current.etag));
}

/** GETs the record and DELETEs it with its current ETag; insists on 204. */
export async function deleteRecord(api: Client, plural: string, id: string): Promise<void> {
  const { etag } = await readRecord(api, plural, id);
  const res = await api.delete(`/${plural}/${id}`, ifMatch(etag));
  expect(res.status, `DELETE /${plural}/${id}: ${res.text}`).toBe(204);
}

/** The ids of a list response, in order. */
export function idsOf(res: { body: { data: { id: string }[] } }): string[] {
  expect(Array.isArray(res.body?.data), JSON.stringify(res.body)).toBe(true);
  return res.body.data.map((r) => r.id);
}
