// npm run bench (second part) — what an Idempotency-Key costs (issue 12): POST /invoices with a fresh key beside
// POST /customers and beside the same invoice created with the key store bypassed, and a replay (same key, same
// body) beside GET /invoices/{id}; on PostgreSQL and on the embedded PGlite database, in one run. It counts the SQL
// statements (and, on PostgreSQL, the wire round trips) of each request and times the key's own steps. See
// bench/README.md for method and knobs. Timings are printed, never asserted.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import type { IdempotencyStore, IdempotentRecords } from '../src/kernel/idempotency.ts';
import { benchCleanup, runBench } from './lib/cleanup.ts';
import { loadAverage } from './lib/machine.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import type { Target } from './lib/http.ts';
import { RawPool } from './lib/raw.ts';
import { median, ms, quantile, rate, table } from './lib/stats.ts';

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Which databases, in order: postgresql (a fl_bench_* database on BENCH_DATABASE_URL), pglite (in memory). */
  databases: (env.BENCH_DATABASES ?? 'postgresql,pglite').split(',').map((d) => d.trim()).filter(Boolean),
  /** Sequential requests per path (concurrency 1, paths alternating). */
  samples: Number(env.BENCH_SAMPLES ?? 200),
  /** Seconds of each closed-loop run. */
  seconds: Number(env.BENCH_SECONDS ?? 2),
  /** Closed-loop runs per path (median). */
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  connections: Number(env.BENCH_CONNECTIONS ?? 8),
  /** Done keys in idempotency_keys before measuring (a day of an account's creates), so the claim hits a real index. */
  seedKeys: Number(env.BENCH_SEED_KEYS ?? 20_000),
};
const unlimited = 1_000_000_000;
/** Keys with this prefix skip the key store in this process (the "same work without a key" baseline). */
const BYPASS = 'bench-bypass-';
const API = '/api/v2';
/** Keys the "replays" path takes in turn. */
const REPLAY_KEYS = 100;

// ---------------------------------------------------------------------------------------------------------------
let benchDb: BenchDatabase | null = null;
let app: App | null = null;
let database: Database | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app, database }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

const missed: string[] = [];

// ---------------------------------------------------------------------------------------------------------------
// Counters. Statements: what the app sends to the database (openDatabase's onQuery: the raw pool on PostgreSQL and
// Prisma's query events), BEGIN and COMMIT left out. Round trips (PostgreSQL only): every pg Client.query call in
// this process, one exchange on the wire each, the BEGIN and COMMIT that the Prisma adapter sends included.
const counters = { statements: 0, keyStatements: 0, roundTrips: 0 };
/** While set, the statements (and pg round trips) of the traced request, in order. */
let trace: { statements: string[]; roundTrips: string[] } | null = null;
/** Transaction control, which Prisma reports as queries on one database and not the other: not counted as statements. */
const control = /^\s*(BEGIN|COMMIT|ROLLBACK|-- Implicit)/i;
function onQuery(sql: string): void {
  if (control.test(sql)) return;
  counters.statements += 1;
  if (sql.includes('idempotency_keys')) counters.keyStatements += 1;
  trace?.statements.push(sql);
}
let roundTripsPatched = false;
function countRoundTrips(): void {
  if (roundTripsPatched) return;
  roundTripsPatched = true;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    counters.roundTrips += 1;
    if (trace) {
      const first = args[0] as string | { text?: string };
      trace.roundTrips.push(typeof first === 'string' ? first : String(first?.text));
    }
    return query.apply(this, args);
  };
}

/** What the key's steps took in the last idempotent request (set by the instrumented store, read after each reply). */
interface KeySteps {
  /** Claim (and fingerprint), plus completion, plus release on failure: the run minus the work it wraps, ms. */
  ms: number;
  /** From the start of the run to the start of the work (the whole run for a replay), ms. */
  claimMs: number;
  /** The completion UPDATE, inside the work's transaction, ms. */
  completeMs: number;
  /** Statements / round trips of the claim, before the work starts (all of them for a replay). */
  claimStatements: number;
  claimRoundTrips: number;
  /** Statements / round trips of the completion (the UPDATE in the work's transaction). */
  completeStatements: number;
  completeRoundTrips: number;
}
let lastSteps: KeySteps | null = null;

/**
 * Wraps the app's key store, in this process only: times the key's steps around the work, and lets keys starting
 * with BYPASS run the same work with a completion that only keeps the records (no claim, no fingerprint, no
 * UPDATE), which is the create as it would be without a key.
 */
function instrument(store: IdempotencyStore): void {
  const original = store.run.bind(store);
  const run = async (...[ctx, request, write]: Parameters<typeof store.run>): ReturnType<typeof store.run> => {
    if (typeof request.key === 'string' && request.key.startsWith(BYPASS)) {
      let stored: IdempotentRecords | undefined;
      await write({ ...ctx, idempotency: { complete: async (_tx, records) => void (stored = records) } });
      if (!stored) throw new Error('bypassed create returned without completing');
      return { records: stored, replayed: false };
    }
    const started = performance.now();
    const at = { ...counters };
    let claim: { statements: number; roundTrips: number; ms: number } | null = null;
    let workMs = 0;
    let completeMs = 0;
    const complete = { statements: 0, roundTrips: 0 };
    const timedWrite = async (scoped: typeof ctx) => {
      claim = { statements: counters.statements - at.statements, roundTrips: counters.roundTrips - at.roundTrips, ms: performance.now() - started };
      const inner = scoped.idempotency!;
      const workStarted = performance.now();
      try {
        return await write({
          ...scoped,
          idempotency: {
            complete: async (tx, result) => {
              const before = { ...counters };
              const completeStarted = performance.now();
              try {
                await inner.complete(tx, result);
              } finally {
                completeMs += performance.now() - completeStarted;
                complete.statements += counters.statements - before.statements;
                complete.roundTrips += counters.roundTrips - before.roundTrips;
              }
            },
          },
        });
      } finally {
        workMs = performance.now() - workStarted;
      }
    };
    try {
      return await original(ctx, request, timedWrite);
    } finally {
      const total = performance.now() - started;
      const claimed = claim ?? { statements: counters.statements - at.statements, roundTrips: counters.roundTrips - at.roundTrips, ms: total };
      lastSteps = {
        ms: total - workMs + completeMs,
        claimMs: claimed.ms,
        completeMs,
        claimStatements: claimed.statements,
        claimRoundTrips: claimed.roundTrips,
        completeStatements: complete.statements,
        completeRoundTrips: complete.roundTrips,
      };
    }
  };
  store.run = run as typeof store.run;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests, as raw bytes for the raw keep-alive client of bench/lib/raw.ts.

function requestBytes(target: Target, method: 'GET' | 'POST', path: string, body?: string, headers: Record<string, string> = {}): Buffer {
  const all = { ...target.headers, ...headers };
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body, 'utf8');
  if (body !== undefined) Object.assign(all, { 'content-type': 'application/json', 'content-length': String(payload.length) });
  const head = Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\n${head}\r\n`, 'latin1'), payload]);
}

interface Exchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request through node:http (for the checks before measuring, which read headers and bodies). */
function exchange(target: Target, method: 'GET' | 'POST', path: string, body?: string, headers: Record<string, string> = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const all: Record<string, string> = { ...target.headers, ...headers };
    if (body !== undefined) Object.assign(all, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const req = http.request({ host: target.host, port: target.port, method, path, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Path {
  key: string;
  label: string;
  status: number;
  /** Fresh bytes for every request (a new key, a new organization). */
  next(): Buffer;
  /** The key's steps are recorded for this path. */
  keyed: boolean;
}

let organization = 0;
function invoiceBodyFor(customerId: string): string {
  return JSON.stringify({ invoice: { customer_id: customerId, lineitems: [{ description: 'Bench line', quantity: '1', unit_price: '10' }] } });
}

function paths(target: Target, customerId: string, replayKey: string, manyKeys: string[], invoiceId: string): Path[] {
  const invoiceBody = invoiceBodyFor(customerId);
  const replay = requestBytes(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': replayKey });
  const replays = manyKeys.map((key) => requestBytes(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': key }));
  let turn = 0;
  const get = requestBytes(target, 'GET', `${API}/invoices/${invoiceId}`);
  return [
    {
      key: 'customer', label: 'POST /customers', status: 201, keyed: false,
      next: () => requestBytes(target, 'POST', `${API}/customers`, JSON.stringify({ customer: { organization: `Bench Customer ${process.pid}-${++organization}` } })),
    },
    { key: 'fresh', label: 'POST /invoices, fresh key', status: 201, keyed: true, next: () => requestBytes(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': randomUUID() }) },
    {
      key: 'bypass', label: 'POST /invoices, key store bypassed', status: 201, keyed: false,
      next: () => requestBytes(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': `${BYPASS}${randomUUID()}` }),
    },
    { key: 'replay', label: 'POST /invoices, replay (one key)', status: 201, keyed: true, next: () => replay },
    { key: 'replays', label: `POST /invoices, replay (${manyKeys.length} keys in turn)`, status: 201, keyed: true, next: () => replays[turn++ % replays.length] },
    { key: 'get', label: 'GET /invoices/{id}', status: 200, keyed: false, next: () => get },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
interface Sequential {
  ms: number[];
  statements: number[];
  keyStatements: number[];
  roundTrips: number[];
  steps: KeySteps[];
}

/** Alternates the paths one request at a time on one connection (the order rotates each round), `samples` each. */
async function sequential(target: Target, list: Path[], samples: number, record: boolean): Promise<Map<string, Sequential>> {
  const pool = await RawPool.open(target, 1);
  const out = new Map<string, Sequential>(list.map((p) => [p.key, { ms: [], statements: [], keyStatements: [], roundTrips: [], steps: [] }]));
  try {
    for (let round = 0; round < samples; round++) {
      for (let i = 0; i < list.length; i++) {
        const path = list[(i + round) % list.length];
        const request = path.next();
        const before = { ...counters };
        lastSteps = null;
        const reply = await pool.get(request);
        if (reply.status !== path.status) throw new Error(`${path.label} answered ${reply.status}, expected ${path.status}`);
        if (!record) continue;
        const s = out.get(path.key)!;
        s.ms.push(reply.ms);
        s.statements.push(counters.statements - before.statements);
        s.keyStatements.push(counters.keyStatements - before.keyStatements);
        s.roundTrips.push(counters.roundTrips - before.roundTrips);
        if (path.keyed) {
          if (!lastSteps) throw new Error(`${path.label}: the key store did not run`);
          s.steps.push(lastSteps);
        }
      }
    }
  } finally {
    pool.close();
  }
  return out;
}

/** The statements (and pg round trips) of one request of the path, in order. */
async function traceOne(target: Target, path: Path): Promise<{ statements: string[]; roundTrips: string[] }> {
  const pool = await RawPool.open(target, 1);
  try {
    // One request first, so that the traced one finds the 2 s authentication cache fresh.
    await pool.get(path.next());
    trace = { statements: [], roundTrips: [] };
    const reply = await pool.get(path.next());
    if (reply.status !== path.status) throw new Error(`${path.label} answered ${reply.status}, expected ${path.status}`);
    return trace;
  } finally {
    trace = null;
    pool.close();
  }
}

/** A statement in one line, shortened. */
function brief(sql: string): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > 110 ? `${line.slice(0, 107)}...` : line;
}

interface Closed {
  rps: number;
  cpuMicros: number;
}

/** Closed loop: `connections` keep-alive connections, each sending its next request when the answer is in. */
async function closedLoop(target: Target, path: Path, connections: number, seconds: number): Promise<Closed> {
  const pool = await RawPool.open(target, connections);
  let ok = 0;
  let failed = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const reply = await pool.get(path.next());
          if (reply.status === path.status) ok += 1;
          else failed += 1;
        }
      }),
    );
  } finally {
    pool.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (failed) throw new Error(`${path.label}: ${failed} answers other than ${path.status} in the closed loop`);
  return { rps: ok / elapsed, cpuMicros: (used.user + used.system) / ok };
}

// ---------------------------------------------------------------------------------------------------------------
async function measure(kind: 'postgresql' | 'pglite'): Promise<void> {
  const started = performance.now();
  let label = 'PGlite (embedded, in memory)';
  let syncCommit = '';
  if (kind === 'postgresql') {
    countRoundTrips();
    benchDb = await createBenchDatabase(settings.serverUrl);
    log(`created database ${benchDb.name}`);
    database = await openDatabase({ url: benchDb.url, onQuery });
    const [{ server_version }] = await database.prisma.$queryRawUnsafe<{ server_version: string }[]>('SHOW server_version');
    const [{ synchronous_commit }] = await database.prisma.$queryRawUnsafe<{ synchronous_commit: string }[]>('SHOW synchronous_commit');
    syncCommit = synchronous_commit;
    label = `PostgreSQL ${server_version} (${new URL(settings.serverUrl).host}, pool 10, synchronous_commit ${synchronous_commit})`;
  } else {
    database = await openDatabase({ onQuery });
  }
  log(`${label}: migrations applied in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const config = loadConfig({ LOG_LEVEL: 'silent', HOST: '127.0.0.1', ...(kind === 'postgresql' && benchDb ? { DATABASE_URL: benchDb.url } : {}) });
  app = buildApp({ database, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited } });
  instrument(app.domain.idempotency);
  const created = await app.domain.admin.createAccount({ name: 'Bench Idempotency Ltd' });
  const { port } = await app.listen(0, '127.0.0.1');
  const target: Target = { name: 'app', host: '127.0.0.1', port, headers: { authorization: `Bearer ${created.key.token}` } };

  // A day of this API key's creates already in the store (done keys, a small stored response each).
  const seedStarted = performance.now();
  await database.prisma.$executeRawUnsafe(
    `INSERT INTO idempotency_keys (account_id, api_key_id, key, method, path, fingerprint, state, claim_token, locked_until, response, created_at, expires_at)
     SELECT $1::uuid, $2::uuid, 'seed-' || g, 'POST', '/api/v2/invoices', md5(g::text) || md5(g::text), 'done', gen_random_uuid(), now(),
            jsonb_build_object('status', 201, 'headers', jsonb_build_object('ETag', 'W/"1-0"'), 'body', repeat('x', 600), 'recordId', gen_random_uuid()),
            now() - (g || ' seconds')::interval, now() + interval '1 day' - (g || ' seconds')::interval
     FROM generate_series(1, $3::int) AS g`,
    created.account.id,
    created.key.id,
    settings.seedKeys,
  );
  await database.prisma.$executeRawUnsafe('ANALYZE idempotency_keys');
  log(`seeded ${settings.seedKeys.toLocaleString('en-US')} done idempotency keys in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  // The records the paths use, and the checks: 201 with Location, the replay byte for byte with Idempotent-Replayed.
  const customer = await exchange(target, 'POST', `${API}/customers`, JSON.stringify({ customer: { organization: 'Bench Invoiced Customer' } }));
  if (customer.status !== 201) throw new Error(`POST /customers answered ${customer.status}: ${customer.body.slice(0, 300)}`);
  const customerId = (JSON.parse(customer.body) as { data: { id: string } }).data.id;
  const replayKey = randomUUID();
  const invoiceBody = invoiceBodyFor(customerId);
  const first = await exchange(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': replayKey });
  if (first.status !== 201 || !first.headers.location) throw new Error(`POST /invoices answered ${first.status}: ${first.body.slice(0, 300)}`);
  const again = await exchange(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': replayKey });
  const replayed = again.body === first.body && again.headers.location === first.headers.location && again.headers['idempotent-replayed'] === 'true';
  if (again.status !== 201 || !replayed || first.headers['idempotent-replayed'] !== undefined) {
    throw new Error(`the replay is not the stored answer: ${again.status} ${String(again.headers['idempotent-replayed'])} ${again.body.slice(0, 200)}`);
  }
  const bypassed = await exchange(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': `${BYPASS}${randomUUID()}` });
  if (bypassed.status !== 201 || bypassed.headers['idempotent-replayed'] !== undefined) throw new Error(`bypassed POST /invoices answered ${bypassed.status}: ${bypassed.body.slice(0, 300)}`);
  const invoice = (JSON.parse(first.body) as { data: { id: string } }).data;
  const got = await exchange(target, 'GET', `${API}/invoices/${invoice.id}`);
  if (got.status !== 200) throw new Error(`GET /invoices/{id} answered ${got.status}: ${got.body.slice(0, 300)}`);
  log(`checked: 201 with a fresh key (${first.body.length} bytes), the replay byte for byte with Idempotent-Replayed: true, GET ${got.body.length} bytes`);

  // Done keys of real invoices, replayed in turn by the "replays" path (no two concurrent replays share a key).
  const manyKeys: string[] = [];
  for (let i = 0; i < REPLAY_KEYS; i++) {
    const key = randomUUID();
    const reply = await exchange(target, 'POST', `${API}/invoices`, invoiceBody, { 'idempotency-key': key });
    if (reply.status !== 201) throw new Error(`POST /invoices answered ${reply.status}: ${reply.body.slice(0, 300)}`);
    manyKeys.push(key);
  }
  const list = paths(target, customerId, replayKey, manyKeys, invoice.id);
  await sequential(target, list, 30, false);
  const seqStarted = performance.now();
  const seq = await sequential(target, list, settings.samples, true);
  log(`sequential: ${settings.samples} requests per path in ${((performance.now() - seqStarted) / 1000).toFixed(1)} s`);
  const traces = new Map<string, { statements: string[]; roundTrips: string[] }>();
  for (const path of list.filter((p) => p.key === 'fresh' || p.key === 'replay')) traces.set(path.key, await traceOne(target, path));
  // Does a replay write? The key row's xmax (the last transaction that locked or updated it) around two replays.
  const xmax = async () =>
    (await database!.prisma.$queryRawUnsafe<{ xmax: string }[]>(
      'SELECT xmax::text AS xmax FROM idempotency_keys WHERE account_id = $1::uuid AND api_key_id = $2::uuid AND key = $3',
      created.account.id,
      created.key.id,
      replayKey,
    ))[0].xmax;
  const xmaxBefore = await xmax();
  await traceOne(target, list.find((p) => p.key === 'replay')!);
  const xmaxAfter = await xmax();

  const closed = new Map<string, Closed[]>(list.map((p) => [p.key, []]));
  for (let round = 0; round < settings.rounds; round++) {
    for (let i = 0; i < list.length; i++) {
      const path = list[(i + round) % list.length];
      const r = await closedLoop(target, path, settings.connections, settings.seconds);
      closed.get(path.key)!.push(r);
    }
    log(`closed loop ${round + 1}/${settings.rounds}: ${list.map((p) => `${p.key} ${rate(closed.get(p.key)!.at(-1)!.rps)}`).join(', ')} req/s`);
  }

  // ---- report ----------------------------------------------------------------------------------------------
  const pgWire = kind === 'postgresql';
  const of = (key: string) => seq.get(key)!;
  const p50 = (key: string) => quantile(of(key).ms, 0.5);
  const p99 = (key: string) => quantile(of(key).ms, 0.99);
  const steps = (key: string, field: keyof KeySteps, q = 0.5) => quantile(of(key).steps.map((s) => s[field]), q);
  const count = (key: string, field: 'statements' | 'keyStatements' | 'roundTrips') => median(of(key)[field]);
  const rps = (key: string) => median(closed.get(key)!.map((r) => r.rps));
  const cpu = (key: string) => median(closed.get(key)!.map((r) => r.cpuMicros));
  /** Round trips on PostgreSQL; statements on the embedded database (no wire: each statement is one call into it). */
  const unit = pgWire ? 'round trip' : 'statement';
  const trips = (key: string) => count(key, pgWire ? 'roundTrips' : 'statements');
  const plural = (n: number) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const claimTrips = steps('fresh', pgWire ? 'claimRoundTrips' : 'claimStatements');
  const completeTrips = steps('fresh', pgWire ? 'completeRoundTrips' : 'completeStatements');
  const signed = (value: number, digits: (v: number) => string) => `${value >= 0 ? '+' : '−'}${digits(Math.abs(value))}`;
  const diffMs = (a: number, b: number) => `${signed(a - b, ms)} ms`;
  const pairedMedian = (a: string, b: string) => median(of(a).ms.map((v, i) => v - of(b).ms[i]));
  const percent = (a: number, b: number) => `${signed(((a - b) / b) * 100, (v) => v.toFixed(1))}%`;
  const claimMet = claimTrips <= 1;
  if (!claimMet) missed.push(`${label}: the claim of a fresh key took ${plural(claimTrips)}`);

  console.log(`
== idempotent create on ${label} ==
app: buildApp() in this process (LOG_LEVEL silent, rate limits out of the way, auth cache 2 s); ${settings.seedKeys.toLocaleString('en-US')} done keys in idempotency_keys before the run
sequential: ${settings.samples} requests per path, paths alternating (order rotating each round), one keep-alive connection, ms from send to last byte
closed loop: ${settings.connections} connections, ${settings.seconds} s x ${settings.rounds} runs per path (median); the client runs in this process too, so process CPU includes it${pgWire ? '' : ', and the embedded database'}
every invoice: a customer_id and one line item; POST /customers: a new organization each time
bypassed: the same invoice create with the key store skipped in this process (no claim, fingerprint or completion): the work without the key
${table([
    ['path', 'p50 ms', 'p99 ms', 'statements', ...(pgWire ? ['round trips'] : []), 'on idempotency_keys', 'key steps p50 / p99 ms', 'closed-loop req/s', 'process CPU µs/req'],
    ...list.map((p) => [
      p.label,
      ms(p50(p.key)),
      ms(p99(p.key)),
      String(count(p.key, 'statements')),
      ...(pgWire ? [String(count(p.key, 'roundTrips'))] : []),
      String(count(p.key, 'keyStatements')),
      p.keyed ? `${ms(steps(p.key, 'ms'))} / ${ms(steps(p.key, 'ms', 0.99))}` : '',
      rate(rps(p.key)),
      rate(cpu(p.key)),
    ]),
  ])}
statements and round trips: median per request, BEGIN/COMMIT counted as round trips only (a request that refreshes the 2 s auth cache has 3 more)

the key on a create (POST /invoices with a fresh key, minus the same create bypassed):
  latency      p50 ${diffMs(p50('fresh'), p50('bypass'))} (median of the paired differences ${diffMs(pairedMedian('fresh', 'bypass'), 0)}), p99 ${diffMs(p99('fresh'), p99('bypass'))}
  key steps    claim p50 ${ms(steps('fresh', 'claimMs'))} ms (fingerprint, INSERT ... ON CONFLICT committed on its own before the work${syncCommit === 'on' ? ': a commit, so a WAL flush of its own' : ''}); completion p50 ${ms(steps('fresh', 'completeMs'))} ms (UPDATE inside the create's transaction); both p50 ${ms(steps('fresh', 'ms'))} ms, p99 ${ms(steps('fresh', 'ms', 0.99))} ms
  ${pgWire ? 'round trips' : 'statements '}  ${trips('fresh')} vs ${trips('bypass')}: claim ${plural(claimTrips)}, completion ${plural(completeTrips)}
  throughput   ${rate(rps('fresh'))} vs ${rate(rps('bypass'))} req/s (${percent(rps('fresh'), rps('bypass'))}); process CPU ${signed(cpu('fresh') - cpu('bypass'), rate)} µs/req
  target "the claim adds at most one round trip": the claim is ${plural(claimTrips)}: ${claimMet ? 'met' : 'TARGET MISSED'} (with the completion the key adds ${plural(claimTrips + completeTrips)} to a create)
beside POST /customers: the invoice with its key p50 ${ms(p50('fresh'))} vs ${ms(p50('customer'))} ms (${(p50('fresh') / p50('customer')).toFixed(2)}x), ${trips('fresh')} vs ${trips('customer')} ${unit}s, ${rate(rps('fresh'))} vs ${rate(rps('customer'))} req/s; the bypassed row shows that most of the difference is the invoice's own work
replay (same key, same body: the stored answer) vs GET /invoices/{id}:
  latency      one key p50 ${ms(p50('replay'))} ms, ${REPLAY_KEYS} keys p50 ${ms(p50('replays'))} ms, GET p50 ${ms(p50('get'))} ms (one key ${diffMs(p50('replay'), p50('get'))}); p99 ${ms(p99('replay'))} / ${ms(p99('replays'))} / ${ms(p99('get'))} ms
  ${pgWire ? 'round trips' : 'statements '}  ${trips('replay')} vs ${trips('get')}: the claim attempt (INSERT ... ON CONFLICT that finds the done key) and the SELECT of the stored answer, no transaction
  throughput   one key ${rate(rps('replay'))}, ${REPLAY_KEYS} keys ${rate(rps('replays'))}, GET ${rate(rps('get'))} req/s; process CPU ${rate(cpu('replay'))} / ${rate(cpu('replays'))} / ${rate(cpu('get'))} µs/req
  ${
    xmaxBefore !== xmaxAfter
      ? `a replay writes: the key row's xmax went from ${xmaxBefore} to ${xmaxAfter} over two replays. ON CONFLICT DO UPDATE locks the row it conflicts with even when its WHERE updates nothing: each replay takes a transaction id and logs a row lock${syncCommit === 'on' ? ' (its commit flushes the WAL)' : ''}, and concurrent replays of one key wait for each other's lock; GET reads only`
      : `a replay left the key row's xmax at ${xmaxBefore}: it did not lock the row`
  }
`);

  for (const key of ['fresh', 'replay']) {
    const t = traces.get(key)!;
    const lines = pgWire ? t.roundTrips : t.statements;
    console.log(`${list.find((p) => p.key === key)!.label}: one request's ${pgWire ? 'round trips' : 'statements'} in order (* = on idempotency_keys; the auth cache was fresh)`);
    console.log(lines.map((sql, i) => `  ${sql.includes('idempotency_keys') ? '*' : ' '}${String(i + 1).padStart(2)} ${brief(sql)}`).join('\n'));
  }
  console.log('');

  await app.close();
  app = null;
  await database.close();
  database = null;
  if (benchDb) {
    await benchDb.drop();
    log(`dropped ${benchDb.name}`);
    benchDb = null;
  }
}

async function main(): Promise<void> {
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${loadAverage()}`);
  for (const kind of settings.databases) {
    if (kind !== 'postgresql' && kind !== 'pglite') throw new Error(`BENCH_DATABASES: unknown database ${kind} (postgresql, pglite)`);
    await measure(kind);
  }
  log(`load average after: ${loadAverage()}`);
  for (const line of missed) console.log(`TARGET MISSED: ${line}`);
  if (missed.length === 0) console.log('all targets met (the claim adds at most one round trip)');
}

runBench(main, cleanup);
