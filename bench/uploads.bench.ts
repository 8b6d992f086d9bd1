// npm run bench:uploads — attachment custom fields (issue 27) on the real app, on a PostgreSQL database of its own,
// with the disk storage in a temporary directory (FILE_STORAGE=disk, FILES_DIR), removed at the end.
//
// 1. Throughput: closed loop, BENCH_CONNECTIONS connections, each owning one customer: a 1 MB multipart PUT of
//    /api/v2/customers/{id}/custom_fields/{field_id} with If-Match (the ETag of the previous answer carried forward)
//    beside a JSON PATCH /api/v2/customers/{id} of the same customers, in alternating rounds. Every answer is checked
//    (200, the record, a new ETag, the file's size); anything else is counted and reported, and the connection
//    goes on with the record's ETag read afresh.
// 2. Memory while refusing: the app's RSS (sampled in the child, bench/servers/control.ts 'rss-peak') idle, then
//    while BENCH_REFUSE_CLIENTS clients at once each stream a 100 MB chunked body (no Content-Length, so only the
//    streaming limit can refuse it) to a field whose max_size_bytes is 1 MB: the peak RSS growth over idle, the time
//    to each 413 and the bytes each client had handed to its socket when the 413 arrived. Then one over-limit
//    upload that declares its Content-Length (refused before the body is read).
// Figures are printed, never asserted. See bench/README.md ("Uploads") for the method and the knobs.
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { startChild, type Child } from './lib/children.ts';
import { benchCleanup } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { startWindow, waitForQuiet, loadAverage } from './lib/machine.ts';
import { median, ms, quantile, rate, table } from './lib/stats.ts';

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Seconds of each measured closed-loop run. */
  seconds: Number(env.BENCH_SECONDS ?? 8),
  warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 3),
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  /** Closed-loop connections; each owns one customer (uploads and PATCHes go to the same customers). */
  connections: Number(env.BENCH_CONNECTIONS ?? 8),
  /** The file of each upload, bytes. */
  uploadBytes: Number(env.BENCH_UPLOAD_BYTES ?? 1_000_000),
  /** Concurrent clients streaming an over-limit body. */
  refuseClients: Number(env.BENCH_REFUSE_CLIENTS ?? 8),
  /** The body each refused client would send, bytes. */
  refuseBytes: Number(env.BENCH_REFUSE_BYTES ?? 100_000_000),
  /** max_size_bytes of the field the refused uploads go to. */
  refuseLimit: Number(env.BENCH_REFUSE_LIMIT_BYTES ?? 1_000_000),
  /** Total seconds the bench may wait for a quiet machine before measured runs (at most 5 s before each; 0: never). */
  quietWaitSeconds: Number(env.BENCH_QUIET_WAIT_SECONDS ?? 20),
};
const unlimited = 1_000_000_000;
const HOST = '127.0.0.1';
const BOUNDARY = 'fieldline-bench-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
/** The piece a body is written in (and, chunked, the size of each chunk). */
const PIECE = 64 * 1024;

type Kind = 'upload' | 'patch';
const KINDS: Kind[] = ['upload', 'patch'];
const LABEL: Record<Kind, string> = {
  upload: 'PUT .../custom_fields/{field_id} (multipart, 1 file)',
  patch: 'PATCH /api/v2/customers/{id} (JSON)',
};

// ---------------------------------------------------------------------------------------------------------------
// Cleanup: the database dropped, the child stopped and the files directory removed on success, failure and SIGINT.
let benchDb: BenchDatabase | null = null;
let setupApp: App | null = null;
let setupDatabase: Database | null = null;
let sqlClient: pg.Client | null = null;
let filesDir: string | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app: setupApp, database: setupDatabase, sql: sqlClient, dirs: [filesDir] }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

// ---------------------------------------------------------------------------------------------------------------
// A keep-alive HTTP/1.1 client on a raw socket (as in bench/job-update.bench.ts): one request in flight, the
// answer's status, ETag and body. Answers must carry Content-Length.

interface Reply {
  status: number;
  etag: string | undefined;
  body: string;
}

class Connection {
  private chunks: Buffer[] = [];
  private received = 0;
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | null = null;
  failure: Error | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: HOST, port, noDelay: true });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new Connection(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Writes the request's pieces (a head and a body, without copying the body) and resolves with the answer. */
  send(pieces: Buffer[]): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.cork();
      for (const piece of pieces) this.socket.write(piece);
      this.socket.uncork();
    });
  }

  close(): void {
    this.socket.removeAllListeners('close');
    this.failure ??= new Error('connection closed');
    this.socket.destroy();
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.socket.destroy();
    const pending = this.pending;
    this.pending = null;
    pending?.reject(error);
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.received += chunk.length;
    const data = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = [data];
    const headerEnd = data.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = data.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) return this.fail(new Error(`answer without Content-Length: ${head.slice(0, 200)}`));
    const total = headerEnd + 4 + Number(length[1]);
    if (this.received < total) return;
    if (this.received > total) return this.fail(new Error('unexpected bytes after an answer'));
    this.chunks = [];
    this.received = 0;
    const pending = this.pending;
    this.pending = null;
    pending?.resolve({
      status: Number(head.slice(9, 12)),
      etag: /\r\netag:\s*([^\r\n]*)/i.exec(head)?.[1]?.trim(),
      body: data.toString('utf8', headerEnd + 4, total),
    });
  }
}

function head(method: string, urlPath: string, port: number, token: string, headers: Record<string, string | number>): Buffer {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return Buffer.from(`${method} ${urlPath} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n${lines}\r\n`, 'latin1');
}

function jsonRequest(method: string, urlPath: string, port: number, token: string, body: object | null, extra: Record<string, string> = {}): Buffer[] {
  if (body === null) return [head(method, urlPath, port, token, extra)];
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  return [head(method, urlPath, port, token, { 'Content-Type': 'application/json', 'Content-Length': payload.length, ...extra }), payload];
}

/** The multipart framing around a file of `size` bytes: the part head and the closing boundary. */
function multipartFraming(filename: string): { before: Buffer; after: Buffer } {
  return {
    before: Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`, 'latin1'),
    after: Buffer.from(`\r\n--${BOUNDARY}--\r\n`, 'latin1'),
  };
}

/**
 * Bytes no content sniffer recognizes (a text prefix, then a pseudo-random pattern), so the declared
 * application/octet-stream is kept and any attachment field takes them.
 */
function fileBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let x = 0x9e3779b9;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  bytes.write('Fieldline bench upload\n', 0, 'latin1');
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------------
// The throughput loop's two requests and the check of their answers.

interface Customer {
  id: string;
  etag: string;
  /** The reference the last successful PATCH set. */
  reference: string | null;
  /** The file_id the last successful upload set. */
  fileId: string | null;
}

interface Upload {
  fieldId: string;
  /** The multipart body: the part head, the file, the closing boundary. */
  body: Buffer;
  fileSize: number;
}

function buildUpload(fieldId: string, size: number): Upload {
  const { before, after } = multipartFraming('bench.bin');
  return { fieldId, body: Buffer.concat([before, fileBytes(size), after]), fileSize: size };
}

function request(kind: Kind, customer: Customer, upload: Upload, reference: string, port: number, token: string): Buffer[] {
  if (kind === 'upload') {
    const h = head('PUT', `/api/v2/customers/${customer.id}/custom_fields/${upload.fieldId}`, port, token, {
      'Content-Type': MULTIPART,
      'Content-Length': upload.body.length,
      'If-Match': customer.etag,
    });
    return [h, upload.body];
  }
  return jsonRequest('PATCH', `/api/v2/customers/${customer.id}`, port, token, { customer: { reference } }, { 'If-Match': customer.etag });
}

/** The new ETag (and file id) when the answer is the successful write; otherwise an Error saying why. */
function check(kind: Kind, customer: Customer, upload: Upload, reference: string, reply: Reply): { etag: string; fileId: string | null } | Error {
  const wrong = (why: string) => new Error(`${kind} on customer ${customer.id}: ${why}: ${reply.status} ${reply.body.slice(0, 300)}`);
  if (reply.status !== 200) return wrong('status');
  let data: { id?: string; reference?: string | null; custom_fields?: Record<string, { file_id?: string; size?: number; content_type?: string } | undefined> };
  try {
    data = (JSON.parse(reply.body) as { data: typeof data }).data;
  } catch {
    return wrong('body is not JSON');
  }
  if (data?.id !== customer.id) return wrong('not the customer');
  if (!reply.etag || reply.etag === customer.etag) return wrong('no new ETag');
  if (kind === 'patch') {
    if (data.reference !== reference) return wrong('the reference was not written');
    return { etag: reply.etag, fileId: customer.fileId };
  }
  const value = data.custom_fields?.[upload.fieldId];
  if (!value?.file_id || value.size !== upload.fileSize || value.content_type !== 'application/octet-stream') return wrong('the field does not hold the file');
  if (value.file_id === customer.fileId) return wrong('the file id did not change');
  return { etag: reply.etag, fileId: value.file_id };
}

interface RunResult {
  rps: number;
  ok: number;
  failed: number;
  failures: string[];
  p50: number;
  p99: number;
  seconds: number;
}

let referenceSeq = 0;

async function readCustomer(port: number, token: string, id: string): Promise<{ etag: string; reference: string | null }> {
  const reply = await once(port, jsonRequest('GET', `/api/v2/customers/${id}`, port, token, null));
  if (reply.status !== 200 || !reply.etag) throw new Error(`GET /api/v2/customers/${id} answered ${reply.status}: ${reply.body.slice(0, 300)}`);
  return { etag: reply.etag, reference: (JSON.parse(reply.body) as { data: { reference: string | null } }).data.reference };
}

async function closedLoop(kind: Kind, customers: Customer[], upload: Upload, seconds: number, port: number, token: string): Promise<RunResult> {
  const connections = await Promise.all(customers.map(() => Connection.open(port)));
  const latencies: number[] = [];
  const failures: string[] = [];
  let failed = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  try {
    await Promise.all(
      customers.map(async (customer, i) => {
        while (performance.now() < until) {
          const reference = `BENCH-${++referenceSeq}`;
          const sent = performance.now();
          let outcome: { etag: string; fileId: string | null } | Error;
          try {
            outcome = check(kind, customer, upload, reference, await connections[i].send(request(kind, customer, upload, reference, port, token)));
          } catch (error) {
            outcome = new Error(`${kind} on customer ${customer.id}: ${(error as Error).message}`);
          }
          if (outcome instanceof Error) {
            // Counted; the connection goes on, on a new socket if this one is gone, with the record read afresh.
            failed += 1;
            if (failures.length < 5) failures.push(outcome.message);
            if (connections[i].failure) connections[i] = await Connection.open(port);
            const fresh = await readCustomer(port, token, customer.id);
            customer.etag = fresh.etag;
            customer.reference = fresh.reference;
            continue;
          }
          latencies.push(performance.now() - sent);
          customer.etag = outcome.etag;
          customer.fileId = outcome.fileId;
          if (kind === 'patch') customer.reference = reference;
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  return { rps: latencies.length / elapsed, ok: latencies.length, failed, failures, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), seconds: elapsed };
}

/** One request on a connection of its own. */
async function once(port: number, pieces: Buffer[]): Promise<Reply> {
  const connection = await Connection.open(port);
  try {
    return await connection.send(pieces);
  } finally {
    connection.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// An over-limit upload streamed on a socket of its own: chunked (no Content-Length) or with the Content-Length of
// the whole body. The body is written in 64 KiB pieces as fast as the socket takes them, until the answer arrives.

interface Refusal {
  status: number;
  code: string;
  /** From the first byte of the request to the whole answer. */
  ms: number;
  /** Body bytes the socket had handed to the kernel (write callbacks run) when the answer arrived. */
  bodySent: number;
  /** Body bytes given to socket.write() by then (the difference still sat in the socket's buffer). */
  bodyQueued: number;
  /** The whole body went out before any answer. */
  sentAll: boolean;
  /** From the answer to the server closing the connection (null: still open 5 s later, then closed here). */
  closedAfterMs: number | null;
  error: string | null;
}

async function streamOverLimit(port: number, token: string, customer: Customer, fieldId: string, fileSize: number, chunked: boolean): Promise<Refusal> {
  const { before, after } = multipartFraming('too-big.bin');
  const bodyLength = before.length + fileSize + after.length;
  const piece = fileBytes(PIECE);
  const frame = (data: Buffer) => (chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`, 'latin1'), data, Buffer.from('\r\n', 'latin1')]) : data);
  const framedPiece = frame(piece);
  const socket = net.connect({ host: HOST, port, noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const result: Refusal = { status: 0, code: '', ms: Number.NaN, bodySent: 0, bodyQueued: 0, sentAll: false, closedAfterMs: null, error: null };
  let answered = false;
  let closed = false;
  let answeredAt = 0;
  let received = Buffer.alloc(0);
  /** The byte counts when the answer arrived (write callbacks may still run after it). */
  let atAnswer: { sent: number; queued: number } | null = null;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const started = performance.now();
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => {
    closed = true;
    if (answered) result.closedAfterMs = performance.now() - answeredAt;
    wakeUp();
    resolve();
  }));
  socket.on('error', (error) => {
    if (!answered && !result.error) result.error = error.message;
  });
  socket.on('data', (chunk: Buffer) => {
    if (answered) return;
    received = Buffer.concat([received, chunk]);
    const end = received.indexOf('\r\n\r\n');
    if (end < 0) return;
    const text = received.toString('latin1', 0, end);
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
    if (received.length < end + 4 + length) return;
    answered = true;
    answeredAt = performance.now();
    atAnswer = { sent: result.bodySent, queued: result.bodyQueued };
    result.ms = answeredAt - started;
    result.status = Number(text.slice(9, 12));
    try {
      result.code = (JSON.parse(received.toString('utf8', end + 4, end + 4 + length)) as { code?: string }).code ?? '';
    } catch {
      result.code = '(not JSON)';
    }
    wakeUp();
  });
  const headers: Record<string, string | number> = { 'Content-Type': MULTIPART, 'If-Match': customer.etag };
  if (chunked) headers['Transfer-Encoding'] = 'chunked';
  else headers['Content-Length'] = bodyLength;
  const write = (data: Buffer, bodyBytes: number): boolean => {
    result.bodyQueued += bodyBytes;
    return socket.write(data, (error) => {
      if (!error) result.bodySent += bodyBytes;
    });
  };
  write(head('PUT', `/api/v2/customers/${customer.id}/custom_fields/${fieldId}`, port, token, headers), 0);
  write(frame(before), before.length);
  let fileLeft = fileSize;
  while (!answered && !closed && fileLeft > 0) {
    const n = Math.min(PIECE, fileLeft);
    fileLeft -= n;
    const flowing = write(n === PIECE ? framedPiece : frame(piece.subarray(0, n)), n);
    if (!flowing && !answered && !closed) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        socket.once('drain', wakeUp);
      });
      socket.off('drain', wakeUp);
    }
  }
  if (!answered && !closed) {
    write(frame(after), after.length);
    if (chunked) write(Buffer.from('0\r\n\r\n', 'latin1'), 0);
    result.sentAll = true;
  }
  if (!answered && !closed) await new Promise<void>((resolve) => (wake = resolve));
  const timer = setTimeout(() => socket.destroy(), 5000);
  await closedPromise;
  clearTimeout(timer);
  if (!answered && !result.error) result.error = 'closed without an answer';
  const counts = atAnswer as { sent: number; queued: number } | null;
  if (counts) {
    result.bodySent = counts.sent;
    result.bodyQueued = counts.queued;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
function otherNote(other: number | null): string {
  return other === null ? '' : `; other processes ${Math.round(other * 100)}% of the machine`;
}

function mb(bytes: number): string {
  return (bytes / 1_000_000).toFixed(bytes < 10_000_000 ? 2 : 1);
}

/** Bytes the process has read through read system calls so far (sockets and files: /proc/<pid>/io rchar; null off Linux). */
function bytesRead(pid: number | undefined): number | null {
  try {
    return Number(/^rchar:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? Number.NaN);
  } catch {
    return null;
  }
}

function readDelta(before: number | null, after: number | null): string {
  return before === null || after === null ? 'n/a (no /proc)' : `${mb(after - before)} MB`;
}

async function countFiles(dir: string): Promise<{ objects: number; partial: number }> {
  let objects = 0;
  let partial = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    if (entry.name.endsWith('.partial')) partial += 1;
    else objects += 1;
  }
  return { objects, partial };
}

/** Resolves true when every request was the expected answer (200s checked, 413s refused with nothing left). */
async function main(): Promise<boolean> {
  const { seconds, rounds, connections, warmupSeconds, refuseClients } = settings;
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), database server ${new URL(settings.serverUrl).host}`);
  const loadBefore = loadAverage();
  log(`machine load average ${loadBefore}`);
  benchDb = await createBenchDatabase(settings.serverUrl);
  filesDir = await mkdtemp(path.join(os.tmpdir(), 'fieldline-bench-files-'));
  log(`created database ${benchDb.name} and files directory ${filesDir}`);

  // The account and the two fields through the domain's admin (an app in this process that never listens).
  setupDatabase = await openDatabase({ url: benchDb.url, poolSize: 2 }); // applies the migrations
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: benchDb.url, HOST });
  setupApp = buildApp({ database: setupDatabase, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited } });
  const created = await setupApp.domain.admin.createAccount({ name: 'Bench Uploads Ltd' });
  const accountId = created.account.id;
  const fileField = (await setupApp.domain.admin.addCustomField({ accountId, relatedName: 'Customer', name: 'Contract', type: 'attachment' })).id;
  const smallField = (await setupApp.domain.admin.addCustomField({ accountId, relatedName: 'Customer', name: 'Thumbnail', type: 'attachment', maxSizeBytes: settings.refuseLimit })).id;
  await setupApp.close();
  await setupDatabase.close();
  setupApp = null;
  setupDatabase = null;
  const token = created.key.token;

  sqlClient = new pg.Client({ connectionString: benchDb.url });
  await sqlClient.connect();
  const pgVersion = (await sqlClient.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const app: Child = await startChild('app', 'app-server.ts', { databaseUrl: benchDb.url, config: { FILE_STORAGE: 'disk', FILES_DIR: filesDir } });
  const port = app.port;
  log(`PostgreSQL ${pgVersion}; app on :${port} (pid ${app.process.pid}), FILE_STORAGE=disk`);

  const newCustomer = async (organization: string): Promise<Customer> => {
    const reply = await once(port, jsonRequest('POST', '/api/v2/customers', port, token, { customer: { organization } }));
    if (reply.status !== 201 || !reply.etag) throw new Error(`POST /customers answered ${reply.status}: ${reply.body.slice(0, 300)}`);
    return { id: (JSON.parse(reply.body) as { data: { id: string } }).data.id, etag: reply.etag, reference: null, fileId: null };
  };
  const loopCustomers: Customer[] = [];
  for (let i = 0; i < connections; i++) loopCustomers.push(await newCustomer(`Bench Uploads Customer ${i}`));
  const refusedCustomers: Customer[] = [];
  for (let i = 0; i < refuseClients + 2; i++) refusedCustomers.push(await newCustomer(`Bench Refused Customer ${i}`));
  log(`seeded ${connections} customers for the loop and ${refuseClients + 2} for the refusals; attachment fields ${fileField} (default limit) and ${smallField} (max_size_bytes ${settings.refuseLimit})`);

  const upload = buildUpload(fileField, settings.uploadBytes);
  const ownPids = async () => [
    process.pid,
    process.ppid,
    app.process.pid ?? 0,
    ...(await sqlClient!.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
  ];
  let waitBudget = settings.quietWaitSeconds * 1000;
  const quiet = async () => {
    if (waitBudget <= 0) return;
    const waited = await waitForQuiet(ownPids, Math.min(5_000, waitBudget));
    waitBudget -= waited;
    if (waited > 1500) log(`waited ${(waited / 1000).toFixed(0)} s for other work on the machine to calm down`);
  };

  // ---- warm-up: a chunked refusal and the two kinds in the closed loop --------------------------------------
  const [warmCustomer, lengthCustomer] = refusedCustomers.splice(refusedCustomers.length - 2, 2);
  const warm = await streamOverLimit(port, token, warmCustomer, smallField, settings.refuseBytes, true);
  if (warm.status !== 413) throw new Error(`the warm-up over-limit upload answered ${warm.status} ${warm.code} ${warm.error ?? ''}`);
  const warmRuns: Record<Kind, RunResult | null> = { upload: null, patch: null };
  for (const kind of KINDS) {
    const r = await closedLoop(kind, loopCustomers, upload, warmupSeconds, port, token);
    warmRuns[kind] = r;
    log(`warmed up ${LABEL[kind]} (${warmupSeconds} s closed loop, ${rate(r.rps)} req/s, ${r.failed} failed)`);
  }

  // ---- 2. memory while refusing ------------------------------------------------------------------------------
  await quiet();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleSamples: number[] = [];
  for (let i = 0; i < 5; i++) {
    idleSamples.push((await app.ask<{ rss: number }>('memory')).rss);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const idle = median(idleSamples);
  await app.ask('rss-peak', { action: 'start', intervalMs: 5 });
  const refuseWindow = startWindow(await ownPids());
  const refuseStarted = performance.now();
  const readBefore = bytesRead(app.process.pid);
  const refusals = await Promise.all(refusedCustomers.map((c) => streamOverLimit(port, token, c, smallField, settings.refuseBytes, true)));
  const readAfter = bytesRead(app.process.pid);
  const refuseWall = performance.now() - refuseStarted;
  const refuseOther = refuseWindow.end();
  const peak = await app.ask<{ rss: number; peak: number; samples: number }>('rss-peak', { action: 'stop' });
  log(`${refuseClients} chunked ${mb(settings.refuseBytes)} MB uploads at once: peak RSS ${mb(peak.peak)} MB (${peak.samples} samples), idle ${mb(idle)} MB${otherNote(refuseOther)}`);

  const declaredStart = await app.ask<{ rss: number }>('rss-peak', { action: 'start', intervalMs: 5 });
  const declaredReadBefore = bytesRead(app.process.pid);
  const declared = await streamOverLimit(port, token, lengthCustomer, smallField, settings.refuseBytes, false);
  const declaredReadAfter = bytesRead(app.process.pid);
  const declaredPeak = await app.ask<{ rss: number; peak: number }>('rss-peak', { action: 'stop' });
  log(`one upload declaring Content-Length ${mb(settings.refuseBytes)} MB: ${declared.status} ${declared.code} after ${ms(declared.ms)} ms`);

  // What the refusals left: the records unchanged, no stored_files row, no object or .partial file.
  const unchanged: string[] = [];
  for (const c of [...refusedCustomers, lengthCustomer]) {
    const now = await readCustomer(port, token, c.id);
    if (now.etag !== c.etag) unchanged.push(c.id);
  }
  const rows = (
    await sqlClient.query<{ n: string }>('SELECT count(*) AS n FROM stored_files WHERE record_id = ANY($1::uuid[])', [[...refusedCustomers, lengthCustomer, warmCustomer].map((c) => c.id)])
  ).rows[0].n;
  const leftFiles = await countFiles(filesDir);
  const afterRefusals = `records ${unchanged.length ? `CHANGED: ${unchanged.join(', ')}` : 'unchanged (same ETag)'}; stored_files rows of the refused records: ${rows}; .partial objects in FILES_DIR: ${leftFiles.partial}`;
  log(afterRefusals);

  // ---- 1. throughput ------------------------------------------------------------------------------------------
  const runs = new Map<Kind, RunResult[]>(KINDS.map((k) => [k, []]));
  const cpu = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  const otherLoad: number[] = [];
  if (refuseOther !== null) otherLoad.push(refuseOther);
  for (let round = 1; round <= rounds; round++) {
    for (const kind of KINDS.map((_, i) => KINDS[(i + round) % KINDS.length])) {
      await quiet();
      const before = await app.ask<{ micros: number }>('cpu');
      const window = startWindow(await ownPids());
      const r = await closedLoop(kind, loopCustomers, upload, seconds, port, token);
      const other = window.end();
      const after = await app.ask<{ micros: number }>('cpu');
      const perRequest = (after.micros - before.micros) / Math.max(1, r.ok + r.failed);
      runs.get(kind)!.push(r);
      cpu.get(kind)!.push(perRequest);
      if (other !== null) otherLoad.push(other);
      log(`round ${round}/${rounds} ${kind}: ${rate(r.rps)} req/s, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, server CPU ${Math.round(perRequest)} µs/req, ${r.ok} ok, ${r.failed} failed${otherNote(other)}`);
    }
  }
  // Every customer reads back with the ETag and the reference of its last successful write.
  const readBack: string[] = [];
  for (const c of loopCustomers) {
    const now = await readCustomer(port, token, c.id);
    if (now.etag !== c.etag || now.reference !== c.reference) readBack.push(`${c.id}: ETag ${now.etag} (last answer ${c.etag}), reference ${now.reference} (last set ${c.reference})`);
  }
  const stored = await countFiles(filesDir);
  const states = (await sqlClient.query<{ state: string; n: string }>('SELECT state, count(*) AS n FROM stored_files GROUP BY state ORDER BY state')).rows.map((r) => `${r.state} ${r.n}`).join(', ');

  // ---- report ---------------------------------------------------------------------------------------------------
  const of = (kind: Kind) => runs.get(kind)!;
  const rps = (kind: Kind) => median(of(kind).map((r) => r.rps));
  const ok = (kind: Kind) => of(kind).reduce((sum, r) => sum + r.ok, 0);
  const failed = (kind: Kind) => of(kind).reduce((sum, r) => sum + r.failed, 0);
  const warmFailed = (warmRuns.upload?.failed ?? 0) + (warmRuns.patch?.failed ?? 0);
  const failures = [...of('upload'), ...of('patch'), warmRuns.upload!, warmRuns.patch!].flatMap((r) => r.failures).slice(0, 5);
  const ratio = median(of('upload').map((u, i) => u.rps / of('patch')[i].rps));
  const uploadMBs = of('upload').map((r) => (r.rps * upload.fileSize) / 1_000_000);
  const disturbed = otherLoad.length ? Math.max(...otherLoad) : 0;
  const growth = peak.peak - idle;
  console.log(`
== uploads: attachment custom fields (issue 27) ==
app = buildApp() in a child process (bench/servers/app-server.ts, NODE_ENV=production, rate limits 10^9/min, pool 10),
FILE_STORAGE=disk in a temporary directory (each object written, fsynced, renamed), PostgreSQL ${pgVersion}.

1. Throughput: closed loop, ${connections} connections, each owning one customer; ${seconds} s x ${rounds} runs per kind (median),
kinds alternating, after ${warmupSeconds} s warm-up each. Upload = multipart PUT of a ${mb(upload.fileSize)} MB file (body ${upload.body.length.toLocaleString('en-US')} bytes,
with Content-Length) and If-Match; PATCH = {"customer":{"reference":...}} with If-Match; the ETag of each answer
carried forward across both kinds. Every answer checked (200, the customer, a new ETag; the upload's field holding a
new file of the size sent; the PATCH's reference written). p50/p99 are under saturation.

${table([
    ['kind', 'req/s (median)', 'runs', 'p50 ms', 'p99 ms', 'MB/s of file', 'server CPU µs/req', 'ok', 'not 200 / failed'],
    ...KINDS.map((kind) => [
      LABEL[kind],
      rate(rps(kind)),
      of(kind).map((r) => rate(r.rps)).join(' / '),
      ms(median(of(kind).map((r) => r.p50))),
      ms(median(of(kind).map((r) => r.p99))),
      kind === 'upload' ? `${median(uploadMBs).toFixed(1)} (${uploadMBs.map((v) => v.toFixed(1)).join(' / ')})` : '',
      `${Math.round(median(cpu.get(kind)!))} (${cpu.get(kind)!.map((c) => Math.round(c)).join(' / ')})`,
      ok(kind).toLocaleString('en-US'),
      String(failed(kind)),
    ]),
  ])}

upload / PATCH throughput: ${(rps('upload') / rps('patch')).toFixed(2)}x (ratio of the medians; median of the ${rounds} per-round ratios ${ratio.toFixed(2)}x)
upload / PATCH server CPU per request: ${(median(cpu.get('upload')!) / median(cpu.get('patch')!)).toFixed(2)}x
${failed('upload') + failed('patch') + warmFailed === 0 ? 'every request was a 200 with the write checked (warm-up included)' : `NOT ALL SUCCESSES: ${failed('upload')} uploads and ${failed('patch')} PATCHes failed in the measured runs, ${warmFailed} in the warm-up; first:\n  ${failures.join('\n  ')}`}
read back: ${readBack.length ? `MISMATCH on ${readBack.length} customers (first: ${readBack[0]})` : `each of the ${connections} customers has the ETag and reference of its last answer`}
files directory after the loop: ${stored.objects.toLocaleString('en-US')} objects, ${stored.partial} .partial (replaced files are removed by the files-purge job every 10 minutes; stored_files: ${states})

2. Memory while refusing: ${refuseClients} clients at once, each streaming a ${mb(settings.refuseBytes)} MB body chunked (no Content-Length) to
the field with max_size_bytes ${settings.refuseLimit.toLocaleString('en-US')}, in ${PIECE / 1024} KiB chunks as fast as the socket takes them. RSS of the app
process sampled every 5 ms in the child (${peak.samples} samples over ${(refuseWall / 1000).toFixed(1)} s). "sent" = body bytes the client's socket had handed to the
kernel when the 413 arrived: loopback socket buffers take ~4 MB that nobody read (see "declared"), so it bounds the
server's read from above. "app read" = every byte the app process read with read system calls (/proc/<pid>/io rchar:
the bodies, what the lingering close discards after each answer, and its database traffic) from the first client's
start to the last connection's close.

app RSS: idle ${mb(idle)} MB (median of 5), peak ${mb(peak.peak)} MB while refusing: +${mb(growth)} MB over idle (${mb(growth / refuseClients)} MB per client; the bodies
would be ${mb(settings.refuseBytes * refuseClients)} MB); ${mb(peak.rss)} MB after; app read ${readDelta(readBefore, readAfter)} in all

${table([
    ['client', 'status', 'code', 'ms to the answer', 'MB sent', 'MB queued', 'whole body sent?', 'closed by server after ms', 'error'],
    ...refusals.map((r, i) => [
      String(i + 1),
      String(r.status),
      r.code,
      ms(r.ms),
      mb(r.bodySent),
      mb(r.bodyQueued),
      r.sentAll ? 'YES' : 'no',
      r.closedAfterMs === null ? 'not in 5 s' : ms(r.closedAfterMs),
      r.error ?? '',
    ]),
    ['declared', String(declared.status), declared.code, ms(declared.ms), mb(declared.bodySent), mb(declared.bodyQueued), declared.sentAll ? 'YES' : 'no', declared.closedAfterMs === null ? 'not in 5 s' : ms(declared.closedAfterMs), declared.error ?? ''],
  ])}

"declared": one upload with Content-Length: ${(multipartFraming('too-big.bin').before.length + settings.refuseBytes + multipartFraming('too-big.bin').after.length).toLocaleString('en-US')} (over the limit plus 64 KiB, refused before the body is read), alone;
app RSS ${mb(declaredStart.rss)} MB before it, peak ${mb(declaredPeak.peak)} MB (+${mb(declaredPeak.peak - declaredStart.rss)} MB); app read ${readDelta(declaredReadBefore, declaredReadAfter)}. Time to the answer: median ${ms(median(refusals.map((r) => r.ms)))} ms, max ${ms(Math.max(...refusals.map((r) => r.ms)))} ms; sent median ${mb(median(refusals.map((r) => r.bodySent)))} MB, max ${mb(Math.max(...refusals.map((r) => r.bodySent)))} MB.
after the refusals: ${afterRefusals}

machine: load average ${loadBefore} before, ${loadAverage()} after; other processes took up to ${Math.round(disturbed * 100)}% of the machine during a measured run (${otherLoad.map((o) => `${Math.round(o * 100)}%`).join(', ')})${
    disturbed > 0.1 ? ' — WARNING: disturbed by other work; req/s and latencies are unreliable' : ''
  }
`);
  return failed('upload') + failed('patch') + warmFailed + readBack.length + unchanged.length + Number(rows) + leftFiles.partial === 0 && refusals.every((r) => r.status === 413) && declared.status === 413;
}

main().then(
  async (clean) => {
    await cleanup();
    if (!clean) console.error('bench: some requests were not the expected answers (see above); the figures are not of what the bench describes');
    process.exit(clean ? 0 : 1);
  },
  async (error: unknown) => {
    console.error(`bench failed: ${(error as Error)?.stack ?? String(error)}`);
    await cleanup();
    process.exit(1);
  },
);
