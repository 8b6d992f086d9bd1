import type { Domain } from '../domain.ts';
import { hasAttachmentValues, withDownloadLinks, type FileLinkSigner } from '../kernel/file-links.ts';
import { Single } from '../kernel/resource-service.ts';

// The `url` of the attachment values a REST answer serves (src/kernel/file-links.ts withDownloadLinks), added when
// the record is rendered.

type WireRecord = Record<string, unknown>;

/** The records with a `url` in each attachment value (copies; records without attachments are returned as they are). */
export async function withFileLinks(records: WireRecord[], signer: () => Promise<FileLinkSigner>): Promise<WireRecord[]> {
  if (!records.some((record) => hasAttachmentValues(record.custom_fields))) return records;
  const sign = await signer();
  return records.map((record) => (hasAttachmentValues(record.custom_fields) ? { ...record, custom_fields: withDownloadLinks(record.custom_fields, sign) } : record));
}

/** The record with the download links of its attachment values. */
export async function linkedSingle(domain: Domain, single: Single): Promise<Single> {
  const [record] = await withFileLinks([single.record], () => domain.attachments.signer());
  return record === single.record ? single : new Single(record, single.etag);
}
