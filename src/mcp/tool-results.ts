import type { Domain } from '../domain.ts';
import type { ActionDefinition } from '../kernel/action.ts';
import { hasAttachmentValues, withDownloadLinks } from '../kernel/file-links.ts';
import { Single } from '../kernel/resource-service.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';

// What a tool answers on success: structured content in the REST wire format of its data (the body REST answers,
// with the etag REST sends as a header) and a short text: a line saying what was done, then the same JSON.

/** What a tool answers: the structured content (the REST wire format of its data) and a short text. */
export interface ToolOutcome {
  structured: Record<string, unknown>;
  text: string;
}

/** A record as REST serves it (JSON values: decimals as strings, dates as ISO text), with its download links. */
export async function wired(domain: Domain, single: Single): Promise<Single> {
  const record = single.record;
  if (!hasAttachmentValues(record.custom_fields)) return single;
  const sign = await domain.attachments.signer();
  return new Single({ ...record, custom_fields: withDownloadLinks(record.custom_fields, sign) }, single.etag);
}

/** The records of a page as REST serves them, with their download links. */
export async function wiredRecords(domain: Domain, page: readonly Single[]): Promise<Record<string, unknown>[]> {
  return Promise.all(page.map(async (single) => (await wired(domain, single)).record));
}

export const json = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

export function singleOutcome(def: ResourceDefinition, single: Single, verb: string): ToolOutcome {
  const record = json(single.record);
  const structured = { data: record, etag: single.etag };
  return { structured, text: `${def.className} ${String(record.id)} ${verb} (etag ${single.etag}).\n${JSON.stringify(record)}` };
}

export function listOutcome(what: string, data: unknown[], hasMore: boolean, nextCursor: string | null): ToolOutcome {
  const structured = { data: json(data) as unknown as unknown[], has_more: hasMore, next_cursor: nextCursor };
  const more = hasMore ? ` More: call again with cursor "${nextCursor}".` : '';
  return { structured, text: `${data.length} ${what}.${more}\n${JSON.stringify(structured.data)}` };
}

export function recordsOutcome(action: ActionDefinition, records: Record<string, Single>, replayed = false): ToolOutcome {
  const data = Object.fromEntries(Object.entries(records).map(([key, single]) => [key, json(single.record)]));
  const etags = Object.fromEntries(Object.entries(records).map(([key, single]) => [key, single.etag]));
  return { structured: { data, etags }, text: `${action.summary}: done${replayed ? ' (replayed: this key was used before)' : ''}.\n${JSON.stringify(data)}` };
}

export function actionOutcome(action: ActionDefinition, result: unknown): ToolOutcome {
  const response = action.response;
  if (response.status === 204) return { structured: { done: true }, text: `${action.summary}: done.` };
  if ('records' in response) return recordsOutcome(action, result as Record<string, Single>);
  if ('list' in response) {
    const data = json(result) as unknown as unknown[];
    return { structured: { data, has_more: false, next_cursor: null }, text: `${action.summary}: ${data.length}.\n${JSON.stringify(data)}` };
  }
  const data = json(result);
  return { structured: { data }, text: `${action.summary}: done.\n${JSON.stringify(data)}` };
}
