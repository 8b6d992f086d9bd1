// npm run bench:events — how fast a committed event reaches its consumers, on PostgreSQL, in one run (bench/README.md,
// "Events"):
//   1. webhooks: POST /customers at a fixed rate (BENCH_EVENTS_RATE, 100/s) for BENCH_EVENTS_SECONDS (25 s), spread
//      over BENCH_EVENTS_ACCOUNTS (10) accounts, each with a verified endpoint on a receiver in this process;
//      commit -> webhook received, p50 and p99 (target p50 < 100 ms), also at 10/s first (no backlog). Baseline in the
//      same run: the same writes at the same rate without endpoints, and the writes' round trip in every phase.
//   2. GraphQL subscription: one graphql-ws subscriber of events(topics: ["customer.created"]); commit -> notified,
//      p50 (target < 20 ms).
//   3. fan-out: one event to BENCH_FANOUT_KEYS x BENCH_FANOUT_SOCKETS x BENCH_FANOUT_SUBSCRIPTIONS (100 x 4 x 25 =
//      10,000) subscriptions on one process: commit -> last subscriber notified (target < 1 s), and the server's RSS
//      (target < 400 MB).
// The server is a child process (bench/servers/app-server.ts: buildApp() on the bench database, rate limits out of
// the way, WEBHOOK_ALLOW_PRIVATE_NETWORKS=true so it may deliver to 127.0.0.1); the bench process is the load
// generator, the webhook receiver and the subscribers. Everything talks to 127.0.0.1 only.
//
// "Commit time" is the event's `timestamp` (events.created_at, set while the write's transaction runs, before its
// commit; millisecond precision, the same machine's clock as the receiver's). The commit comes after it, so
// "received - timestamp" is an upper bound of commit -> received (it includes the rest of the transaction and the
// commit). The write's answer arrives after the commit, so "received - answer" is a lower bound (it can be
// negative: a delivery may overtake the answer). Both are printed.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { createClient, type Client as WsClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { startChild, startHeapFlags, type Child } from './lib/children.ts';
import { benchCleanup } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { startWindow, loadAverage } from './lib/machine.ts';
import { selfTimeByGroup, type CpuProfile } from './lib/profile.ts';
import { ms, quantile, table } from './lib/stats.ts';

const unlimited = 1_000_000_000;
const rateLimits = { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited };

// ---------------------------------------------------------------------------------------------------------------
// Bench process.

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /**
   * Accounts part 1's writes are spread over (each with its endpoint). Creates of one account are serialized (its
   * number sequence's row lock is held to the commit), so one account at 100/s measures that queue too.
   */
  accounts: Number(env.BENCH_EVENTS_ACCOUNTS ?? 10),
  /** Writes per second in part 1 (and its baseline). */
  rate: Number(env.BENCH_EVENTS_RATE ?? 100),
  /** Seconds of part 1's measured load. */
  seconds: Number(env.BENCH_EVENTS_SECONDS ?? 25),
  /** Part 1 also runs at this low rate first (10 s), to show the pipeline's own latency apart from the load's. */
  lowRate: Number(env.BENCH_EVENTS_LOW_RATE ?? 10),
  /** Seconds of part 1's baseline (the same writes without an endpoint). */
  baselineSeconds: Number(env.BENCH_EVENTS_BASELINE_SECONDS ?? 10),
  /** How long part 1 waits at most, after its load, for deliveries still on their way. */
  drainSeconds: Number(env.BENCH_EVENTS_DRAIN_SECONDS ?? 30),
  /** Part 2: writes (at 10 per second) with one subscriber. */
  subscriberSamples: Number(env.BENCH_SUBSCRIBER_SAMPLES ?? 200),
  /** Part 3: keys x sockets per key x subscriptions per socket (limits.ts: at most 20 sockets and 100 subscriptions per key). */
  fanoutKeys: Number(env.BENCH_FANOUT_KEYS ?? 100),
  fanoutSockets: Number(env.BENCH_FANOUT_SOCKETS ?? 4),
  fanoutSubscriptions: Number(env.BENCH_FANOUT_SUBSCRIPTIONS ?? 25),
  fanoutRounds: Number(env.BENCH_FANOUT_ROUNDS ?? 5),
};
const TARGETS = { webhookP50: 100, subscriberP50: 20, fanoutLast: 1000, rssMb: 400 };

let benchDb: BenchDatabase | null = null;
let setupApp: App | null = null;
let setupDatabase: Database | null = null;
let sqlClient: pg.Client | null = null;
const sockets: WsClient[] = [];
let receiverServer: http.Server | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app: setupApp, database: setupDatabase, sql: sqlClient }), log);
const missed: string[] = [];

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));

interface Answer {
  status: number;
  body: string;
}

/** One request over node:http (keep-alive agent); resolves with the status and body once the last byte is in. */
function request(port: number, agent: http.Agent, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** One customer create: an organization the event carries back (data.object.organization). */
interface Write {
  organization: string;
  /** Scheduled send time (open loop: the writes leave on a fixed schedule, whatever the answers do). */
  scheduled: number;
  /** Date.now() when the answer's last byte arrived (NaN until then). */
  answered: number;
  status: number;
  /** performance.now() round trip from the scheduled time (queueing in the client counts against the server). */
  roundTrip: number;
}

/**
 * POSTs customers at `rate` per second for `seconds` on a fixed schedule, the keys of `tokens` (one per account) in
 * turn; resolves when every answer is in.
 */
async function writeLoad(port: number, agent: http.Agent, tokens: string | string[], prefix: string, rate: number, seconds: number): Promise<Write[]> {
  const keys = typeof tokens === 'string' ? [tokens] : tokens;
  const total = Math.round(rate * seconds);
  const writes: Write[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now() + 50;
  for (let i = 0; i < total; i++) {
    const scheduled = start + (i * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 1) await sleep(wait);
    const write: Write = { organization: `${prefix} ${i}`, scheduled, answered: Number.NaN, status: 0, roundTrip: Number.NaN };
    writes.push(write);
    pending.push(
      request(port, agent, keys[i % keys.length]!, 'POST', '/api/v2/customers', { customer: { organization: write.organization } }).then(
        (answer) => {
          write.answered = Date.now();
          write.roundTrip = performance.now() - scheduled;
          write.status = answer.status;
        },
        () => {
          write.status = -1;
        },
      ),
    );
  }
  await Promise.all(pending);
  const failed = writes.filter((write) => write.status !== 201);
  if (failed.length) throw new Error(`${failed.length} of ${writes.length} writes failed (first status ${failed[0]!.status})`);
  return writes;
}

interface Delivery {
  organization: string;
  webhookId: string;
  /** The event's timestamp (events.created_at), ms since the epoch. */
  timestamp: number;
  /** Date.now() when the request's body was in. */
  received: number;
}

/** The webhook receiver: echoes verification challenges, answers every delivery 204 and notes its arrival. */
async function startReceiver(): Promise<{ url: string; deliveries: Delivery[]; onDelivery: (listener: () => void) => void }> {
  const deliveries: Delivery[] = [];
  const listeners: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type?: string;
        challenge?: string;
        timestamp?: string;
        data?: { object?: { organization?: string } };
      };
      if (body.challenge) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(body.challenge);
        return;
      }
      res.writeHead(204);
      res.end();
      if (body.type === 'customer.created') {
        deliveries.push({
          organization: body.data?.object?.organization ?? '',
          webhookId: String(req.headers['webhook-id']),
          timestamp: Date.parse(body.timestamp ?? ''),
          received,
        });
        for (const listener of listeners) listener();
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiverServer = server;
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`, deliveries, onDelivery: (listener) => listeners.push(listener) };
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const pct = (values: number[], q: number) => quantile(values, q);
const msOrInf = (value: number) => (value === Number.POSITIVE_INFINITY ? 'not delivered' : ms(value));

const SUBSCRIPTION = 'subscription Events($topics: [String!]!) { events(topics: $topics) { seq id topic envelope } }';

interface EventMessage {
  seq: string | number;
  id: string;
  topic: string;
  envelope: unknown;
}

/** The envelope's timestamp (the field is JSON: an object, or its text). */
function timestampOf(message: EventMessage): number {
  const envelope = (typeof message.envelope === 'string' ? JSON.parse(message.envelope) : message.envelope) as { timestamp?: string };
  return Date.parse(envelope?.timestamp ?? '');
}

/** A graphql-ws client on one socket, connected (resolves once the server acknowledged connection_init). */
async function connectSocket(port: number, token: string): Promise<WsClient> {
  let settle: { resolve: () => void; reject: (error: Error) => void } | null = null;
  const connected = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    lazy: false,
    retryAttempts: 0,
    onNonLazyError: (error) => settle?.reject(new Error(`the socket failed: ${describeClose(error)}`)),
    on: {
      connected: () => settle?.resolve(),
      closed: (event) => settle?.reject(new Error(`the socket closed before it was acknowledged: ${describeClose(event)}`)),
    },
  });
  sockets.push(client);
  await connected;
  settle = null;
  return client;
}

function describeClose(event: unknown): string {
  if (event && typeof event === 'object' && 'code' in event) return `${(event as { code: number }).code} ${(event as { reason?: string }).reason ?? ''}`;
  return event instanceof Error ? event.message : JSON.stringify(event);
}

/** Subscribes to customer.created events on the socket; `onEvent` gets each message and its arrival (Date.now()). */
function subscribe(client: WsClient, onEvent: (message: EventMessage, received: number) => void, onError: (error: unknown) => void): () => void {
  return client.subscribe<{ events: EventMessage }>(
    { query: SUBSCRIPTION, variables: { topics: ['customer.created'] } },
    {
      next: (result) => {
        const received = Date.now();
        if (result.errors?.length) onError(result.errors);
        else if (result.data?.events) onEvent(result.data.events, received);
      },
      error: onError,
      complete: () => {},
    },
  );
}

/** A server child: bench/servers/app-server.ts, allowed to deliver to the receiver on 127.0.0.1, with --expose-gc (the memory report). */
async function startServer(name: string): Promise<Child> {
  const child = await startChild(name, 'app-server.ts', { databaseUrl: benchDb!.url, config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } }, { NODE_OPTIONS: '--expose-gc' });
  log(`${name} on :${child.port} (pid ${child.process.pid}; heap flags of npm start: ${startHeapFlags.join(' ') || 'none'})`);
  return child;
}

/**
 * The server's V8 heap in use and its external memory (MB), over IPC: what of its RSS the JavaScript heap holds. With
 * `gc`, after a full collection (heap used is then what is retained), and the RSS after it.
 */
async function heapOf(child: Child, gc = false): Promise<string> {
  const usage = await child.ask<NodeJS.MemoryUsage & { collected: boolean }>('memory', { gc });
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const heap = `heap used ${mb(usage.heapUsed)} MB of ${mb(usage.heapTotal)} MB, external ${mb(usage.external)} MB`;
  return gc ? (usage.collected ? `after a full GC: RSS ${mb(usage.rss)} MB, ${heap}` : 'no forced GC (gc not exposed)') : heap;
}

/** Starts the V8 sampling profiler in the server (bench/servers/control.ts); the returned function stops it. */
async function profileServer(child: Child): Promise<() => Promise<CpuProfile>> {
  await child.ask('profile', { action: 'start' });
  return async () => (await child.ask<{ profile: CpuProfile }>('profile', { action: 'stop' })).profile;
}

/** The top self-time groups (package, src file, native) and functions of a profile, ms. */
function profileSummary(profile: CpuProfile, label: string): string {
  const groups = selfTimeByGroup(profile).slice(0, 10);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') return;
    const file = decodeURIComponent(frame.url.replace(/^file:\/\//, '')).replace(/^.*\/(node_modules|src)\//, '$1/');
    const key = `${frame.functionName || '(anonymous)'} ${file}`;
    functions.set(key, (functions.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const top = [...functions.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  return (
    `server CPU profile, ${label}: self time by group\n${table([['group', 'ms'], ...groups.map((g) => [g.group, ms(g.micros / 1000)])])}\n` +
    `by function\n${table([['function', 'ms'], ...top.map(([name, micros]) => [name, ms(micros / 1000)])])}`
  );
}

/** Server CPU time so far (ms), over IPC. */
async function cpuOf(child: Child): Promise<number> {
  return (await child.ask<{ micros: number }>('cpu')).micros / 1000;
}

/** Samples the bench database's sessions (pg_stat_activity) every 50 ms until stopped: what they wait on, and in what. */
function sampleWaits(url: string): { stop(): Promise<string[][]> } {
  const client = new pg.Client({ connectionString: url });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ wait: string; query: string }>(
        `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query
           FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      samples += 1;
      for (const row of rows) counts.set(`${row.wait}\t${row.query}`, (counts.get(`${row.wait}\t${row.query}`) ?? 0) + 1);
      await sleep(50);
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const top = [...counts.entries()].sort((x, y) => y[1] - x[1]).slice(0, 12);
      return [['sessions per sample', 'wait', 'statement'], ...top.map(([key, n]) => [(n / samples).toFixed(2), ...key.split('\t')])];
    },
  };
}

async function main(): Promise<void> {
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), database server ${new URL(settings.serverUrl).host}`);
  log(`machine load average ${loadAverage()}`);
  benchDb = await createBenchDatabase(settings.serverUrl);
  log(`created database ${benchDb.name}`);

  // ---- setup: migrations, one account, its keys (through the app's admin service; this app never listens) ----
  setupDatabase = await openDatabase({ url: benchDb.url, poolSize: 2 });
  setupApp = buildApp({ database: setupDatabase, config: loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: benchDb.url, HOST: '127.0.0.1' }), rateLimits });
  const created = await setupApp.domain.admin.createAccount({ name: 'Events Bench Ltd' });
  const token = created.key.token;
  const accountTokens = [token];
  for (let i = 1; i < settings.accounts; i++) accountTokens.push((await setupApp.domain.admin.createAccount({ name: `Events Bench ${i} Ltd` })).key.token);
  const fanoutTokens = [token];
  for (let i = 1; i < settings.fanoutKeys; i++) fanoutTokens.push((await setupApp.domain.admin.createKey({ userId: created.user.id })).token);
  await setupApp.close();
  await setupDatabase.close();
  setupApp = null;
  setupDatabase = null;
  sqlClient = new pg.Client({ connectionString: benchDb.url });
  await sqlClient.connect();
  log(`${accountTokens.length} accounts; the first with ${fanoutTokens.length} keys`);

  let server = await startServer('server');
  let port = server.port;
  const startRss = memoryOf(server.process.pid!);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const ownPids = async () => [
    process.pid,
    server.process.pid!,
    ...(await sqlClient!.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
  ];
  const other = (share: number | null) => (share === null ? 'n/a' : `${Math.round(share * 100)}%`);
  const rows: string[][] = [['measure', 'p50 ms', 'p99 ms', 'n', 'server CPU ms/write', 'other processes']];
  const extra: string[] = [];

  // ---- 1. webhooks -----------------------------------------------------------------------------------------------
  const receiver = await startReceiver();
  // Warm-up: the app's first writes (statement preparation, JIT).
  await writeLoad(port, agent, accountTokens, 'Warm-up', 20, 2);

  let window = startWindow(await ownPids());
  let cpuBefore = await cpuOf(server);
  const baseline = await writeLoad(port, agent, accountTokens, 'Baseline', settings.rate, settings.baselineSeconds);
  const baselineCpu = ((await cpuOf(server)) - cpuBefore) / baseline.length;
  const baselineOther = window.end();
  const baselineTrips = baseline.map((write) => write.roundTrip);
  rows.push([`POST /customers round trip, no endpoint (${settings.rate}/s, ${settings.accounts} accounts)`, ms(pct(baselineTrips, 0.5)), ms(pct(baselineTrips, 0.99)), String(baseline.length), ms(baselineCpu), other(baselineOther)]);
  log(`baseline: ${baseline.length} writes at ${settings.rate}/s without an endpoint`);

  const endpointIds: string[] = [];
  for (const key of accountTokens) {
    const registered = await request(port, agent, key, 'POST', '/api/v2/webhooks/endpoints', { endpoint: { url: receiver.url, topics: ['customer.created'] } });
    if (registered.status !== 201) throw new Error(`registering an endpoint: ${registered.status} ${registered.body.slice(0, 300)}`);
    endpointIds.push((JSON.parse(registered.body) as { data: { id: string } }).data.id);
  }
  await writeLoad(port, agent, accountTokens, 'Warm-up delivery', accountTokens.length, 1);
  const warmDeadline = Date.now() + 30_000;
  while (receiver.deliveries.length < accountTokens.length && Date.now() < warmDeadline) await sleep(20);
  if (receiver.deliveries.length < accountTokens.length) throw new Error('the warm-up writes were not delivered within 30 s');
  log(`${endpointIds.length} endpoints verified (one per account); the warm-up deliveries arrived`);

  // At a low rate first: the pipeline's own latency (NOTIFY, dispatcher, job, attempt), without a backlog.
  {
    window = startWindow(await ownPids());
    const from = receiver.deliveries.length;
    const low = await writeLoad(port, agent, accountTokens, 'Low rate', settings.lowRate, 10);
    const lowDeadline = Date.now() + 10_000;
    while (receiver.deliveries.length - from < low.length && Date.now() < lowDeadline) await sleep(50);
    const lowOther = window.end();
    const seenAt = new Map(receiver.deliveries.slice(from).map((d) => [d.organization, d]));
    const latency = low.map((write) => {
      const delivered = seenAt.get(write.organization);
      return delivered ? delivered.received - delivered.timestamp : Number.POSITIVE_INFINITY;
    });
    const lowTrips = low.map((write) => write.roundTrip);
    rows.push([`POST /customers round trip, with the endpoint (${settings.lowRate}/s)`, ms(pct(lowTrips, 0.5)), ms(pct(lowTrips, 0.99)), String(low.length), '', other(lowOther)]);
    rows.push([`webhook at ${settings.lowRate}/s: received - event timestamp`, msOrInf(pct(latency, 0.5)), msOrInf(pct(latency, 0.99)), String(low.length), '', other(lowOther)]);
  }

  window = startWindow(await ownPids());
  const waits = env.BENCH_SAMPLE_WAITS === '1' ? sampleWaits(benchDb.url) : null;
  const before = receiver.deliveries.length;
  const loadStarted = performance.now();
  cpuBefore = await cpuOf(server);
  // BENCH_PROFILE=1: the server's CPU profile over the first 10 s of the load and over the rest.
  const profiles: Promise<string>[] = [];
  let stopProfile = env.BENCH_PROFILE === '1' ? await profileServer(server) : null;
  let restarted: Promise<unknown> | null = null;
  const split =
    stopProfile &&
    setTimeout(() => {
      const stop = stopProfile!;
      stopProfile = null;
      // One profiler session at a time in the server: the next starts once this one has stopped.
      const first = stop();
      profiles.push(first.then((profile) => profileSummary(profile, 'first 10 s of the webhook load')));
      restarted = first.then(() => profileServer(server)).then((next) => (stopProfile = next));
    }, 10_000);
  const writes = await writeLoad(port, agent, accountTokens, 'Delivered', settings.rate, settings.seconds);
  if (split) clearTimeout(split);
  await restarted;
  if (stopProfile) profiles.push((stopProfile as () => Promise<CpuProfile>)().then((profile) => profileSummary(profile, profiles.length ? 'the rest of the webhook load' : 'the webhook load')));
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const atLoadEnd = receiver.deliveries.length - before;
  const waitRows = await waits?.stop();
  log(`load: ${writes.length} writes in ${loadSeconds.toFixed(1)} s; ${atLoadEnd} delivered by the end of it; waiting for the rest (at most ${settings.drainSeconds} s)`);
  const drainDeadline = Date.now() + settings.drainSeconds * 1000;
  while (receiver.deliveries.length - before < writes.length && Date.now() < drainDeadline) await sleep(100);
  const deliveryCpu = ((await cpuOf(server)) - cpuBefore) / writes.length;
  const deliveryOther = window.end();
  const byOrganization = new Map<string, Delivery[]>();
  for (const delivery of receiver.deliveries.slice(before)) {
    const list = byOrganization.get(delivery.organization) ?? [];
    list.push(delivery);
    byOrganization.set(delivery.organization, list);
  }
  const fromTimestamp: number[] = [];
  const fromAnswer: number[] = [];
  let undelivered = 0;
  let duplicates = 0;
  for (const write of writes) {
    const delivered = byOrganization.get(write.organization);
    if (!delivered) {
      undelivered += 1;
      fromTimestamp.push(Number.POSITIVE_INFINITY);
      fromAnswer.push(Number.POSITIVE_INFINITY);
      continue;
    }
    duplicates += delivered.length - 1;
    fromTimestamp.push(delivered[0]!.received - delivered[0]!.timestamp);
    fromAnswer.push(delivered[0]!.received - write.answered);
  }
  const trips = writes.map((write) => write.roundTrip);
  rows.push([`POST /customers round trip, with the endpoint (${settings.rate}/s)`, ms(pct(trips, 0.5)), ms(pct(trips, 0.99)), String(writes.length), `${ms(deliveryCpu)} (delivery incl.)`, other(deliveryOther)]);
  rows.push(['webhook: received - event timestamp (upper bound)', msOrInf(pct(fromTimestamp, 0.5)), msOrInf(pct(fromTimestamp, 0.99)), String(writes.length), '', other(deliveryOther)]);
  rows.push(['webhook: received - write answered (lower bound)', msOrInf(pct(fromAnswer, 0.5)), msOrInf(pct(fromAnswer, 0.99)), String(writes.length), '', other(deliveryOther)]);
  const deliveredCount = writes.length - undelivered;
  const times = receiver.deliveries.slice(before).map((d) => d.received);
  const deliveredSpan = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : Number.NaN;
  log(
    `part 1: ${deliveredCount} of ${writes.length} events delivered (${atLoadEnd} during the load), ${undelivered} not within the drain, ` +
      `${duplicates} duplicate deliveries; deliveries arrived at ${(deliveredCount / deliveredSpan).toFixed(1)}/s over ${deliveredSpan.toFixed(1)} s`,
  );
  // Latency by 5 s slice of the load: a backlog shows as a rising latency, noise as spikes.
  const slice = Math.max(1, Math.round(settings.rate * 5));
  const slices: string[][] = [['writes', 'webhook p50 ms', 'webhook p99 ms', 'write p50 ms']];
  for (let i = 0; i < writes.length; i += slice) {
    slices.push([`${i}-${Math.min(writes.length, i + slice) - 1}`, msOrInf(pct(fromTimestamp.slice(i, i + slice), 0.5)), msOrInf(pct(fromTimestamp.slice(i, i + slice), 0.99)), ms(pct(trips.slice(i, i + slice), 0.5))]);
  }
  extra.push(`webhook latency (received - event timestamp) by 5 s of load:\n${table(slices)}`);
  extra.push(...(await Promise.all(profiles)));
  if (waitRows) extra.push(`database sessions during the webhook load (BENCH_SAMPLE_WAITS=1; pg_stat_activity every 50 ms, active sessions):\n${table(waitRows, (c) => c === 0)}`);
  if (undelivered > 0 || duplicates > 0) extra.push(`part 1: ${undelivered} events not delivered within the drain, ${duplicates} delivered more than once`);
  if (!(pct(fromTimestamp, 0.5) < TARGETS.webhookP50)) missed.push(`webhook commit -> received p50 ${msOrInf(pct(fromTimestamp, 0.5))} ms (target < ${TARGETS.webhookP50} ms)`);
  // The endpoints go: what is still queued is dropped, not delivered, and stops loading the server.
  for (const [k, id] of endpointIds.entries()) await request(port, agent, accountTokens[k]!, 'DELETE', `/api/v2/webhooks/endpoints/${id}`);

  // ---- 2 and 3. GraphQL subscriptions -------------------------------------------------------------------------
  // ---- 2. one subscriber ----
  const socket = await connectSocket(port, token);
  const notified = new Map<string, { received: number; timestamp: number }>();
  let failure: unknown = null;
  const dispose = subscribe(
    socket,
    (message, received) => {
      const organization = ((typeof message.envelope === 'string' ? JSON.parse(message.envelope) : message.envelope) as { data?: { object?: { organization?: string } } })?.data?.object?.organization;
      if (organization) notified.set(organization, { received, timestamp: timestampOf(message) });
    },
    (error) => (failure = error),
  );
  // The subscription is live once a write's event arrives.
  for (let i = 0; notified.size === 0 && i < 100; i++) {
    await writeLoad(port, agent, token, `Subscribe probe ${i}`, 1, 1);
    await sleep(200);
  }
  if (failure) throw new Error(`the subscription failed: ${JSON.stringify(failure)}`);
  if (notified.size === 0) throw new Error('the subscriber got no event within 30 s of writes');
  window = startWindow(await ownPids());
  cpuBefore = await cpuOf(server);
  const subscriberWrites = await writeLoad(port, agent, token, 'Subscribed', 10, settings.subscriberSamples / 10);
  await sleep(2_000);
  const subscriberCpu = ((await cpuOf(server)) - cpuBefore) / subscriberWrites.length;
  const subscriberOther = window.end();
  const latencies = subscriberWrites.map((write) => {
    const seenBy = notified.get(write.organization);
    return seenBy ? seenBy.received - seenBy.timestamp : Number.POSITIVE_INFINITY;
  });
  const lower = subscriberWrites.map((write) => {
    const seenBy = notified.get(write.organization);
    return seenBy ? seenBy.received - write.answered : Number.POSITIVE_INFINITY;
  });
  const subscriberTrips = subscriberWrites.map((write) => write.roundTrip);
  rows.push(['POST /customers round trip, one subscriber (10/s)', ms(pct(subscriberTrips, 0.5)), ms(pct(subscriberTrips, 0.99)), String(subscriberWrites.length), ms(subscriberCpu), other(subscriberOther)]);
  rows.push(['subscriber: notified - event timestamp (upper bound)', msOrInf(pct(latencies, 0.5)), msOrInf(pct(latencies, 0.99)), String(latencies.length), '', other(subscriberOther)]);
  rows.push(['subscriber: notified - write answered (lower bound)', msOrInf(pct(lower, 0.5)), msOrInf(pct(lower, 0.99)), String(lower.length), '', other(subscriberOther)]);
  if (!(pct(latencies, 0.5) < TARGETS.subscriberP50)) missed.push(`subscriber commit -> notified p50 ${msOrInf(pct(latencies, 0.5))} ms (target < ${TARGETS.subscriberP50} ms)`);
  dispose();
  await socket.dispose();

  // ---- 3. fan-out, on a server started afresh (the load above grew the first one's heap) ----
  await server.stop();
  server = await startServer('fan-out server');
  port = server.port;
  const serverPid = server.process.pid!;
  await writeLoad(port, agent, token, 'Fan-out warm-up', 20, 1);
  await sleep(2_000);
  const { fanoutKeys, fanoutSockets, fanoutSubscriptions } = settings;
  const total = fanoutKeys * fanoutSockets * fanoutSubscriptions;
  const idle = memoryOf(serverPid);
  const idleHeap = await heapOf(server);
  /** Per event seq: arrivals and the event's timestamp. */
  const arrivals = new Map<string, { times: number[]; timestamp: number }>();
  const errors: unknown[] = [];
  const onEvent = (message: EventMessage, received: number) => {
    const seq = String(message.seq);
    let entry = arrivals.get(seq);
    if (!entry) arrivals.set(seq, (entry = { times: [], timestamp: timestampOf(message) }));
    entry.times.push(received);
  };
  const connectStarted = performance.now();
  const jobs: { token: string }[] = [];
  for (const key of fanoutTokens.slice(0, fanoutKeys)) for (let s = 0; s < fanoutSockets; s++) jobs.push({ token: key });
  const disposers: (() => void)[] = [];
  for (let i = 0; i < jobs.length; i += 20) {
    const opened = await Promise.all(jobs.slice(i, i + 20).map((job) => connectSocket(port, job.token)));
    for (const client of opened) for (let k = 0; k < fanoutSubscriptions; k++) disposers.push(subscribe(client, onEvent, (error) => errors.push(error)));
  }
  log(`fan-out: ${jobs.length} sockets (${fanoutKeys} keys x ${fanoutSockets}), ${disposers.length} subscriptions in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s`);
  // Every subscription is live once a write's event has reached all of them.
  const waitForAll = async (known: Set<string>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const fresh = [...arrivals.entries()].filter(([seq]) => !known.has(seq));
      const complete = fresh.find(([, entry]) => entry.times.length >= total);
      if (complete || Date.now() > deadline) return fresh;
      if (errors.length) throw new Error(`a subscription failed: ${JSON.stringify(errors[0]).slice(0, 400)}`);
      await sleep(10);
    }
  };
  let live = false;
  for (let i = 0; i < 20 && !live; i++) {
    const known = new Set(arrivals.keys());
    await writeLoad(port, agent, token, `Fan-out probe ${i}`, 1, 1);
    const fresh = await waitForAll(known, 3_000);
    live = fresh.some(([, entry]) => entry.times.length >= total);
  }
  if (!live) throw new Error(`not every subscription got the probe events (most: ${Math.max(0, ...[...arrivals.values()].map((e) => e.times.length))} of ${total})`);
  const subscribed = memoryOf(serverPid);
  const subscribedHeap = await heapOf(server);
  log(`all ${total} subscriptions live; server RSS ${subscribed.rss.toFixed(0)} MB (before the sockets: ${idle.rss.toFixed(0)} MB)`);
  if (env.BENCH_HEAP_SNAPSHOT) {
    const { path } = await server.ask<{ path: string }>('heapsnapshot', { path: env.BENCH_HEAP_SNAPSHOT });
    log(`heap snapshot of the fan-out server with the subscriptions: ${path}`);
  }

  const lasts: number[] = [];
  const medians: number[] = [];
  const clientCpu: number[] = [];
  const serverCpu: number[] = [];
  window = startWindow(await ownPids());
  for (let round = 0; round < settings.fanoutRounds; round++) {
    await sleep(1_000);
    const known = new Set(arrivals.keys());
    const ownCpu = process.cpuUsage();
    const serverBefore = await cpuOf(server);
    await writeLoad(port, agent, token, `Fan-out ${round}`, 1, 1);
    const fresh = await waitForAll(known, 30_000);
    const used = process.cpuUsage(ownCpu);
    serverCpu.push((await cpuOf(server)) - serverBefore);
    const entry = fresh[0]?.[1];
    if (!entry || entry.times.length < total) throw new Error(`round ${round}: ${entry?.times.length ?? 0} of ${total} subscriptions notified within 30 s`);
    lasts.push(Math.max(...entry.times) - entry.timestamp);
    medians.push(quantile(entry.times, 0.5) - entry.timestamp);
    clientCpu.push((used.user + used.system) / 1000);
  }
  const fanoutOther = window.end();
  const after = memoryOf(serverPid);
  const afterHeap = await heapOf(server);
  const collected = await heapOf(server, true);
  const fanoutRows = [['round', 'commit -> last notified ms', 'commit -> median notified ms', 'server CPU ms', 'bench process CPU ms (subscribers)']];
  lasts.forEach((last, k) => fanoutRows.push([String(k + 1), ms(last), ms(medians[k]!), ms(serverCpu[k]!), ms(clientCpu[k]!)]));
  rows.push([`fan-out to ${total}: commit -> last notified (median of rounds)`, ms(quantile(lasts, 0.5)), `max ${ms(Math.max(...lasts))}`, String(lasts.length), `${ms(quantile(serverCpu, 0.5))} (whole round)`, other(fanoutOther)]);
  extra.push(
    `fan-out rounds (one write each; arrival times taken in the bench process, which also runs every subscriber, so the figures\n` +
      `include the subscribers' own work on the shared cores: see its CPU per round):\n${table(fanoutRows)}\n` +
      `fan-out server memory (RSS from /proc/<pid>/status; the heap from process.memoryUsage() over IPC):\n` +
      table(
        [
          ['moment', 'RSS MB', 'V8 heap'],
          ['started afresh, before the subscribers', idle.rss.toFixed(0), idleHeap],
          [`with the ${total} subscriptions`, subscribed.rss.toFixed(0), subscribedHeap],
          ['after the rounds', `${after.rss.toFixed(0)} (peak ${after.peak.toFixed(0)})`, afterHeap],
          ['then', '', collected],
        ],
        (c) => c === 1,
      ) +
      `\n(the first server had ${startRss.rss.toFixed(0)} MB at start)`,
  );
  if (!(quantile(lasts, 0.5) < TARGETS.fanoutLast)) missed.push(`fan-out commit -> last of ${total} notified ${ms(quantile(lasts, 0.5))} ms (target < ${TARGETS.fanoutLast} ms)`);
  if (!(after.peak < TARGETS.rssMb)) missed.push(`server peak RSS with ${total} subscriptions ${after.peak.toFixed(0)} MB (target < ${TARGETS.rssMb} MB; ${idle.rss.toFixed(0)} MB before them)`);
  for (const dispose of disposers) dispose();

  // ---- report ----------------------------------------------------------------------------------------------------
  console.log(`
events bench on PostgreSQL (${benchDb.name}); commit time = the event's timestamp (events.created_at, set in the write's
transaction before its commit), so "received - event timestamp" is an upper bound of commit -> received and "received -
write answered" a lower bound. Baselines: the write's round trip without an endpoint at the same rate, and in each phase.

${table(rows, (c) => c > 0)}`);
  for (const block of extra) console.log(`\n${block}`);
  for (const line of missed) console.log(`TARGET MISSED: ${line}`);
}

// ---------------------------------------------------------------------------------------------------------------
main().then(
  async () => {
    await Promise.all(sockets.map((client) => client.dispose()));
    receiverServer?.closeAllConnections();
    receiverServer?.close();
    await cleanup();
    process.exit(0);
  },
  async (error: unknown) => {
    console.error(`bench failed: ${(error as Error)?.stack ?? String(error)}`);
    await Promise.all(sockets.map((client) => Promise.resolve(client.dispose()).catch(() => {})));
    await cleanup();
    process.exit(1);
  },
);
