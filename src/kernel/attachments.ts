import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer } from 'file-type';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { requireScope } from './auth.ts';
import type { Clock } from './clock.ts';
import { runAsTenant, type RequestContext } from './context.ts';
import { AppError, validationError } from './errors.ts';
import type { FileLinks } from './file-links.ts';
import type { FileStorage } from './file-storage.ts';
import { isUuid, newId } from './ids.ts';
import { customFieldDefinitions } from './lookups.ts';
import type { ResourceService, Single } from './resource-service.ts';
import { lookupClassOf } from './resource.ts';
import type { Scope } from './scopes.ts';
import type { TenantClient } from './tenancy.ts';

// Attachment custom fields (docs/decisions.md, Attachments): one file per field, written through the record's
// custom_fields/{field_id} sub-path, never through the body. The flow of a set:
//   1. the record is found (404), its ETag checked (428/412) and the field checked (422), before the body is read;
//   2. a stored_files row is inserted `pending`, in its own committed statement;
//   3. the file part streams to the storage while it is hashed, counted (over the field's limit: 413, and the
//      partial object is deleted) and its first bytes sniffed (a type the field does not allow: 422);
//   4. ONE transaction: the ETag re-checked under the row's lock, the field set, the row `attached`, the field's
//      previous file `released`, the record's lock_version/updated_at bumped and its updated event appended.
// Any failure after step 2 deletes the object and the row. A process killed between 2 and 4 leaves a pending row
// (and maybe an object): the files-purge job removes pending rows older than PENDING_ORPHAN_MS with their objects,
// and released files once the transaction releasing them has committed.

/** The largest file of an attachment field whose definition sets no max_size_bytes: 25 MB. */
export const DEFAULT_MAX_FILE_BYTES = 25 * 1024 * 1024;
/** A pending file older than this is a crash's orphan (no upload lasts that long: HTTP_REQUEST_TIMEOUT_MS). */
export const PENDING_ORPHAN_MS = 60 * 60 * 1000;
/** The most characters of a stored filename. */
export const MAX_FILENAME_LENGTH = 255;
/** How many first bytes are sniffed for the content type (file-type reads at most this many). */
const SNIFF_BYTES = 4100;
const PURGE_BATCH = 200;

/** An attachment field's value as a record stores it (the served value adds `url`). */
export interface AttachmentValue {
  file_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
}

/** The one file part of an upload, as an adapter parsed it (REST: src/http/multipart.ts). */
export interface UploadedFile {
  /** The filename the client declared (sanitized here). */
  filename: string;
  /** The Content-Type the client declared for the part. */
  declaredType: string;
  /** The part's bytes. It fails with request.body_too_large once it passes the limit the adapter was given. */
  stream: Readable;
  /** Settles once the whole request body was read: rejects when it held more than this one file part. */
  finished: Promise<void>;
}

/** The attachment field a write targets, checked before the request body is read. */
export interface AttachmentTarget {
  service: ResourceService;
  recordId: string;
  fieldId: string;
  /** The field's size limit in bytes. */
  maxBytes: number;
  /** The content types the field accepts (`image/png`, `image/*`); empty: any. */
  allowed: string[];
}

/** A stored file opened for download. */
export interface OpenedFile {
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  stream: Readable;
}

/** Strips directories, control characters and path separators from a declared filename; keeps a sane length. */
export function sanitizeFilename(declared: string): string {
  const base = declared.split(/[\\/]/).pop() ?? '';
  // Control characters (C0, DEL, C1), the bidi overrides and the characters Windows refuses in names.
  const cleaned = base.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069<>:"|?*]/g, '').trim().replace(/^\.+/, '');
  if (cleaned === '') return 'file';
  if (cleaned.length <= MAX_FILENAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  return cleaned.slice(0, MAX_FILENAME_LENGTH - extension.length) + extension;
}

/** Whether a content type is one of the allowed ones (`type/subtype` or `type/*`); an empty list allows any. */
export function allowsType(allowed: readonly string[], type: string): boolean {
  if (allowed.length === 0) return true;
  return allowed.some((pattern) => {
    const p = pattern.trim().toLowerCase();
    return p.endsWith('/*') ? type.startsWith(p.slice(0, -1)) : p === type;
  });
}

/** Types whose bytes file-type cannot recognize (text): a declared one is believed; any other undetected type is not. */
const TEXT_TYPE = /^(text\/[a-z0-9.+-]+|application\/(json|xml|[a-z0-9.-]+\+(json|xml))|application\/octet-stream)$/;

/**
 * The content type of a file: the one its first bytes show (file-type), whatever was declared; for bytes file-type
 * does not recognize, the declared type when it is a text type, else application/octet-stream.
 */
export async function sniffContentType(head: Buffer, declaredType: string): Promise<string> {
  const detected = head.length > 0 ? await fileTypeFromBuffer(head) : undefined;
  if (detected) return detected.mime;
  const declared = declaredType.split(';')[0].trim().toLowerCase();
  return TEXT_TYPE.test(declared) ? declared : 'application/octet-stream';
}

/** Counts, hashes and sniffs the bytes passing through; fails at the size limit or on a type not allowed. */
class Inspector extends Transform {
  size = 0;
  contentType: string | null = null;
  private readonly hash = createHash('sha256');
  private head: Buffer[] = [];
  private headLength = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly decide: (head: Buffer) => Promise<string>,
  ) {
    super();
  }

  get sha256(): string {
    return this.hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) return callback(fileTooLarge(this.maxBytes));
    this.hash.update(chunk);
    if (this.contentType !== null) return callback(null, chunk);
    this.head.push(chunk);
    this.headLength += chunk.length;
    if (this.headLength < SNIFF_BYTES) return callback();
    this.release(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.contentType !== null) return callback();
    this.release(callback);
  }

  private release(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.decide(head).then(
      (type) => {
        this.contentType = type;
        callback(null, head);
      },
      (error: Error) => callback(error),
    );
  }
}

export function fileTooLarge(maxBytes: number): AppError {
  return new AppError('request.body_too_large', `The file exceeds this field's limit of ${maxBytes} bytes.`);
}

export interface AttachmentDeps {
  db: TenantClient;
  /** Reads outside a tenant: the purge (every account's files) and signed downloads (the file names its account). */
  prisma: PrismaClient;
  storage: FileStorage | null;
  links: FileLinks;
  clock: Clock;
  /** The resource service of a class (related_name), for the scope a download needs. */
  serviceOf: (className: string) => ResourceService | undefined;
}

export class AttachmentService {
  constructor(private readonly deps: AttachmentDeps) {}

  private get storage(): FileStorage {
    if (!this.deps.storage) throw new Error('no file storage is configured');
    return this.deps.storage;
  }

  /** The checks before an upload's body is read: If-Match, the record, the field (an attachment of this class). */
  async target(ctx: RequestContext, service: ResourceService, recordId: string, fieldId: string, ifMatch: string | undefined): Promise<AttachmentTarget> {
    await service.checkCurrent(ctx, recordId, ifMatch);
    const className = lookupClassOf(service.def);
    const field = `custom_fields.${fieldId}`;
    // A field id no live definition of the account has is a path that names nothing (404, like a record id); a
    // definition of another class, or not an attachment, is a field this record cannot take that way (422).
    const known = isUuid(fieldId)
      ? await runAsTenant(ctx.principal.accountId, async () => await this.deps.db.customFieldDefinition.findFirst({ where: { id: fieldId, deleted_at: null }, select: { related_name: true } }))
      : null;
    if (!known) throw new AppError('resource.not_found', 'Custom field definition not found');
    if (known.related_name !== className) throw validationError({ [field]: [`is a custom field of ${known.related_name}, not of ${className}`] });
    const definitions = await runAsTenant(ctx.principal.accountId, () => customFieldDefinitions(this.deps.db, className));
    const definition = definitions.find((d) => d.id === fieldId);
    if (!definition) throw new AppError('resource.not_found', 'Custom field definition not found');
    if (definition.field_type !== 'attachment') {
      throw validationError({ [field]: [`is a ${definition.field_type} field, not an attachment; set it in the custom_fields of the record's PATCH body`] });
    }
    return { service, recordId, fieldId, maxBytes: definition.max_size_bytes ?? DEFAULT_MAX_FILE_BYTES, allowed: definition.options };
  }

  /** Stores the file and sets the field to it in one transaction of the record; answers the record. */
  async attach(ctx: RequestContext, target: AttachmentTarget, ifMatch: string | undefined, file: UploadedFile): Promise<Single> {
    const { service, recordId, fieldId } = target;
    const accountId = ctx.principal.accountId;
    const id = newId();
    const key = `${accountId}/${id}`;
    const filename = sanitizeFilename(file.filename);
    const field = `custom_fields.${fieldId}`;
    const decide = async (head: Buffer) => {
      const type = await sniffContentType(head, file.declaredType);
      if (!allowsType(target.allowed, type)) {
        throw validationError({ [field]: [`accepts ${target.allowed.join(', ')}; the file is ${type} (judged from its bytes)`] });
      }
      return type;
    };
    const inspector = new Inspector(target.maxBytes, decide);
    // Prisma's queries run when awaited: inside the tenant's context.
    await runAsTenant(accountId, async () =>
      await this.deps.db.storedFile.create({
        data: { id, account_id: accountId, storage_key: key, filename, content_type: 'application/octet-stream', record_class: service.def.className, record_id: recordId, field_id: fieldId, state: 'pending', created_at: this.deps.clock.now() },
      }),
    );
    try {
      const flowing = pipeline(file.stream, inspector);
      flowing.catch(() => {});
      await Promise.all([this.storage.put(key, inspector), flowing]);
      await file.finished;
      const value: AttachmentValue = { file_id: id, filename, content_type: inspector.contentType ?? 'application/octet-stream', size: inspector.size, sha256: inspector.sha256 };
      const now = this.deps.clock.now();
      return await service.writeCustomField(ctx, recordId, ifMatch, fieldId, value, async (tx, previous) => {
        await tx.storedFile.updateMany({ where: { id, state: 'pending' }, data: { state: 'attached', content_type: value.content_type, size: value.size, sha256: value.sha256 } });
        await this.release(tx, previous, now);
      });
    } catch (error) {
      inspector.destroy();
      file.stream.resume();
      await this.storage.delete(key).catch(() => {});
      await runAsTenant(accountId, async () => await this.deps.db.storedFile.deleteMany({ where: { id } })).catch(() => {});
      throw error;
    }
  }

  /** Clears the field; its file is released (removed by the purge job once this has committed). */
  clear(ctx: RequestContext, target: AttachmentTarget, ifMatch: string | undefined): Promise<Single> {
    const now = this.deps.clock.now();
    return target.service.writeCustomField(ctx, target.recordId, ifMatch, target.fieldId, null, (tx, previous) => this.release(tx, previous, now));
  }

  private async release(tx: Parameters<Parameters<ResourceService['writeCustomField']>[5]>[0], previous: unknown, now: Date): Promise<void> {
    const previousId = (previous as Partial<AttachmentValue> | undefined)?.file_id;
    if (typeof previousId === 'string') await tx.storedFile.updateMany({ where: { id: previousId, state: 'attached' }, data: { state: 'released', released_at: now } });
  }

  /** A file of the caller's account, with the read scope of its record's resource; another tenant's is 404. */
  async openWithKey(ctx: RequestContext, fileId: string): Promise<OpenedFile> {
    const row = await runAsTenant(ctx.principal.accountId, async () => (isUuid(fileId) ? await this.deps.db.storedFile.findFirst({ where: { id: fileId, state: 'attached' } }) : null));
    if (!row) throw notFoundFile();
    const service = this.deps.serviceOf(row.record_class);
    if (service) requireScope(ctx.principal, `${service.def.scope}:read` as Scope);
    return this.opened(row);
  }

  /** A file by a signed link (no key): the signature is checked before the file is looked up. */
  async openSigned(fileId: string, expires: string | undefined, signature: string | undefined): Promise<OpenedFile> {
    await this.deps.links.verify(fileId, expires, signature);
    const row = isUuid(fileId) ? await this.deps.prisma.storedFile.findFirst({ where: { id: fileId, state: 'attached' } }) : null;
    if (!row) throw notFoundFile();
    return this.opened(row);
  }

  private async opened(row: { storage_key: string; filename: string; content_type: string; size: bigint; sha256: string | null }): Promise<OpenedFile> {
    let stream: Readable;
    try {
      stream = await this.storage.open(row.storage_key);
    } catch {
      throw notFoundFile();
    }
    return { filename: row.filename, contentType: row.content_type, size: Number(row.size), sha256: row.sha256 ?? '', stream };
  }

  /**
   * Removes released files and crash orphans (pending rows older than PENDING_ORPHAN_MS), objects first, of every
   * account; answers how many. Safe to run from several processes at once (a row is deleted once).
   */
  async purge(now: Date = this.deps.clock.now()): Promise<number> {
    let purged = 0;
    for (;;) {
      const rows = await this.deps.prisma.storedFile.findMany({
        where: { OR: [{ state: 'released' }, { state: 'pending', created_at: { lt: new Date(now.getTime() - PENDING_ORPHAN_MS) } }] },
        select: { id: true, storage_key: true, state: true },
        orderBy: { created_at: 'asc' },
        take: PURGE_BATCH,
      });
      for (const row of rows) {
        await this.storage.delete(row.storage_key);
        purged += (await this.deps.prisma.storedFile.deleteMany({ where: { id: row.id, state: row.state } })).count;
      }
      if (rows.length < PURGE_BATCH) return purged;
    }
  }

  /** The signer of download links for the records a request serves. */
  signer(): ReturnType<FileLinks['signer']> {
    return this.deps.links.signer();
  }
}

function notFoundFile(): AppError {
  return new AppError('resource.not_found', 'File not found');
}
