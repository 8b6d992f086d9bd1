import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { SigningKeys } from './cursor.ts';
import { AppError } from './errors.ts';

// Signed download links of attachment files: /api/v2/files/{file_id}?expires=<unix seconds>&signature=<kid>.<mac>,
// the mac an HMAC-SHA256 (with the signing keys of the list cursors, src/kernel/cursor.ts) of the file id and the
// expiry. The signature is checked before the file is looked up, so a wrong link tells nothing about which files exist. A browser opens the link from the record without an API key in the URL; the link is good
// for FILE_LINK_LIFETIME_SECONDS and for that one file only. Rotating the signing keys keeps older links valid
// until their key is retired.

/** How long a download link stays valid after the record that carries it was read. */
export const FILE_LINK_LIFETIME_SECONDS = 3600;

const SIGNATURE = /^([A-Za-z0-9]{1,40})\.([A-Za-z0-9_-]{43})$/;

function mac(secret: string, fileId: string, expires: number): Buffer {
  return createHmac('sha256', secret).update(`file:${fileId}:${expires}`).digest();
}

/** The signed link of a file (`<files url>/<file_id>?expires=...&signature=...`), made synchronously once the signer is ready. */
export type FileLinkSigner = (fileId: string) => string;

export class FileLinks {
  constructor(
    private readonly keys: SigningKeys,
    private readonly clock: Clock,
    /** Where the downloads are served: absolute on PUBLIC_URL when it is set, else a relative reference. */
    private readonly filesUrl = '/api/v2/files',
  ) {}

  /** A signer with the active key: every link it makes expires FILE_LINK_LIFETIME_SECONDS from now. */
  async signer(): Promise<FileLinkSigner> {
    const [active] = await this.keys.live();
    const expires = Math.floor(this.clock.now().getTime() / 1000) + FILE_LINK_LIFETIME_SECONDS;
    return (fileId) => `${this.filesUrl}/${fileId}?expires=${expires}&signature=${active.id}.${mac(active.secret, fileId, expires).toString('base64url')}`;
  }

  /** Refuses (403 file.signature_invalid) a link that is malformed, expired, or not signed for this file. */
  async verify(fileId: string, expires: string | undefined, signature: string | undefined): Promise<void> {
    const invalid = (why: string) => new AppError('file.signature_invalid', why);
    const match = SIGNATURE.exec(signature ?? '');
    if (!match || !/^\d{1,12}$/.test(expires ?? '')) throw invalid('The link is not a signed download link of this file; read the record again for a fresh one.');
    const key = (await this.keys.live()).find((k) => k.id === match[1]);
    const given = Buffer.from(match[2], 'base64url');
    const wanted = key ? mac(key.secret, fileId, Number(expires)) : null;
    if (!wanted || given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalid('The signature of the link does not match this file; read the record again for a fresh link.');
    if (Number(expires) * 1000 < this.clock.now().getTime()) throw invalid('The link has expired; read the record again for a fresh one.');
  }
}

/** An attachment field's value as records hold it (the custom_fields entry of an attachment field). */
function isAttachmentValue(value: unknown): value is { file_id: string } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { file_id?: unknown }).file_id === 'string';
}

/** Whether a record's custom_fields hold an attachment value (which is served with a download link). */
export function hasAttachmentValues(customFields: unknown): customFields is Record<string, unknown> {
  return typeof customFields === 'object' && customFields !== null && Object.values(customFields).some(isAttachmentValue);
}

/**
 * The custom_fields as served: each attachment value with its `url`, a signed download link. Records and their
 * events store the value without it (a link expires, the value does not); both adapters add it when they render.
 */
export function withDownloadLinks(customFields: Record<string, unknown>, sign: FileLinkSigner): Record<string, unknown> {
  return Object.fromEntries(Object.entries(customFields).map(([id, value]) => [id, isAttachmentValue(value) ? { ...value, url: sign(value.file_id) } : value]));
}
