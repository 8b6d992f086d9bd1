import { request } from 'node:http';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { PENDING_ORPHAN_MS } from '../../src/kernel/attachments.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { serverDatabase } from '../helpers/database.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { spawnServer, teardown, until, type Spawned } from '../helpers/processes.ts';

// docs/decisions.md "Attachments", nothing orphaned: a process killed while a file streams in, after the file's row
// was written `pending` and before the record's transaction, leaves the record untouched and an orphan (the row and
// the partial object) that the files-purge job removes once it is older than PENDING_ORPHAN_MS. Proven with a real
// process: a server spawned as src/main.ts receives an upload this test sends slowly, and is SIGKILLed while the
// bytes are arriving. The purge runs in the test's in-process app on the same database and the same directory.
//
// PostgreSQL only (TEST_DATABASE_URL): the embedded database lives inside one process.

const BOUNDARY = 'fieldline-crash-boundary';

describe.skipIf(!process.env.TEST_DATABASE_URL)('an upload whose process was killed between the file and the commit', () => {
  let server: Awaited<ReturnType<typeof serverDatabase>> = null;
  let database: Database | undefined;
  let t: TestApp | undefined;
  let spawned: Spawned | undefined;
  let observer: pg.Client | undefined;
  let filesDir = '';
  let token: string;
  let accountId: string;
  let fieldId: string;
  let customerId: string;

  beforeAll(async () => {
    server = await serverDatabase('fl_files_crash');
    database = await openDatabase({ url: server!.url, poolSize: 5 });
    filesDir = await mkdtemp(path.join(tmpdir(), 'fieldline-crash-files-'));
    const env = { FILE_STORAGE: 'disk', FILES_DIR: filesDir };
    t = await startTestApp({ database, env });
    const { tenant, api } = await t.newTenant();
    token = tenant.token;
    accountId = tenant.accountId;
    fieldId = (await t.app.domain.admin.addCustomField({ accountId, relatedName: 'Customer', name: 'Contract', type: 'attachment' })).id;
    customerId = (await createCustomer(api)).id;
    spawned = await spawnServer({ DATABASE_URL: server!.url, DATABASE_POOL_SIZE: '3', ...env });
    observer = new pg.Client({ connectionString: server!.url });
    await observer.connect();
  }, 180_000);

  afterAll(async () => {
    await teardown([
      async () => {
        spawned?.kill();
        await spawned?.exited;
      },
      () => observer?.end(),
      () => t?.close(),
      () => database?.close(),
      () => server?.drop(),
      () => rm(filesDir, { recursive: true, force: true }),
    ]);
  }, 60_000);

  /** The account's objects in the storage directory, with their sizes. */
  const objects = async (): Promise<{ name: string; size: number }[]> => {
    const dir = path.join(filesDir, accountId);
    const names = await readdir(dir).catch(() => [] as string[]);
    return Promise.all(names.map(async (name) => ({ name, size: (await stat(path.join(dir, name))).size })));
  };
  const fileRows = async () =>
    (await observer!.query<{ id: string; state: string }>(`SELECT id::text, state FROM stored_files WHERE record_id = $1::uuid`, [customerId])).rows;

  it(
    'leaves the record as it was and an orphan the purge removes once it is older than an hour; the field then takes a new file',
    async () => {
      const api = t!.client(token);
      const before = await api.get(`/customers/${customerId}`);
      expect(before.status).toBe(200);

      // 1. Start an upload to the spawned server and send part of the file; the rest never comes.
      const upload = request(`${spawned!.url}/api/v2/customers/${customerId}/custom_fields/${fieldId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'if-match': before.headers.get('etag')! },
      });
      let answered: number | null = null;
      upload.on('response', (res) => (answered = res.statusCode ?? 0));
      const failed = new Promise<void>((resolve) => upload.on('error', () => resolve()));
      upload.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="contract.txt"\r\nContent-Type: text/plain\r\n\r\n`);
      upload.write(Buffer.alloc(256 * 1024, 'a'));

      // 2. Its row is pending (committed on its own) and its bytes are arriving in the storage directory.
      const pending = await until('the pending row and a partial object', async () => {
        if (answered !== null) throw new Error(`the upload was answered (${answered}) before the process was killed`);
        const rows = await fileRows();
        const partial = (await objects()).find((o) => o.name.endsWith('.partial') && o.size > 0);
        return rows.length === 1 && rows[0].state === 'pending' && partial ? { row: rows[0], partial } : null;
      });

      // 3. Kill it there. The client's request fails; it got no answer.
      spawned!.kill();
      expect((await spawned!.exited).signal).toBe('SIGKILL');
      await failed;
      expect(answered).toBeNull();

      // 4. The record never saw the file: same ETag, the field unset. The orphan is there.
      const after = await api.get(`/customers/${customerId}`);
      expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
      expect(after.body.data.custom_fields[fieldId] ?? null).toBeNull();
      expect(await fileRows()).toEqual([pending.row]);
      expect((await objects()).map((o) => o.name)).toEqual([pending.partial.name]);
      expect((await api.get(`/files/${pending.row.id}`)).status).toBe(404);

      // 5. The purge keeps a pending row younger than an hour (an upload may still be streaming) ...
      await t!.app.domain.attachments.purge(new Date());
      expect(await fileRows()).toEqual([pending.row]);
      // ... and removes it, object first, once it is older.
      expect(await t!.app.domain.attachments.purge(new Date(Date.now() + PENDING_ORPHAN_MS + 60_000))).toBe(1);
      expect(await fileRows()).toEqual([]);
      expect(await objects()).toEqual([]);

      // 6. The field works as before: a whole upload sets it.
      const body = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="contract.txt"\r\nContent-Type: text/plain\r\n\r\nsigned\r\n--${BOUNDARY}--\r\n`);
      const res = await fetch(`${t!.url}/api/v2/customers/${customerId}/custom_fields/${fieldId}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'if-match': after.headers.get('etag')! },
        body,
      });
      expect(res.status).toBe(200);
      const value = ((await res.json()) as { data: { custom_fields: Record<string, { filename: string; size: number }> } }).data.custom_fields[fieldId];
      expect(value).toMatchObject({ filename: 'contract.txt', size: 6 });
      expect((await fileRows()).map((r) => r.state)).toEqual(['attached']);
    },
    120_000,
  );
});
