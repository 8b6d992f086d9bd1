import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStorageOf } from '../../src/files/index.ts';
import type { FileStorage } from '../../src/kernel/file-storage.ts';
import { FILE_LINK_LIFETIME_SECONDS } from '../../src/kernel/file-links.ts';
import { highRateLimits, startTestApp, TestClock, type TenantClients, type TestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { expectProblem } from '../helpers/problem.ts';

// Attachment custom fields (docs/decisions.md, Attachments): PUT (multipart/form-data, one file part) and DELETE
// on /{resource}/{id}/custom_fields/{field_id}, GET /files/{file_id} by signed link or key, and the files-purge
// job; on the embedded database or PostgreSQL (TEST_DATABASE_URL), with the disk storage and with an S3-compatible
// bucket (s3rver, started here on an ephemeral port of 127.0.0.1 in a temporary directory).

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
/** The start of a PDF (file-type recognizes %PDF-). */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

interface Part {
  name?: string;
  filename?: string;
  /** Sent as filename*=UTF-8''<percent-encoded> (RFC 5987), which may carry any character. */
  filenameStar?: string;
  type?: string;
  data: Buffer | string;
}

const BOUNDARY = 'fieldline-test-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

/** A multipart/form-data body of these parts (a part without filename is a field). */
function multipart(parts: Part[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filenameStar !== undefined ? `; filename*=UTF-8''${encodeURIComponent(part.filenameStar)}` : part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const disposition = `form-data; name="${part.name ?? 'file'}"${filename}`;
    const headers = `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ''}\r\n`;
    chunks.push(Buffer.from(headers, 'utf8'), Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

interface Backend {
  name: 'disk' | 's3';
  env(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

function diskBackend(): Backend {
  let dir = '';
  return {
    name: 'disk',
    async env() {
      dir = await mkdtemp(path.join(tmpdir(), 'fieldline-files-'));
      return { FILE_STORAGE: 'disk', FILES_DIR: dir };
    },
    stop: () => rm(dir, { recursive: true, force: true }),
  };
}

function s3Backend(): Backend {
  let dir = '';
  let server: S3rver | null = null;
  return {
    name: 's3',
    async env() {
      dir = await mkdtemp(path.join(tmpdir(), 'fieldline-s3-'));
      server = new S3rver({ port: 0, address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: 'attachments', configs: [] }] });
      const address = await server.run();
      return {
        FILE_STORAGE: 's3',
        S3_ENDPOINT: `http://127.0.0.1:${address.port}`,
        S3_BUCKET: 'attachments',
        S3_REGION: 'us-east-1',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      };
    },
    async stop() {
      await server?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe.each([diskBackend(), s3Backend()])('attachment custom fields on $name storage', (backend) => {
  const clock = new TestClock();
  let t: TestApp;
  let storage: FileStorage;
  let a: TenantClients;
  let other: TenantClients;
  const f: Record<string, string> = {};

  beforeAll(async () => {
    const env = await backend.env();
    t = await startTestApp({ env, clock, rateLimits: highRateLimits });
    storage = fileStorageOf(t.config);
    a = await t.newTenant();
    other = await t.newTenant();
    const add = async (name: string, type: string, extra: { options?: string[]; maxSizeBytes?: number; relatedName?: string } = {}) =>
      (await t.app.domain.admin.addCustomField({ accountId: a.tenant.accountId, relatedName: extra.relatedName ?? 'Customer', name, type, options: extra.options, maxSizeBytes: extra.maxSizeBytes })).id;
    f.any = await add('Contract', 'attachment');
    f.images = await add('Photo', 'attachment', { options: ['image/*'] });
    f.documents = await add('Document', 'attachment', { options: ['application/pdf', 'text/plain'] });
    f.small = await add('Thumbnail', 'attachment', { maxSizeBytes: 2048 });
    f.text = await add('Region', 'text');
    f.job = await add('Job sheet', 'attachment', { relatedName: 'Job' });
  });
  afterAll(async () => {
    await t?.close();
    await backend.stop();
  });

  const put = (api: TenantClients['api'], customer: { id: string; etag: string }, field: string, body: Buffer | ReadableStream, headers: Record<string, string> = {}) =>
    api.request('PUT', `/customers/${customer.id}/custom_fields/${field}`, { raw: Buffer.isBuffer(body) ? new Uint8Array(body) : body, headers: { 'content-type': MULTIPART, 'if-match': customer.etag, ...headers } });

  /** The row of a file in stored_files (any state), read past the tenant scope. */
  const fileRow = (id: string) => t.database.prisma.storedFile.findUnique({ where: { id } });
  const rowsOf = (recordId: string) => t.database.prisma.storedFile.findMany({ where: { record_id: recordId } });

  describe('PUT sets the field', () => {
    it('stores the file and answers the record with a new ETag and the value {file_id, filename, content_type, size, sha256, url}', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.any, multipart([{ filename: 'contract.pdf', type: 'application/pdf', data: PDF }]));
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('etag')).not.toBe(customer.etag);
      const value = res.body.data.custom_fields[f.any];
      expect(value).toEqual({ file_id: expect.any(String), filename: 'contract.pdf', content_type: 'application/pdf', size: PDF.length, sha256: sha256(PDF), url: expect.any(String) });
      expect(value.url).toMatch(new RegExp(`^/api/v2/files/${value.file_id}\\?expires=\\d+&signature=[^&]+$`));
      expect((await fileRow(value.file_id))?.state).toBe('attached');
      expect(await storage.exists(`${a.tenant.accountId}/${value.file_id}`)).toBe(true);

      const read = await a.api.get(`/customers/${customer.id}`);
      expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
      expect(read.body.data.custom_fields[f.any]).toMatchObject({ file_id: value.file_id, sha256: sha256(PDF) });
      const listed = await a.api.get(`/customers?q=${encodeURIComponent(customer.record.organization as string)}`);
      expect(listed.body.data[0].custom_fields[f.any].url).toMatch(/^\/api\/v2\/files\//);
    });

    it('serves the bytes at the signed url without a key, with the stored type, the filename and defensive headers', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.images, multipart([{ filename: 'Photo ünïcode 1.png', type: 'image/png', data: PNG }]));
      expect(res.status, res.text).toBe(200);
      const value = res.body.data.custom_fields[f.images];
      const download = await fetch(`${t.url}${value.url}`);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(PNG);
      expect(download.headers.get('content-type')).toBe('image/png');
      expect(download.headers.get('content-disposition')).toBe(`attachment; filename="Photo _n_code 1.png"; filename*=UTF-8''${encodeURIComponent('Photo ünïcode 1.png')}`);
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(download.headers.get('etag')).toBe(`"${sha256(PNG)}"`);
    });

    it('builds the url on PUBLIC_URL when it is set', async () => {
      const env = { ...(await backend.env()), PUBLIC_URL: 'https://api.example.com/base' };
      const app = await startTestApp({ env });
      try {
        const tenant = await app.newTenant();
        const field = (await app.app.domain.admin.addCustomField({ accountId: tenant.tenant.accountId, relatedName: 'Customer', name: 'File', type: 'attachment' })).id;
        const customer = await createCustomer(tenant.api);
        const res = await put(tenant.api, customer, field, multipart([{ filename: 'a.txt', type: 'text/plain', data: 'hello' }]));
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.custom_fields[field].url).toMatch(/^https:\/\/api\.example\.com\/base\/api\/v2\/files\/[0-9a-f-]+\?expires=/);
      } finally {
        await app.close();
      }
    });

    it('serves the bytes with the key instead of a signature, for the key of the record\'s tenant only', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.any, multipart([{ filename: 'notes.txt', type: 'text/plain', data: 'some notes' }]));
      const { file_id: fileId } = res.body.data.custom_fields[f.any];
      const own = await a.api.get(`/files/${fileId}`);
      expect(own.status).toBe(200);
      expect(own.text).toBe('some notes');
      expect(own.headers.get('content-type')).toBe('text/plain');
      expectProblem(await other.api.get(`/files/${fileId}`), { status: 404, code: 'resource.not_found' });
      expectProblem(await a.api.get('/files/not-a-uuid'), { status: 404, code: 'resource.not_found' });
    });

    it('serves a file by key only with the read scope of its record\'s resource', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.any, multipart([{ filename: 'n.txt', type: 'text/plain', data: 'x' }]));
      const { file_id: fileId } = res.body.data.custom_fields[f.any];
      const jobsOnly = await t.app.domain.admin.createKey({ userId: a.tenant.userId, scopes: ['jobs:read'] });
      expectProblem(await t.client(jobsOnly.token).get(`/files/${fileId}`), { status: 403, code: 'auth.scope_missing' });
    });

    it('replaces the previous file: the old one stops being served, and the purge job removes it after the commit', async () => {
      const customer = await createCustomer(a.api);
      const first = await put(a.api, customer, f.any, multipart([{ filename: 'v1.txt', type: 'text/plain', data: 'one' }]));
      const old = first.body.data.custom_fields[f.any];
      const second = await put(a.api, { id: customer.id, etag: first.headers.get('etag')! }, f.any, multipart([{ filename: 'v2.txt', type: 'text/plain', data: 'two' }]));
      expect(second.status, second.text).toBe(200);
      expect(second.body.data.custom_fields[f.any]).toMatchObject({ filename: 'v2.txt', size: 3 });
      expect((await fileRow(old.file_id))?.state).toBe('released');
      expect((await fetch(`${t.url}${old.url}`)).status).toBe(404);
      // Released, not yet removed: the object stays until the purge runs.
      expect(await storage.exists(`${a.tenant.accountId}/${old.file_id}`)).toBe(true);
      expect(await t.app.domain.attachments.purge()).toBeGreaterThanOrEqual(1);
      expect(await storage.exists(`${a.tenant.accountId}/${old.file_id}`)).toBe(false);
      expect(await fileRow(old.file_id)).toBeNull();
      const current = second.body.data.custom_fields[f.any];
      expect(await storage.exists(`${a.tenant.accountId}/${current.file_id}`)).toBe(true);
    });

    it('sanitizes the filename: no directories, path separators or control characters', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.any, multipart([{ filenameStar: '..\\..\\windows\\ev\x01il\x7f\u202e.txt', type: 'text/plain', data: 'x' }]));
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.custom_fields[f.any].filename).toBe('evil.txt');
      const unix = await put(a.api, { id: customer.id, etag: res.headers.get('etag')! }, f.any, multipart([{ filename: '../../etc/passwd', type: 'text/plain', data: 'x' }]));
      expect(unix.body.data.custom_fields[f.any].filename).toBe('passwd');
      const long = await put(a.api, { id: customer.id, etag: unix.headers.get('etag')! }, f.any, multipart([{ filename: `${'a'.repeat(400)}.txt`, type: 'text/plain', data: 'x' }]));
      expect(long.body.data.custom_fields[f.any].filename).toBe(`${'a'.repeat(251)}.txt`);
    });

    it('judges the content type by the bytes: a PNG declared text/plain is stored as image/png', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.images, multipart([{ filename: 'x.txt', type: 'text/plain', data: PNG }]));
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.custom_fields[f.images].content_type).toBe('image/png');
    });

    it('appends the record\'s updated event naming the new value', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.any, multipart([{ filename: 'e.txt', type: 'text/plain', data: 'event' }]));
      const events = await a.api.get(`/events?topic=customer.updated&limit=100`);
      expect(events.status, events.text).toBe(200);
      const mine = events.body.data.filter((e: { data: { id?: string; object?: { id?: string } } }) => JSON.stringify(e).includes(customer.id));
      expect(mine.length).toBeGreaterThan(0);
      expect(JSON.stringify(mine.at(-1))).toContain(res.body.data.custom_fields[f.any].file_id);
    });
  });

  describe('DELETE clears the field', () => {
    it('clears the value, answers the record with a new ETag, and releases the file', async () => {
      const customer = await createCustomer(a.api);
      const set = await put(a.api, customer, f.any, multipart([{ filename: 'gone.txt', type: 'text/plain', data: 'bye' }]));
      const value = set.body.data.custom_fields[f.any];
      const cleared = await a.api.delete(`/customers/${customer.id}/custom_fields/${f.any}`, { headers: { 'if-match': set.headers.get('etag')! } });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body.data.custom_fields[f.any]).toBeUndefined();
      expect(cleared.headers.get('etag')).not.toBe(set.headers.get('etag'));
      expect((await fileRow(value.file_id))?.state).toBe('released');
      expectProblem(await a.api.get(`/files/${value.file_id}`), { status: 404, code: 'resource.not_found' });
      await t.app.domain.attachments.purge();
      expect(await storage.exists(`${a.tenant.accountId}/${value.file_id}`)).toBe(false);
    });

    it('needs If-Match (428) holding the current ETag (412)', async () => {
      const customer = await createCustomer(a.api);
      expectProblem(await a.api.delete(`/customers/${customer.id}/custom_fields/${f.any}`), { status: 428, code: 'precondition.required' });
      expectProblem(await a.api.delete(`/customers/${customer.id}/custom_fields/${f.any}`, { headers: { 'if-match': 'W/"1-0"' } }), { status: 412, code: 'precondition.failed' });
    });
  });

  describe('a deleted record', () => {
    it('releases its files in the delete\'s transaction; the purge removes them', async () => {
      const customer = await createCustomer(a.api);
      const set = await put(a.api, customer, f.any, multipart([{ filename: 'r.txt', type: 'text/plain', data: 'record' }]));
      const value = set.body.data.custom_fields[f.any];
      const deleted = await a.api.delete(`/customers/${customer.id}`, { headers: { 'if-match': set.headers.get('etag')! } });
      expect(deleted.status, deleted.text).toBe(204);
      expect((await fileRow(value.file_id))?.state).toBe('released');
      expect((await fetch(`${t.url}${value.url}`)).status).toBe(404);
      await t.app.domain.attachments.purge();
      expect(await storage.exists(`${a.tenant.accountId}/${value.file_id}`)).toBe(false);
      expect(await rowsOf(customer.id)).toEqual([]);
    });
  });

  describe('signed links', () => {
    it('refuse a changed or foreign signature with 403 file.signature_invalid', async () => {
      const customer = await createCustomer(a.api);
      const one = (await put(a.api, customer, f.any, multipart([{ filename: '1.txt', type: 'text/plain', data: '1' }]))).body.data.custom_fields[f.any];
      const customer2 = await createCustomer(a.api);
      const two = (await put(a.api, customer2, f.any, multipart([{ filename: '2.txt', type: 'text/plain', data: '2' }]))).body.data.custom_fields[f.any];
      const query = (url: string) => url.split('?')[1];
      const anonymous = t.client(null);
      expectProblem(await anonymous.get(`/files/${two.file_id}?${query(one.url)}`), { status: 403, code: 'file.signature_invalid' });
      expectProblem(await anonymous.get(`/files/${one.file_id}?${query(one.url).replace(/expires=(\d+)/, (_m, e) => `expires=${Number(e) + 1}`)}`), { status: 403, code: 'file.signature_invalid' });
      expectProblem(await anonymous.get(`/files/${one.file_id}?expires=1&signature=nonsense`), { status: 403, code: 'file.signature_invalid' });
      // A signature checked before the file is looked up: a made-up file id answers the same.
      expectProblem(await anonymous.get(`/files/0190d2a8-0000-7000-8000-000000000000?${query(one.url)}`), { status: 403, code: 'file.signature_invalid' });
      // Neither key nor signature: the authentication problem.
      expectProblem(await anonymous.get(`/files/${one.file_id}`), { status: 401, code: 'auth.missing_token' });
    });

    it(`expire ${FILE_LINK_LIFETIME_SECONDS} seconds after the record was read`, async () => {
      const customer = await createCustomer(a.api);
      const value = (await put(a.api, customer, f.any, multipart([{ filename: 'x.txt', type: 'text/plain', data: 'x' }]))).body.data.custom_fields[f.any];
      clock.advance((FILE_LINK_LIFETIME_SECONDS - 5) * 1000);
      try {
        expect((await fetch(`${t.url}${value.url}`)).status).toBe(200);
        clock.advance(10_000);
        const expired = await t.client(null).get(value.url.replace('/api/v2', ''));
        expectProblem(expired, { status: 403, code: 'file.signature_invalid', detail: 'expired' });
      } finally {
        clock.advance(-(FILE_LINK_LIFETIME_SECONDS + 5) * 1000);
      }
    });
  });

  describe('refusals', () => {
    it('refuses a body that is not multipart/form-data with 415', async () => {
      const customer = await createCustomer(a.api);
      const res = await a.api.request('PUT', `/customers/${customer.id}/custom_fields/${f.any}`, { body: { file: 'x' }, headers: { 'if-match': customer.etag } });
      expectProblem(res, { status: 415, code: 'request.unsupported_media_type', detail: 'multipart/form-data' });
    });

    it('refuses a body with no file part, or only an empty one, with 422', async () => {
      const customer = await createCustomer(a.api);
      expectProblem(await put(a.api, customer, f.any, multipart([{ name: 'note', data: 'no file here' }])), { status: 422, code: 'validation.failed', errors: { file: true }, detail: 'no file part' });
      expectProblem(await put(a.api, customer, f.any, multipart([{ filename: '', type: 'application/octet-stream', data: '' }])), { status: 422, code: 'validation.failed', detail: 'no file part' });
      expect((await a.api.get(`/customers/${customer.id}`)).headers.get('etag')).toBe(customer.etag);
    });

    it('refuses several file parts with 422 and keeps nothing of the first', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.any, multipart([
        { filename: 'a.txt', type: 'text/plain', data: 'a' },
        { name: 'other', filename: 'b.txt', type: 'text/plain', data: 'b' },
      ]));
      expectProblem(res, { status: 422, code: 'validation.failed', detail: 'several file parts' });
      expect(await rowsOf(customer.id)).toEqual([]);
    });

    it('refuses a file over the field\'s limit with 413 naming the limit, from Content-Length before reading', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.small, multipart([{ filename: 'big.bin', type: 'application/octet-stream', data: Buffer.alloc(200_000, 7) }]));
      expectProblem(res, { status: 413, code: 'request.body_too_large', detail: '2048 bytes' });
      expect(await rowsOf(customer.id)).toEqual([]);
    });

    it('stops a streamed upload at the limit with 413 and deletes the partial object', async () => {
      const customer = await createCustomer(a.api);
      // Within the Content-Length allowance (the limit plus the part headers), so the stream itself is cut.
      const body = multipart([{ filename: 'big.bin', type: 'application/octet-stream', data: Buffer.alloc(2048 + 10_000, 7) }]);
      const res = await put(a.api, customer, f.small, body);
      expectProblem(res, { status: 413, code: 'request.body_too_large', detail: '2048 bytes' });
      expect(await rowsOf(customer.id)).toEqual([]);
      // Chunked, without Content-Length.
      const chunked = new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(body));
          controller.close();
        },
      });
      expectProblem(await put(a.api, customer, f.small, chunked), { status: 413, code: 'request.body_too_large' });
      expect(await rowsOf(customer.id)).toEqual([]);
    });

    it('accepts a file of exactly the limit', async () => {
      const customer = await createCustomer(a.api);
      const res = await put(a.api, customer, f.small, multipart([{ filename: 'fits.bin', type: 'application/octet-stream', data: Buffer.alloc(2048, 1) }]));
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.custom_fields[f.small]).toMatchObject({ size: 2048, content_type: 'application/octet-stream' });
    });

    it('refuses a content type the field does not allow with 422, judged from the bytes and not the declared type', async () => {
      const customer = await createCustomer(a.api);
      // Declared image/png, but not a PNG: unrecognized bytes of a non-text type are application/octet-stream.
      const fake = await put(a.api, customer, f.images, multipart([{ filename: 'fake.png', type: 'image/png', data: 'just some text' }]));
      expectProblem(fake, { status: 422, code: 'validation.failed', errors: { [`custom_fields.${f.images}`]: true }, detail: undefined });
      expect(fake.body.errors[`custom_fields.${f.images}`][0]).toContain('application/octet-stream');
      const pdfAsImage = await put(a.api, customer, f.images, multipart([{ filename: 'doc.png', type: 'image/png', data: PDF }]));
      expectProblem(pdfAsImage, { status: 422, code: 'validation.failed' });
      expect(pdfAsImage.body.errors[`custom_fields.${f.images}`][0]).toContain('application/pdf');
      expect(await rowsOf(customer.id)).toEqual([]);
      // A text type is believed as declared when the field allows it.
      const text = await put(a.api, customer, f.documents, multipart([{ filename: 'n.txt', type: 'text/plain; charset=utf-8', data: 'plain words' }]));
      expect(text.status, text.text).toBe(200);
      expect(text.body.data.custom_fields[f.documents].content_type).toBe('text/plain');
    });

    it('refuses a field that is not an attachment, or of another resource class, with 422', async () => {
      const customer = await createCustomer(a.api);
      const body = multipart([{ filename: 'a.txt', type: 'text/plain', data: 'a' }]);
      const notAttachment = expectProblem(await put(a.api, customer, f.text, body), { status: 422, code: 'validation.failed', errors: { [`custom_fields.${f.text}`]: true } });
      expect(notAttachment.errors[`custom_fields.${f.text}`][0]).toContain('is a text field, not an attachment');
      const otherClass = expectProblem(await put(a.api, customer, f.job, body), { status: 422, code: 'validation.failed', errors: { [`custom_fields.${f.job}`]: true } });
      expect(otherClass.errors[`custom_fields.${f.job}`][0]).toContain('is a custom field of Job, not of Customer');
    });

    it('answers 404 for a field id no definition of the account has: unknown, malformed, retired or another tenant\'s', async () => {
      const customer = await createCustomer(a.api);
      const body = multipart([{ filename: 'a.txt', type: 'text/plain', data: 'a' }]);
      expectProblem(await put(a.api, customer, '0190d2a8-0000-7000-8000-000000000000', body), { status: 404, code: 'resource.not_found', detail: 'Custom field definition' });
      expectProblem(await put(a.api, customer, 'nonsense', body), { status: 404, code: 'resource.not_found' });
      const foreign = (await t.app.domain.admin.addCustomField({ accountId: other.tenant.accountId, relatedName: 'Customer', name: 'Theirs', type: 'attachment' })).id;
      expectProblem(await put(a.api, customer, foreign, body), { status: 404, code: 'resource.not_found' });
      await t.app.domain.admin.addCustomField({ accountId: a.tenant.accountId, relatedName: 'Customer', name: 'Retired', type: 'attachment' });
      const retired = (await t.app.domain.admin.removeCustomField({ accountId: a.tenant.accountId, relatedName: 'Customer', name: 'Retired' })).id;
      expectProblem(await put(a.api, customer, retired, body), { status: 404, code: 'resource.not_found' });
      expect(await rowsOf(customer.id)).toEqual([]);
    });

    it('needs If-Match (428) with the current ETag (412), and a live record of the tenant (404)', async () => {
      const customer = await createCustomer(a.api);
      const body = multipart([{ filename: 'a.txt', type: 'text/plain', data: 'a' }]);
      expectProblem(await a.api.request('PUT', `/customers/${customer.id}/custom_fields/${f.any}`, { raw: new Uint8Array(body), headers: { 'content-type': MULTIPART } }), { status: 428, code: 'precondition.required' });
      expectProblem(await put(a.api, { id: customer.id, etag: 'W/"1-0"' }, f.any, body), { status: 412, code: 'precondition.failed' });
      expectProblem(await put(other.api, customer, f.any, body), { status: 404, code: 'resource.not_found' });
      expectProblem(await put(a.api, { id: '0190d2a8-0000-7000-8000-000000000000', etag: customer.etag }, f.any, body), { status: 404, code: 'resource.not_found' });
      expect(await rowsOf(customer.id)).toEqual([]);
    });

    it('needs the write scope of the record\'s resource', async () => {
      const customer = await createCustomer(a.api);
      const readOnly = await t.app.domain.admin.createKey({ userId: a.tenant.userId, scopes: ['customers:read'] });
      const res = await put(t.client(readOnly.token), customer, f.any, multipart([{ filename: 'a.txt', type: 'text/plain', data: 'a' }]));
      expectProblem(res, { status: 403, code: 'auth.scope_missing' });
    });

    it('deletes the stored object and its row when the record changed while the file was uploading (412)', async () => {
      const customer = await createCustomer(a.api);
      const body = multipart([{ filename: 'slow.txt', type: 'text/plain', data: 'x'.repeat(100_000) }]);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const stream = new ReadableStream({
        async start(controller) {
          controller.enqueue(new Uint8Array(body.subarray(0, 50_000)));
          await gate;
          controller.enqueue(new Uint8Array(body.subarray(50_000)));
          controller.close();
        },
      });
      const upload = put(a.api, customer, f.any, stream);
      // The pending row exists once the upload streams; the record then changes under it.
      for (let i = 0; i < 200 && (await rowsOf(customer.id)).length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const [pending] = await rowsOf(customer.id);
      expect(pending?.state).toBe('pending');
      const patched = await a.api.patch(`/customers/${customer.id}`, { customer: { description: 'changed meanwhile' } }, { headers: { 'if-match': customer.etag } });
      expect(patched.status, patched.text).toBe(200);
      release();
      expectProblem(await upload, { status: 412, code: 'precondition.failed' });
      expect(await rowsOf(customer.id)).toEqual([]);
      expect(await storage.exists(pending!.storage_key)).toBe(false);
    });
  });

  describe('the JSON paths', () => {
    it('refuse an attachment value in a PATCH body with 422 naming the multipart path', async () => {
      const customer = await createCustomer(a.api);
      const res = await a.api.patch(`/customers/${customer.id}`, { customer: { custom_fields: { [f.any]: { file_id: 'x' } } } }, { headers: { 'if-match': customer.etag } });
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { [`custom_fields.${f.any}`]: true } });
      expect(res.body.errors[`custom_fields.${f.any}`][0]).toContain(`multipart/form-data PUT or a DELETE on the record's custom_fields/${f.any} sub-path`);
    });

    it('serve the value over GraphQL with its signed url, which downloads the bytes', async () => {
      const customer = await createCustomer(a.api);
      const set = await put(a.api, customer, f.any, multipart([{ filename: 'contract.pdf', type: 'application/pdf', data: PDF }]));
      const res = await a.gql(`query($id: ID!) { customer(id: $id) { customFields } }`, { id: customer.id });
      const value = res.body.data.customer.customFields[f.any];
      expect(value).toMatchObject({ file_id: set.body.data.custom_fields[f.any].file_id, filename: 'contract.pdf', sha256: sha256(PDF) });
      expect(value.url).toMatch(new RegExp(`^/api/v2/files/${value.file_id}\\?expires=\\d+&signature=[^&]+$`));
      const download = await fetch(`${t.url}${value.url}`);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    });

    it('refuse an attachment value in a GraphQL update with a userError naming the multipart path', async () => {
      const customer = await createCustomer(a.api);
      const res = await a.gql(`mutation($id: ID!, $ifMatch: String, $input: UpdateCustomerInput!) { updateCustomer(id: $id, ifMatch: $ifMatch, input: $input) { customer { id } userErrors { field message code } } }`, {
        id: customer.id,
        ifMatch: customer.etag,
        input: { customFields: { [f.any]: { file_id: 'x' } } },
      });
      const [error] = res.body.data.updateCustomer.userErrors;
      expect(error).toMatchObject({ field: ['input', 'customFields', f.any] });
      expect(error.message).toContain(`custom_fields/${f.any} sub-path`);
    });

    it('keep custom_fields[<attachment field>] filters 400 filter.invalid', async () => {
      expectProblem(await a.api.get(`/customers?custom_fields[${f.any}]=x`), { status: 400, code: 'filter.invalid' });
    });

    it('serve the definition\'s allowed types and size limit in the lookup', async () => {
      const res = await a.api.get('/custom_field_definitions?related_name=Customer');
      const byId = Object.fromEntries(res.body.data.map((d: { id: string }) => [d.id, d]));
      expect(byId[f.images]).toMatchObject({ field_type: 'attachment', options: ['image/*'], max_size_bytes: null });
      expect(byId[f.small]).toMatchObject({ field_type: 'attachment', options: [], max_size_bytes: 2048 });
      expect(byId[f.text]).toMatchObject({ max_size_bytes: null });
    });
  });

  describe('the purge job', () => {
    it('removes pending rows older than an hour with their objects (a crash\'s orphans), and keeps younger ones', async () => {
      const customer = await createCustomer(a.api);
      const young = { id: '0190d2a8-0000-7000-8000-00000000a001', key: `${a.tenant.accountId}/0190d2a8-0000-7000-8000-00000000a001` };
      const old = { id: '0190d2a8-0000-7000-8000-00000000a002', key: `${a.tenant.accountId}/0190d2a8-0000-7000-8000-00000000a002` };
      const { Readable } = await import('node:stream');
      for (const [file, age] of [[young, 10 * 60_000], [old, 61 * 60_000]] as const) {
        await storage.put(file.key, Readable.from([Buffer.from('orphan')]));
        await t.database.prisma.storedFile.create({
          data: { id: file.id, account_id: a.tenant.accountId, storage_key: file.key, filename: 'o.txt', content_type: 'text/plain', record_class: 'Customer', record_id: customer.id, field_id: f.any, state: 'pending', created_at: new Date(clock.now().getTime() - age) },
        });
      }
      await t.app.domain.attachments.purge();
      expect(await storage.exists(old.key)).toBe(false);
      expect(await fileRow(old.id)).toBeNull();
      expect(await storage.exists(young.key)).toBe(true);
      expect((await fileRow(young.id))?.state).toBe('pending');
      await t.database.prisma.storedFile.delete({ where: { id: young.id } });
      await storage.delete(young.key);
    });
  });
});
