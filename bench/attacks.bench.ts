// npm run bench:attacks — what the attacks of issue 31 cost the server, and what they do to a bystander: each
// attack sent once, then as ten concurrent copies, against the real app in a child process on a PostgreSQL database
// of its own. For each: the answer's status and code, the server's CPU seconds (process.cpuUsage over IPC, before
// and after), its peak RSS during the run (/proc/<pid>/status, sampled every 50 ms, and VmHWM reset before the run)
// and, during the ten concurrent copies, the p50/p99 latency of `{ me { apiVersion } }` sent every 20 ms with
// another key of the account. Baseline in the same run: the bystander's latency with no attack and the idle RSS;
// after the attacks, the RSS a minute later. Targets (issue 31, "Proof"): no admitted or refused request over 1 s of
// CPU or +100 MB RSS, `{ me }` p99 under 200 ms during ten concurrent attacks, RSS back within 50 MB of idle a
// minute after. Prints "TARGET MISSED: ..." for each missed target and exits 0; exits 1 only when it cannot run.
// See bench/README.md ("Attacks") for the method and the knobs.
//
// This file uses only bench/lib and bench/servers modules and src/ exports that are the same at commit 5357fa4, so
// it runs unchanged in a worktree of that commit (the before/after comparison of the issue). Linux only (/proc).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { startChild, type Child } from './lib/children.ts';
import { benchCleanup, runBench } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { startWindow, waitForQuiet, loadAverage, loadReport } from './lib/machine.ts';
import { categoryOf, PROFILER, selfTimeByGroup, type CpuProfile } from './lib/profile.ts';
import { RawPool } from './lib/raw.ts';
import { ms, quantile, table } from './lib/stats.ts';

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Concurrent copies of each attack in its second run. */
  concurrency: Number(env.BENCH_CONCURRENCY ?? 10),
  /** Seconds the bench samples the server's RSS after the last attack (the "a minute after" target). */
  settleSeconds: Number(env.BENCH_SETTLE_SECONDS ?? 60),
  /** Seconds of the bystander's baseline, with no attack. */
  baselineSeconds: Number(env.BENCH_BASELINE_SECONDS ?? 5),
  /** The bystander sends `{ me }` every this many ms (open loop: latency from the scheduled time). */
  bystanderIntervalMs: Number(env.BENCH_BYSTANDER_INTERVAL_MS ?? 20),
  /** An attack request not answered within this is abandoned (reported as "timeout"). */
  timeoutSeconds: Number(env.BENCH_ATTACK_TIMEOUT_SECONDS ?? 60),
  /** The oversized REST body: how long the bench waits for an answer after sending its 64 KB. */
  restWaitSeconds: Number(env.BENCH_REST_WAIT_SECONDS ?? 5),
  /** Total seconds the bench may wait for a quiet machine before runs (at most 5 s before each; 0: never). */
  quietWaitSeconds: Number(env.BENCH_QUIET_WAIT_SECONDS ?? 30),
  /** Comma-separated attack names to run (default: all). */
  only: env.BENCH_ATTACKS ? env.BENCH_ATTACKS.split(',').map((s) => s.trim()).filter(Boolean) : null,
  /** 1: after the measured runs, one more single run of each attack under the server's CPU profiler (top self time). */
  profile: env.BENCH_PROFILE === '1',
};
const TARGETS = { cpuSeconds: 1, rssMb: 100, bystanderP99Ms: 200, settleMb: 50 };
const unlimited = 1_000_000_000;
const HOST = '127.0.0.1';
/** Customers seeded with ~19 KB in each of description and customer_notes (records of ~38 KB). */
const SEED_CUSTOMERS = 100;
const TEXT_CHARS = 19_000;
/** How often the server's RSS is sampled while an attack runs. */
const RSS_SAMPLE_MS = 50;
/** The CPU reading after an attack is taken this long after its last answer (work the request leaves behind). */
const AFTER_ANSWER_MS = 500;
/** The bystander's shortest window during a concurrent run, from the attack's start. */
const BYSTANDER_MIN_MS = 1000;

let benchDb: BenchDatabase | null = null;
let setupApp: App | null = null;
let setupDatabase: Database | null = null;
let sqlClient: pg.Client | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app: setupApp, database: setupDatabase, sql: sqlClient }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

// ---------------------------------------------------------------------------------------------------------------
// The server's memory, from /proc: VmRSS now, VmHWM (peak since the last reset), and the reset itself
// (clear_refs 5 sets VmHWM to the current RSS; Linux >= 4.0, same user).

function procStatusMb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

let hwmResettable = true;
function resetPeak(pid: number): boolean {
  if (!hwmResettable) return false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    hwmResettable = false;
    return false;
  }
}

/** Samples the RSS every RSS_SAMPLE_MS until stopped; stop() returns the peak (samples and the reset VmHWM). */
function rssSampler(pid: number): { stop(): { peak: number; samples: number } } {
  const reset = resetPeak(pid);
  let peak = procStatusMb(pid).rss;
  let samples = 1;
  const timer = setInterval(() => {
    peak = Math.max(peak, procStatusMb(pid).rss);
    samples += 1;
  }, RSS_SAMPLE_MS);
  return {
    stop() {
      clearInterval(timer);
      const now = procStatusMb(pid);
      return { peak: Math.max(peak, now.rss, reset ? now.hwm : 0), samples };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Sending an attack: one request on a connection of its own, its answer read (at most 1 MB kept, the rest counted),
// and its status and catalog code (GraphQL: the first error's extensions.code, else the first userErrors code;
// REST: the problem's code).

interface Outcome {
  status: number | null;
  code: string;
  ms: number;
  bytes: number;
  /** GraphQL: extensions.cost.requestedQueryCost of the answer, when it reports one. */
  cost?: number | null;
  /** REST only: the server closed the connection after its answer. */
  closed?: boolean;
}

const KEEP_BYTES = 1024 * 1024;

function codeOf(status: number, text: string, complete: boolean): string {
  if (complete) {
    try {
      const body = JSON.parse(text) as {
        code?: string;
        errors?: { extensions?: { code?: string } }[];
        data?: Record<string, { userErrors?: { code?: string }[]; customer?: unknown } | null> | null;
      };
      if (body.code) return body.code;
      const error = body.errors?.[0];
      if (error) return error.extensions?.code ?? 'error without code';
      for (const value of Object.values(body.data ?? {})) {
        if (value && Array.isArray(value.userErrors)) return value.userErrors.length ? `${value.userErrors[0].code} (userErrors)` : 'created';
      }
      return 'data';
    } catch {
      return status === 200 ? 'data' : 'not JSON';
    }
  }
  // An answer too large to keep whole: the first code in its head, and whether that is in userErrors.
  const code = /"code":"([a-z_.]+)"/.exec(text);
  if (!code) return status === 200 ? 'data' : 'unknown';
  const userErrors = text.indexOf('"userErrors":[{');
  return userErrors >= 0 && userErrors < code.index ? `${code[1]} (userErrors)` : code[1];
}

function post(port: number, token: string, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    const done = (outcome: Omit<Outcome, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, ms: performance.now() - started });
    };
    const req = http.request(
      {
        host: HOST,
        port,
        method: 'POST',
        path: '/graphql',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json', 'content-length': body.length },
      },
      (res) => {
        const kept: Buffer[] = [];
        let tail: Buffer[] = [];
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          if (bytes < KEEP_BYTES) kept.push(chunk);
          else tail = [tail[tail.length - 1] ?? Buffer.alloc(0), chunk];
          bytes += chunk.length;
        });
        res.on('end', () => {
          const text = Buffer.concat(kept).toString('utf8');
          const status = res.statusCode ?? 0;
          const end = tail.length ? Buffer.concat(tail).toString('latin1') : text.slice(-4096);
          const cost = /"requestedQueryCost":(\d+)/.exec(end)?.[1];
          done({ status, code: codeOf(status, text, bytes <= KEEP_BYTES), bytes, cost: cost === undefined ? null : Number(cost) });
        });
        res.on('error', () => done({ status: res.statusCode ?? null, code: 'answer aborted', bytes: 0 }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: null, code: `timeout (${settings.timeoutSeconds} s)`, bytes: 0 });
    }, settings.timeoutSeconds * 1000);
    req.on('error', (error) => done({ status: null, code: `connection ${(error as NodeJS.ErrnoException).code ?? error.message}`, bytes: 0 }));
    req.end(body);
  });
}

/**
 * POST /api/v2/customers declaring `Content-Length: declared` and sending `sent` bytes of it on a raw socket; waits
 * up to restWaitSeconds for an answer, then up to 1 s for the server to close the connection.
 */
function oversizedRest(port: number, token: string, declared: number, sent: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect({ host: HOST, port, noDelay: true });
    let data = Buffer.alloc(0);
    let answer: Omit<Outcome, 'ms' | 'closed'> | null = null;
    let answeredAt = 0;
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(waitTimer);
      clearTimeout(closeTimer);
      socket.destroy();
      resolve({ ...(answer ?? { status: null, code: closed ? 'closed without an answer' : `no answer in ${settings.restWaitSeconds} s`, bytes: 0 }), ms: (answeredAt || performance.now()) - started, closed });
    };
    let closeTimer: NodeJS.Timeout | undefined;
    const waitTimer = setTimeout(() => finish(false), settings.restWaitSeconds * 1000);
    socket.on('data', (chunk: Buffer) => {
      if (answer) return;
      data = Buffer.concat([data, chunk]);
      const headerEnd = data.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const head = data.toString('latin1', 0, headerEnd);
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (data.length < headerEnd + 4 + length) return;
      const status = Number(head.slice(9, 12));
      answer = { status, code: codeOf(status, data.toString('utf8', headerEnd + 4, headerEnd + 4 + length), true), bytes: length };
      answeredAt = performance.now();
      clearTimeout(waitTimer);
      closeTimer = setTimeout(() => finish(false), 1000);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.once('connect', () => {
      const head = `POST /api/v2/customers HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
      const prefix = '{"customer": {"organization": "';
      socket.write(Buffer.from(head, 'latin1'));
      socket.write(Buffer.concat([Buffer.from(prefix), Buffer.alloc(Math.max(0, sent - prefix.length), 'a')]));
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The attacks (issue 31), in the names of schema.graphql.

interface Attack {
  name: string;
  label: string;
  /** Sends one copy with the attacker's key. */
  send(port: number, token: string): Promise<Outcome>;
}

function graphqlBody(query: string, variablesJson?: string): Buffer {
  return Buffer.from(variablesJson === undefined ? JSON.stringify({ query }) : `{"query":${JSON.stringify(query)},"variables":${variablesJson}}`, 'utf8');
}

function keyedObject(count: number, key: (i: number) => string, value: string): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`${JSON.stringify(key(i))}:${value}`);
  return `{${parts.join(',')}}`;
}

function buildAttacks(): Attack[] {
  const aliases = Array.from({ length: 99 }, (_, i) => `a${i}: customers(first: 100) { nodes { description customerNotes } }`).join(' ');
  const aliasesBody = graphqlBody(`{ ${aliases} }`);

  const dumps = Array.from({ length: 99 }, (_, i) => `s${i}: __schema { types { name fields { name args { name } } } }`).join(' ');
  const dumpsBody = graphqlBody(`{ ${dumps} }`);

  const fragments = ['fragment M0 on Mutation { createCustomer(input: {organization: "x"}) { customer { id } } }'];
  for (let i = 1; i <= 24; i++) fragments.push(`fragment M${i} on Mutation { ...M${i - 1} ...M${i - 1} }`);
  const bombBody = graphqlBody(`mutation { ...M24 } ${fragments.join(' ')}`);

  const qBody = graphqlBody('query($q: String) { customers(first: 25, filter: { q: $q }) { nodes { id } } }', JSON.stringify({ q: 'x'.repeat(900 * 1024) }));

  const customFields = keyedObject(40_000, (i) => `f${i}`, '"x"');
  const createQuery = 'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } userErrors { field message code } } }';
  let createSeq = 0;

  const undeclaredBody = graphqlBody('{ me { apiVersion } }', keyedObject(50_000, (i) => `v${i}`, '0'));

  const ids = Array.from({ length: 25_000 }, () => randomUUID());
  const nodesBody = graphqlBody('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', JSON.stringify({ ids }));

  const attacks: Attack[] = [
    { name: 'aliases', label: '99 aliases of customers(first: 100) { nodes { description customerNotes } }', send: (port, token) => post(port, token, aliasesBody) },
    { name: 'schema', label: '99 aliased __schema { types { name fields { name args { name } } } }', send: (port, token) => post(port, token, dumpsBody) },
    { name: 'bomb', label: 'mutation fragment bomb of 2^24 createCustomer spreads', send: (port, token) => post(port, token, bombBody) },
    { name: 'q', label: 'customers(filter: { q }) with a 900 KB q', send: (port, token) => post(port, token, qBody) },
    {
      name: 'customFields',
      label: 'createCustomer with a customFields variable of 40,000 keys',
      send: (port, token) =>
        post(port, token, graphqlBody(createQuery, `{"input":{"organization":${JSON.stringify(`Bench custom fields ${++createSeq}`)},"customFields":${customFields}}}`)),
    },
    { name: 'variables', label: '{ me { apiVersion } } with 50,000 undeclared variables', send: (port, token) => post(port, token, undeclaredBody) },
    { name: 'nodes', label: 'nodes(ids:) with 25,000 ids', send: (port, token) => post(port, token, nodesBody) },
    { name: 'restBody', label: 'REST POST /api/v2/customers, Content-Length 200,000,000, 64 KB sent', send: (port, token) => oversizedRest(port, token, 200_000_000, 64 * 1024) },
  ];
  log(`attack bodies: ${[['aliases', aliasesBody], ['schema', dumpsBody], ['bomb', bombBody], ['q', qBody], ['variables', undeclaredBody], ['nodes', nodesBody]]
    .map(([name, body]) => `${name} ${((body as Buffer).length / 1024).toFixed(0)} KB`)
    .join(', ')}, customFields ${(customFields.length / 1024).toFixed(0)} KB`);
  return settings.only ? attacks.filter((attack) => settings.only!.includes(attack.name)) : attacks;
}

// ---------------------------------------------------------------------------------------------------------------
// The bystander: `{ me { apiVersion } }` with the other key on a fixed schedule (open loop over keep-alive
// connections, bench/lib/raw.ts), latency from the scheduled time, so a stalled server counts fully.

interface Bystander {
  /** Stops sending and waits (at most 30 s) for the answers still due. */
  stop(): Promise<{ sent: number; ok: number; failed: number; p50: number; p99: number; max: number }>;
}

async function startBystander(port: number, token: string): Promise<Bystander> {
  const pool = await RawPool.open({ name: 'bystander', host: HOST, port, headers: {} }, 16);
  const body = JSON.stringify({ query: '{ me { apiVersion } }' });
  const request = Buffer.from(
    `POST /graphql HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    'latin1',
  );
  const interval = settings.bystanderIntervalMs;
  const maxRequests = Math.ceil(((settings.timeoutSeconds + 30) * 1000) / interval);
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let ok = 0;
  let failed = 0;
  let sent = 0;
  let stopped = false;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    while (!stopped && sent < maxRequests && started + sent * interval <= now) {
      const scheduled = started + sent * interval;
      sent += 1;
      pending.push(
        pool.get(request, scheduled).then(
          (reply) => {
            if (reply.status === 200) {
              ok += 1;
              latencies.push(reply.ms);
            } else failed += 1;
          },
          () => {
            failed += 1;
          },
        ),
      );
    }
    if (!stopped && sent < maxRequests) timer = setTimeout(tick, Math.max(0, started + sent * interval - performance.now()));
  };
  tick();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.race([Promise.all(pending), sleep(30_000)]);
      pool.close();
      return { sent, ok, failed, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies.length ? Math.max(...latencies) : Number.NaN };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Setup: the account and its two keys through the domain's admin (an app in this process that never listens), then
// the customers through the REST API of the server under test.

async function setup(db: BenchDatabase): Promise<{ attacker: string; bystander: string }> {
  setupDatabase = await openDatabase({ url: db.url, poolSize: 2 }); // applies the migrations
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: db.url, HOST });
  setupApp = buildApp({ database: setupDatabase, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited } });
  const created = await setupApp.domain.admin.createAccount({ name: 'Bench Attacks Ltd' });
  const second = await setupApp.domain.admin.createKey({ userId: created.user.id });
  await setupApp.close();
  await setupDatabase.close();
  setupApp = null;
  setupDatabase = null;
  return { attacker: created.key.token, bystander: second.token };
}

async function seedCustomers(port: number, token: string): Promise<void> {
  const text = (seed: number, what: string) => {
    const sentence = `${what} of bench customer ${seed}: site access through the rear gate, meters in the basement, ask for the facilities manager. `;
    return sentence.repeat(Math.ceil(TEXT_CHARS / sentence.length)).slice(0, TEXT_CHARS);
  };
  for (let i = 1; i <= SEED_CUSTOMERS; i++) {
    const res = await fetch(`http://${HOST}:${port}/api/v2/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ customer: { organization: `Bench Attack Customer ${String(i).padStart(3, '0')}`, description: text(i, 'Description'), customer_notes: text(i, 'Notes') } }),
    });
    const answer = await res.text();
    if (res.status !== 201) throw new Error(`POST /api/v2/customers answered ${res.status}: ${answer.slice(0, 300)}`);
  }
}

async function graphqlOnce(port: number, token: string, query: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://${HOST}:${port}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: await res.text() };
}

// ---------------------------------------------------------------------------------------------------------------

interface Run {
  outcomes: Outcome[];
  /** Server CPU seconds of the run, the bystander's estimated share taken out. */
  cpu: number;
  /** The same, up to the moment the last answer arrived. */
  cpuAtAnswer: number;
  /** Peak RSS minus the RSS at the start of the run, MB. */
  rssPlus: number;
  rssBase: number;
  rssPeak: number;
  wall: number;
  other: number | null;
  bystander?: Awaited<ReturnType<Bystander['stop']>>;
}

function summary(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = `${o.status ?? '-'} ${o.code}${o.closed === undefined ? '' : o.closed ? ', closed' : ', held open'}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 1) return [...counts.keys()][0];
  return [...counts].map(([key, n]) => `${n}x ${key}`).join('; ');
}

const mb = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');
const secs = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

async function main(): Promise<void> {
  let revision = 'unknown';
  try {
    revision = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dirty) revision += ` + uncommitted changes in ${dirty.split('\n').length} files of src/`;
  } catch {
    // not a git checkout
  }
  log(`code ${revision} (${process.cwd()}); node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), database server ${new URL(settings.serverUrl).host}`);
  const loadBefore = loadAverage();
  log(`machine load average ${loadBefore}`);
  benchDb = await createBenchDatabase(settings.serverUrl);
  log(`created database ${benchDb.name}`);
  const keys = await setup(benchDb);
  sqlClient = new pg.Client({ connectionString: benchDb.url });
  await sqlClient.connect();
  const pgVersion = (await sqlClient.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;

  const app: Child = await startChild('app', 'app-server.ts', { databaseUrl: benchDb.url });
  const port = app.port;
  const pid = app.process.pid!;
  log(`PostgreSQL ${pgVersion}; app on :${port} (pid ${pid}); one account, an attacker key and a bystander key`);
  await seedCustomers(port, keys.attacker);
  const size = await sqlClient.query<{ n: string; kb: string }>(
    `SELECT count(*) AS n, round(avg(octet_length(description) + octet_length(customer_notes)) / 1024.0, 1) AS kb FROM customers`,
  );
  log(`seeded ${size.rows[0].n} customers through POST /api/v2/customers, description + customer_notes ${size.rows[0].kb} KB each`);

  // Warm-up: the paths the attacks and the bystander take, in their cheap forms.
  for (let i = 0; i < 20; i++) await graphqlOnce(port, keys.bystander, '{ me { apiVersion } }');
  for (const query of ['{ customers(first: 100) { nodes { description customerNotes } } }', '{ __schema { types { name fields { name args { name } } } } }', '{ nodes(ids: []) { id } }']) {
    const reply = await graphqlOnce(port, keys.attacker, query);
    if (reply.status !== 200) throw new Error(`warm-up ${query} answered ${reply.status}: ${reply.body.slice(0, 300)}`);
  }
  const attacks = buildAttacks();

  const ownPids = async () => [
    process.pid,
    process.ppid,
    pid,
    ...(await sqlClient!.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
  ];
  let waitBudget = settings.quietWaitSeconds * 1000;
  const quiet = async () => {
    if (waitBudget <= 0) return;
    const waited = await waitForQuiet(ownPids, Math.min(5_000, waitBudget));
    waitBudget -= waited;
    if (waited > 1500) log(`waited ${(waited / 1000).toFixed(0)} s for other work on the machine to calm down`);
  };
  const cpuNow = async () => (await app.ask<{ micros: number }>('cpu')).micros / 1e6;

  // Baseline: idle RSS, then the bystander alone (its latency, and the server CPU one `{ me }` costs).
  await sleep(2000);
  const idle = procStatusMb(pid).rss;
  let seriesPeak = idle;
  await quiet();
  const baseCpu = await cpuNow();
  const baseWindow = startWindow(await ownPids());
  const baseBystander = await startBystander(port, keys.bystander);
  await sleep(settings.baselineSeconds * 1000);
  const baseline = await baseBystander.stop();
  const baseOther = baseWindow.end();
  const meCpu = ((await cpuNow()) - baseCpu) / Math.max(1, baseline.ok);
  log(
    `baseline: idle RSS ${mb(idle)} MB; bystander alone ${baseline.ok}/${baseline.sent} answered, p50 ${ms(baseline.p50)} ms, p99 ${ms(baseline.p99)} ms; ` +
      `server CPU ${(meCpu * 1e6).toFixed(0)} µs per { me }${otherNote(baseOther)}`,
  );

  const measure = async (attack: Attack, copies: number): Promise<Run> => {
    await quiet();
    await sleep(500);
    const rssBase = procStatusMb(pid).rss;
    const bystander = copies > 1 ? await startBystander(port, keys.bystander) : null;
    const before = await cpuNow();
    const window = startWindow(await ownPids());
    const sampler = rssSampler(pid);
    const started = performance.now();
    const outcomes = await Promise.all(Array.from({ length: copies }, () => attack.send(port, keys.attacker)));
    const wall = (performance.now() - started) / 1000;
    const atAnswer = await cpuNow();
    // The bystander runs during the attack and at least BYSTANDER_MIN_MS from its start (so a fast refusal still
    // has a sample of { me } beside it, and the garbage the attack left is collected within it).
    if (bystander) await sleep(Math.max(0, started + BYSTANDER_MIN_MS - performance.now()));
    const stats = bystander ? await bystander.stop() : undefined;
    await sleep(Math.max(0, started + wall * 1000 + AFTER_ANSWER_MS - performance.now()));
    const { peak } = sampler.stop();
    const after = await cpuNow();
    const other = window.end();
    seriesPeak = Math.max(seriesPeak, peak);
    const bystanderCpu = stats ? stats.ok * meCpu : 0;
    const cpu = Math.max(0, after - before - bystanderCpu);
    // At the last answer: the bystander's share up to then is not known apart, so it is prorated over its window.
    const share = stats ? bystanderCpu * Math.min(1, wall / Math.max(wall, BYSTANDER_MIN_MS / 1000)) : 0;
    const cpuAtAnswer = Math.max(0, atAnswer - before - share);
    return { outcomes, cpu, cpuAtAnswer, rssPlus: peak - rssBase, rssBase, rssPeak: peak, wall, other, bystander: stats };
  };

  const results: { attack: Attack; one: Run; ten: Run }[] = [];
  for (const attack of attacks) {
    const one = await measure(attack, 1);
    log(
      `${attack.name} x1: ${summary(one.outcomes)} in ${secs(one.wall)} s (${(one.outcomes[0].bytes / 1024).toFixed(0)} KB answer${
        one.outcomes[0].cost != null ? `, requestedQueryCost ${one.outcomes[0].cost}` : ''
      }); ` +
        `server CPU ${secs(one.cpu)} s (${secs(one.cpuAtAnswer)} s by the answer); RSS ${mb(one.rssBase)} -> peak ${mb(one.rssPeak)} MB (+${mb(one.rssPlus)})${otherNote(one.other)}`,
    );
    const ten = await measure(attack, settings.concurrency);
    const b = ten.bystander!;
    log(
      `${attack.name} x${settings.concurrency}: ${summary(ten.outcomes)} in ${secs(ten.wall)} s; server CPU ${secs(ten.cpu)} s (${secs(ten.cpuAtAnswer)} s by the last answer; bystander's share taken out); ` +
        `RSS ${mb(ten.rssBase)} -> peak ${mb(ten.rssPeak)} MB (+${mb(ten.rssPlus)}); bystander ${b.ok}/${b.sent} answered, p50 ${ms(b.p50)} ms, p99 ${ms(b.p99)} ms, max ${ms(b.max)} ms${otherNote(ten.other)}`,
    );
    results.push({ attack, one, ten });
  }

  // After the attacks: the RSS sampled every second for settleSeconds.
  const profiles: string[] = [];
  const settleStart = performance.now();
  const afterAttacks = procStatusMb(pid).rss;
  let backWithinAt: number | null = null;
  const marks: string[] = [];
  for (let second = 1; second <= settings.settleSeconds; second++) {
    await sleep(Math.max(0, settleStart + second * 1000 - performance.now()));
    const rss = procStatusMb(pid).rss;
    seriesPeak = Math.max(seriesPeak, rss);
    if (backWithinAt === null && rss - idle <= TARGETS.settleMb) backWithinAt = second;
    if (second % 10 === 0 || second === settings.settleSeconds) marks.push(`${second} s ${mb(rss)}`);
  }
  const settled = procStatusMb(pid).rss;
  log(`RSS after the attacks: ${mb(afterAttacks)} MB, then ${marks.join(', ')} MB`);

  if (settings.profile) {
    for (const attack of attacks) {
      await quiet();
      await app.ask('profile', { action: 'start' });
      const outcome = await attack.send(port, keys.attacker);
      await sleep(AFTER_ANSWER_MS);
      const profile = (await app.ask<{ profile: CpuProfile }>('profile', { action: 'stop' })).profile;
      profiles.push(profileSummary(profile, `${attack.name} (one request, ${outcome.status ?? '-'} ${outcome.code}, to ${AFTER_ANSWER_MS} ms after its answer)`));
    }
  }

  // ---- report --------------------------------------------------------------------------------------------------
  const missed: string[] = [];
  const rows = results.map(({ attack, one, ten }) => {
    const b = ten.bystander!;
    const problems: string[] = [];
    const perTenCpu = ten.cpu / settings.concurrency;
    const perTenRss = ten.rssPlus / settings.concurrency;
    if (one.cpu > TARGETS.cpuSeconds) {
      problems.push('CPU');
      missed.push(`${attack.name}: one request took ${secs(one.cpu)} s of server CPU (target <= ${TARGETS.cpuSeconds} s)`);
    }
    if (perTenCpu > TARGETS.cpuSeconds) {
      if (!problems.includes('CPU')) problems.push('CPU');
      missed.push(`${attack.name}: ${settings.concurrency} concurrent took ${secs(ten.cpu)} s of server CPU, ${secs(perTenCpu)} s per request (target <= ${TARGETS.cpuSeconds} s)`);
    }
    if (one.rssPlus > TARGETS.rssMb) {
      problems.push('RSS');
      missed.push(`${attack.name}: one request raised the server's RSS by ${mb(one.rssPlus)} MB (target <= +${TARGETS.rssMb} MB)`);
    }
    if (perTenRss > TARGETS.rssMb) {
      if (!problems.includes('RSS')) problems.push('RSS');
      missed.push(`${attack.name}: ${settings.concurrency} concurrent raised the RSS by ${mb(ten.rssPlus)} MB, ${mb(perTenRss)} MB per request (target <= +${TARGETS.rssMb} MB)`);
    }
    if (!(b.p99 < TARGETS.bystanderP99Ms) || b.failed > 0) {
      problems.push('me p99');
      missed.push(
        `${attack.name}: the bystander's { me } p99 was ${ms(b.p99)} ms during ${settings.concurrency} concurrent attacks (target < ${TARGETS.bystanderP99Ms} ms)` +
          (b.failed ? `, ${b.failed} of ${b.sent} not answered 200` : ''),
      );
    }
    if (attack.name === 'restBody' && [one, ten].some((run) => run.outcomes.some((o) => o.status !== 413 || o.closed !== true || o.ms > 1000))) {
      problems.push('no prompt 413');
      missed.push(`${attack.name}: not every oversized body was answered 413 within 1 s and closed (${summary([...one.outcomes, ...ten.outcomes])})`);
    }
    return [
      attack.name,
      summary(one.outcomes) + (summary(ten.outcomes) === summary(one.outcomes) ? '' : ` (${settings.concurrency}: ${summary(ten.outcomes)})`),
      secs(one.cpu),
      `+${mb(one.rssPlus)}`,
      secs(ten.cpu),
      `+${mb(ten.rssPlus)}`,
      `${ms(b.p50)} / ${ms(b.p99)}`,
      `${secs(one.wall)} / ${secs(ten.wall)}`,
      problems.length ? `no (${problems.join(', ')})` : 'yes',
    ];
  });
  const settledOk = settled - idle <= TARGETS.settleMb;
  if (!settledOk) missed.push(`RSS ${settings.settleSeconds} s after the attacks was ${mb(settled)} MB, ${mb(settled - idle)} MB above idle ${mb(idle)} MB (target within ${TARGETS.settleMb} MB)`);
  const loadAfter = loadAverage();
  const others = results.flatMap(({ one, ten }) => [one.other, ten.other]).filter((o): o is number => o !== null);
  const disturbed = others.length ? Math.max(...others) : 0;

  console.log(`
== attacks (issue 31): each once, then ${settings.concurrency} concurrent copies; code ${revision} ==
app = buildApp() in a child process (bench/servers/app-server.ts, NODE_ENV=production, rate limits and the GraphQL points
budget 10^9/min, pool 10). ${SEED_CUSTOMERS} customers of ~${((TEXT_CHARS * 2) / 1000).toFixed(0)} KB. CPU = the server's process.cpuUsage() from before the
request(s) to ${AFTER_ANSWER_MS} ms after the last answer (ten: the bystander's share, ${(meCpu * 1e6).toFixed(0)} µs per { me }, taken out);
peak RSS +MB = peak VmRSS during the run over VmRSS at its start. Bystander: { me { apiVersion } } with another key
every ${settings.bystanderIntervalMs} ms during the ${settings.concurrency} concurrent copies (latency from the scheduled time).

${table(
    [
      ['attack', 'status code (one)', 'CPU s (one)', 'peak RSS +MB (one)', `CPU s (${settings.concurrency})`, `peak RSS +MB (${settings.concurrency})`, `bystander p50/p99 ms during ${settings.concurrency}`, 'wall s (one / ten)', 'target met?'],
      ...rows,
    ],
    (c) => c >= 2 && c <= 7,
  )}

attacks:
${results.map(({ attack }) => `  ${attack.name}: ${attack.label}`).join('\n')}

baseline: bystander alone p50 ${ms(baseline.p50)} ms, p99 ${ms(baseline.p99)} ms (${baseline.ok} requests)
RSS: idle ${mb(idle)} MB before the attacks, peak ${mb(seriesPeak)} MB over the series, ${mb(settled)} MB ${settings.settleSeconds} s after the last attack (${settledOk ? 'within' : 'not within'} ${TARGETS.settleMb} MB of idle${
    backWithinAt !== null ? `; first within at ${backWithinAt} s` : ''
  })
${loadReport(loadBefore, disturbed, 'latencies are unreliable, server CPU seconds much less so', loadAfter)}
${missed.length ? missed.map((m) => `TARGET MISSED: ${m}`).join('\n') : 'all targets met'}
`);
  if (profiles.length) console.log(`${profiles.join('\n\n')}\n`);
}

/** The top self-time groups (package, src file, native) and functions of a server profile, ms. */
function profileSummary(profile: CpuProfile, label: string): string {
  // The profiler's own work (starting, and serializing the profile on stop) is left out.
  const all = selfTimeByGroup(profile).filter((g) => categoryOf(g.group) !== PROFILER);
  const total = all.reduce((sum, g) => sum + g.micros, 0);
  const groups = all.slice(0, 6);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)' || /node:inspector|servers\/control\.ts/.test(frame.url)) return;
    const file = decodeURIComponent(frame.url.replace(/^file:\/\//, '')).replace(/^.*\/(node_modules|src)\//, '$1/');
    const key = `${frame.functionName || '(anonymous)'} ${file}`;
    functions.set(key, (functions.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const top = [...functions.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
  return (
    `server CPU profile, ${label}; ${ms(total / 1000)} ms busy (the profiler's own work left out), self time:\n` +
    `${table([['group', 'ms'], ...groups.map((g) => [g.group, ms(g.micros / 1000)])])}\n` +
    `${table([['function', 'ms'], ...top.map(([name, micros]) => [name, ms(micros / 1000)])])}`
  );
}

function otherNote(other: number | null): string {
  return other === null ? '' : `; other processes ${Math.round(other * 100)}% of the machine`;
}

runBench(main, cleanup);
