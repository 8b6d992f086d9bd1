import { expect } from 'vitest';
import type { TestApp } from '../app.ts';
import type { Client } from '../http.ts';
import { createRecord, type Created } from './records.ts';

// Recurring templates and what they create: the records of a template by occurrence date, its occurrences
// preview, and one pass of the scheduler (what the queue's recurring-generate job runs every 5 minutes).

export function createRecurringJob(api: Client, fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'recurring_jobs', 'recurring_job', fields);
}

export function createRecurringInvoice(api: Client, fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'recurring_invoices', 'recurring_invoice', fields);
}

/** The live jobs (or invoices) a template created, by occurrence date. */
export async function createdBy(api: Client, kind: 'jobs' | 'invoices', templateId: string): Promise<Record<string, any>[]> {
  const column = kind === 'jobs' ? 'recurring_job_id' : 'recurring_invoice_id';
  const res = await api.get(`/${kind}?${column}=${templateId}&limit=100`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.has_more).toBe(false);
  return [...res.body.data].sort((a, b) => String(a.occurrence_date).localeCompare(String(b.occurrence_date)));
}

/** The occurrence dates of what a template created. */
export async function createdDates(api: Client, kind: 'jobs' | 'invoices', templateId: string): Promise<string[]> {
  return (await createdBy(api, kind, templateId)).map((record) => record.occurrence_date);
}

/** GET .../occurrences with these query parameters; insists on 200. */
export async function occurrences(api: Client, plural: 'recurring_jobs' | 'recurring_invoices', id: string, query = ''): Promise<Record<string, any>[]> {
  const res = await api.get(`/${plural}/${id}/occurrences${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** One pass of the scheduler over every account (the queue's recurring-generate job). */
export function sweep(t: TestApp) {
  return t.app.domain.recurring.sweep();
}
