// npm run bench:mcp — one customer read through each door of the real app, in the same run (issue 29): MCP
// `tools/call get_customer` over POST /mcp beside REST `GET /api/v2/customers/{id}`, on a PostgreSQL database of its
// own. Raw keep-alive HTTP for both (bench/lib/raw.ts), the MCP call a JSON-RPC body as an agent runtime sends it, so
// the client's cost is the same; sequential latency (p50/p99, the two kinds alternating call by call) and closed-loop
// throughput at a few connection counts (the kinds alternating run by run), with the server's CPU per call over IPC.
// Prints the MCP overhead per call in µs and as a ratio. See bench/README.md ("MCP") for the method and the knobs.
import os from 'node:os';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { startChild, type Child } from './lib/children.ts';
import { benchCleanup, runBench } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import type { Target } from './lib/http.ts';
import { startWindow, waitForQuiet, loadAverage, loadReport } from './lib/machine.ts';
import { categoryOf, PROFILER, selfTimeByGroup, type CpuProfile } from './lib/profile.ts';
import { RawPool } from './lib/raw.ts';
import { median, ms, quantile, rate, table } from './lib/stats.ts';

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Customers seeded (through the REST API); the calls cycle through them. */
  customers: Number(env.BENCH_CUSTOMERS ?? 200),
  /** Sequential calls per kind and round, the kinds alternating call by call on one connection. */
  samples: Number(env.BENCH_SAMPLES ?? 1000),
  /** Closed-loop connection counts (each a run per kind and round). */
  connections: (env.BENCH_CONNECTIONS ?? '1,4,16').split(',').map(Number).filter((n) => n > 0),
  seconds: Number(env.BENCH_SECONDS ?? 5),
  warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 3),
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  /** Total seconds the bench may wait for a quiet machine before measured runs (at most 10 s before each; 0: never). */
  quietWaitSeconds: Number(env.BENCH_QUIET_WAIT_SECONDS ?? 30),
  /** BENCH_PROFILE=1: after the measured runs, one closed-loop run of each kind under the V8 profiler (CPU by area). */
  profile: env.BENCH_PROFILE === '1',
};
const HOST = '127.0.0.1';
const unlimited = 1_000_000_000;
/** The protocol revision the bench's requests announce (the MCP-Protocol-Version header of Streamable HTTP). */
const PROTOCOL_VERSION = '2025-06-18';

type Kind = 'rest' | 'mcp';
const KINDS: Kind[] = ['rest', 'mcp'];
const LABEL: Record<Kind, string> = { rest: 'REST GET /api/v2/customers/{id}', mcp: 'MCP tools/call get_customer' };

let benchDb: BenchDatabase | null = null;
let setupApp: App | null = null;
let setupDatabase: Database | null = null;
let sqlClient: pg.Client | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app: setupApp, database: setupDatabase, sql: sqlClient }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

// ---- the two calls: request bytes, and the check of an answer ----

let rpcId = 0;

function requestOf(kind: Kind, id: string, port: number, token: string): Buffer {
  const common = `Host: ${HOST}:${port}\r\nAuthorization: Bearer ${token}\r\n`;
  if (kind === 'rest') return Buffer.from(`GET /api/v2/customers/${id} HTTP/1.1\r\n${common}Accept: application/json\r\n\r\n`, 'latin1');
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: (rpcId += 1), method: 'tools/call', params: { name: 'get_customer', arguments: { id } } }), 'utf8');
  const head = `POST /mcp HTTP/1.1\r\n${common}Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMCP-Protocol-Version: ${PROTOCOL_VERSION}\r\nContent-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** The customer record of an answer, or an Error saying what is wrong with it. */
function recordOf(kind: Kind, id: string, reply: { status: number; body: string }): Record<string, unknown> | Error {
  const wrong = (why: string) => new Error(`${LABEL[kind]} of ${id}: ${why}: ${reply.status} ${reply.body.slice(0, 300)}`);
  if (reply.status !== 200) return wrong('status');
  let parsed: any;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return wrong('body is not JSON');
  }
  const record = kind === 'rest' ? parsed?.data : parsed?.result?.isError ? undefined : parsed?.result?.structuredContent?.data;
  if (kind === 'mcp' && parsed?.error) return wrong('JSON-RPC error');
  if (!record || record.id !== id) return wrong(kind === 'mcp' && parsed?.result?.isError ? 'tool error' : `not the customer ${id}`);
  return record as Record<string, unknown>;
}

// ---- sequential latency and closed loop ----

interface Calls {
  ids: string[];
  requests: Record<Kind, Buffer[]>;
}

/** `samples` calls of each kind on one connection, alternating REST and MCP call by call (each answer checked). */
async function sequential(target: Target, calls: Calls, samples: number): Promise<Record<Kind, number[]>> {
  const pool = await RawPool.open(target, 1);
  const times: Record<Kind, number[]> = { rest: [], mcp: [] };
  try {
    for (let i = 0; i < samples; i++) {
      const at = i % calls.ids.length;
      for (const kind of i % 2 === 0 ? KINDS : [...KINDS].reverse()) {
        const reply = await pool.request(calls.requests[kind][at]);
        const record = recordOf(kind, calls.ids[at], reply);
        if (record instanceof Error) throw record;
        times[kind].push(reply.ms);
      }
    }
  } finally {
    pool.close();
  }
  return times;
}

interface LoopResult {
  rps: number;
  ok: number;
  p50: number;
  p99: number;
}

/** Closed loop: `connections` keep-alive connections, each sending its next call when the last answer is checked. */
async function closedLoop(target: Target, kind: Kind, calls: Calls, connections: number, seconds: number): Promise<LoopResult> {
  const pool = await RawPool.open(target, connections);
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const at = (next += 1) % calls.ids.length;
          const reply = await pool.request(calls.requests[kind][at]);
          const record = recordOf(kind, calls.ids[at], reply);
          if (record instanceof Error) throw record;
          latencies.push(reply.ms);
        }
      }),
    );
  } finally {
    pool.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  return { rps: latencies.length / elapsed, ok: latencies.length, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

/**
 * BENCH_PROFILE=1: a closed-loop run of each kind (4 connections) under the V8 sampling profiler. Each package's or
 * file's share of the samples (the profiler's own work removed) is applied to the server CPU per call measured over
 * the same run, so the figures are µs of real CPU per call; printed side by side, largest MCP difference first.
 */
async function profileKinds(app: Child, target: Target, calls: Calls): Promise<void> {
  const perCall = new Map<Kind, Map<string, number>>();
  for (const kind of KINDS) {
    await app.ask('profile', { action: 'start' });
    const before = await app.ask<{ micros: number }>('cpu');
    const r = await closedLoop(target, kind, calls, 4, settings.seconds);
    const after = await app.ask<{ micros: number }>('cpu');
    const { profile } = await app.ask<{ profile: CpuProfile }>('profile', { action: 'stop' });
    const all = selfTimeByGroup(profile);
    const sampledAll = all.reduce((a, g) => a + g.micros, 0);
    const groups = all.filter((g) => categoryOf(g.group) !== PROFILER);
    const sampled = groups.reduce((a, g) => a + g.micros, 0);
    const cpu = ((after.micros - before.micros) / r.ok) * (sampled / sampledAll);
    perCall.set(kind, new Map(groups.map((g) => [g.group, (g.micros / sampled) * cpu])));
  }
  const rest = perCall.get('rest')!;
  const mcp = perCall.get('mcp')!;
  const places = [...new Set([...rest.keys(), ...mcp.keys()])].sort((a, b) => (mcp.get(b) ?? 0) - (rest.get(b) ?? 0) - ((mcp.get(a) ?? 0) - (rest.get(a) ?? 0)));
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  console.log(`\n== server CPU per call by package or file, µs (profiled closed-loop runs of ${settings.seconds} s, 4 connections) ==`);
  console.log(
    table([
      ['where', 'REST', 'MCP', 'MCP - REST'],
      ...places.slice(0, 20).map((place) => [place, (rest.get(place) ?? 0).toFixed(1), (mcp.get(place) ?? 0).toFixed(1), ((mcp.get(place) ?? 0) - (rest.get(place) ?? 0)).toFixed(1)]),
      ['total', total(rest).toFixed(1), total(mcp).toFixed(1), (total(mcp) - total(rest)).toFixed(1)],
    ]),
  );
}

// ---- setup: the account through the domain's admin, the customers through the REST API of the server under test ----

async function createAccount(db: BenchDatabase): Promise<string> {
  setupDatabase = await openDatabase({ url: db.url, poolSize: 2 }); // applies the migrations
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: db.url, HOST });
  setupApp = buildApp({ database: setupDatabase, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited } });
  const created = await setupApp.domain.admin.createAccount({ name: 'Bench MCP Ltd' });
  await setupApp.close();
  await setupDatabase.close();
  setupApp = null;
  setupDatabase = null;
  return created.key.token;
}

async function seedCustomers(port: number, token: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`http://${HOST}:${port}/api/v2/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ customer: { organization: `Bench MCP Customer ${i}`, main_phone: `+44 20 7946 ${String(i).padStart(4, '0')}`, reference: `PO-${i}` } }),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST /customers answered ${res.status}: ${text.slice(0, 300)}`);
    ids.push((JSON.parse(text) as { data: { id: string } }).data.id);
  }
  return ids;
}

/** Before loading: both doors answer the same record (the wire format of REST), and MCP the etag REST sends. */
async function sameRecord(target: Target, calls: Calls): Promise<void> {
  const pool = await RawPool.open(target, 1);
  try {
    const id = calls.ids[0];
    const rest = recordOf('rest', id, await pool.request(calls.requests.rest[0]));
    const mcpReply = await pool.request(calls.requests.mcp[0]);
    const mcp = recordOf('mcp', id, mcpReply);
    if (rest instanceof Error) throw rest;
    if (mcp instanceof Error) throw mcp;
    if (JSON.stringify(rest) !== JSON.stringify(mcp)) throw new Error(`REST and MCP answer different records for ${id}:\n  ${JSON.stringify(rest)}\n  ${JSON.stringify(mcp)}`);
  } finally {
    pool.close();
  }
}

// ---- report helpers ----

function otherNote(other: number | null): string {
  return other === null ? '' : `; other processes ${Math.round(other * 100)}% of the machine`;
}

const us = (msValue: number) => Math.round(msValue * 1000);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

async function main(): Promise<void> {
  const { seconds, rounds, warmupSeconds, samples } = settings;
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), database server ${new URL(settings.serverUrl).host}`);
  const loadBefore = loadAverage();
  log(`machine load average ${loadBefore}`);
  benchDb = await createBenchDatabase(settings.serverUrl);
  log(`created database ${benchDb.name}`);
  const token = await createAccount(benchDb);
  sqlClient = new pg.Client({ connectionString: benchDb.url });
  await sqlClient.connect();
  const pgVersion = (await sqlClient.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const app: Child = await startChild('app', 'app-server.ts', { databaseUrl: benchDb.url });
  const port = app.port;
  log(`PostgreSQL ${pgVersion}; app on :${port} (pid ${app.process.pid})`);
  const ids = await seedCustomers(port, token, settings.customers);
  log(`seeded ${ids.length} customers through POST /api/v2/customers`);
  const calls: Calls = { ids, requests: { rest: ids.map((id) => requestOf('rest', id, port, token)), mcp: ids.map((id) => requestOf('mcp', id, port, token)) } };
  const target: Target = { name: 'app', host: HOST, port, headers: {} };
  await sameRecord(target, calls);
  log('REST and MCP answer the same record, byte for byte as JSON');

  const ownPids = async () => [
    process.pid,
    process.ppid,
    app.process.pid ?? 0,
    ...(await sqlClient!.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
  ];
  let waitBudget = settings.quietWaitSeconds * 1000;
  const quiet = async () => {
    if (waitBudget <= 0) return;
    const waited = await waitForQuiet(ownPids, Math.min(10_000, waitBudget));
    waitBudget -= waited;
    if (waited > 1500) log(`waited ${(waited / 1000).toFixed(0)} s for other work on the machine to calm down`);
  };
  const otherLoad: number[] = [];

  for (const kind of KINDS) {
    const r = await closedLoop(target, kind, calls, Math.max(...settings.connections), warmupSeconds);
    log(`warmed up ${LABEL[kind]} (${warmupSeconds} s closed loop, ${rate(r.rps)} calls/s)`);
  }

  // Sequential: the kinds alternate call by call, so drift of the machine hits both alike.
  const seq: Record<Kind, { p50: number; p99: number }[]> = { rest: [], mcp: [] };
  for (let round = 1; round <= rounds; round++) {
    await quiet();
    const window = startWindow(await ownPids());
    const times = await sequential(target, calls, samples);
    const other = window.end();
    if (other !== null) otherLoad.push(other);
    for (const kind of KINDS) seq[kind].push({ p50: quantile(times[kind], 0.5), p99: quantile(times[kind], 0.99) });
    log(`round ${round}/${rounds} sequential (${samples} calls each): REST p50 ${ms(seq.rest[round - 1].p50)} ms p99 ${ms(seq.rest[round - 1].p99)} ms, MCP p50 ${ms(seq.mcp[round - 1].p50)} ms p99 ${ms(seq.mcp[round - 1].p99)} ms${otherNote(other)}`);
  }

  // Closed loop: each connection count, the kinds alternating run by run (each round starting with the other kind).
  const loops = new Map<string, { rps: number[]; cpu: number[]; p50: number[]; p99: number[]; calls: number }>();
  const key = (kind: Kind, connections: number) => `${kind}|${connections}`;
  for (let round = 1; round <= rounds; round++) {
    for (const connections of settings.connections) {
      for (const kind of KINDS.map((_, i) => KINDS[(i + round) % KINDS.length])) {
        await quiet();
        const before = await app.ask<{ micros: number }>('cpu');
        const window = startWindow(await ownPids());
        const r = await closedLoop(target, kind, calls, connections, seconds);
        const other = window.end();
        const after = await app.ask<{ micros: number }>('cpu');
        if (other !== null) otherLoad.push(other);
        const perCall = (after.micros - before.micros) / r.ok;
        const entry = loops.get(key(kind, connections)) ?? { rps: [], cpu: [], p50: [], p99: [], calls: 0 };
        entry.rps.push(r.rps);
        entry.cpu.push(perCall);
        entry.p50.push(r.p50);
        entry.p99.push(r.p99);
        entry.calls += r.ok;
        loops.set(key(kind, connections), entry);
        log(`round ${round}/${rounds} ${connections} conn ${LABEL[kind]}: ${rate(r.rps)} calls/s, server CPU ${Math.round(perCall)} µs/call, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms${otherNote(other)}`);
      }
    }
  }
  if (settings.profile) await profileKinds(app, target, calls);
  await app.stop();

  // ---- report ----
  const seqOf = (kind: Kind, q: 'p50' | 'p99') => median(seq[kind].map((s) => s[q]));
  const loopOf = (kind: Kind, connections: number) => loops.get(key(kind, connections))!;
  const m = (values: number[]) => median(values);
  const disturbed = otherLoad.length ? Math.max(...otherLoad) : 0;
  const seqRows = (['p50', 'p99'] as const).map((q) => [
    `sequential ${q} (1 connection)`,
    `${ms(seqOf('rest', q))} ms`,
    `${ms(seqOf('mcp', q))} ms`,
    `${us(seqOf('mcp', q) - seqOf('rest', q))} µs`,
    ratio(seqOf('mcp', q), seqOf('rest', q)),
  ]);
  const loopRows = settings.connections.flatMap((c) => {
    const rest = loopOf('rest', c);
    const mcp = loopOf('mcp', c);
    return [
      [`${c} conn: calls/s`, rate(m(rest.rps)), rate(m(mcp.rps)), `${Math.round(1e6 / m(mcp.rps) - 1e6 / m(rest.rps))} µs of 1/throughput`, ratio(m(mcp.rps), m(rest.rps))],
      [`${c} conn: server CPU µs/call`, String(Math.round(m(rest.cpu))), String(Math.round(m(mcp.cpu))), `${Math.round(m(mcp.cpu) - m(rest.cpu))} µs`, ratio(m(mcp.cpu), m(rest.cpu))],
      [`${c} conn: p50 / p99 ms`, `${ms(m(rest.p50))} / ${ms(m(rest.p99))}`, `${ms(m(mcp.p50))} / ${ms(m(mcp.p99))}`, `${us(m(mcp.p50) - m(rest.p50))} µs (p50)`, ratio(m(mcp.p50), m(rest.p50))],
    ];
  });
  const cpuOverhead = settings.connections.map((c) => m(loopOf('mcp', c).cpu) - m(loopOf('rest', c).cpu));
  console.log(`
== MCP get_customer beside REST GET /customers/{id} (issue 29) ==
${ids.length} customers, each call a different one in turn; raw keep-alive HTTP/1.1 for both (bench/lib/raw.ts), every answer checked
(200, the customer asked for; MCP: a result, not a tool or JSON-RPC error). MCP: POST /mcp, JSON-RPC tools/call, Accept: application/json,
text/event-stream, MCP-Protocol-Version ${PROTOCOL_VERSION} (stateless: no initialize, as the server allows). app = buildApp() in a child
process (bench/servers/app-server.ts, NODE_ENV=production, rate limits 10^9/min, pool 10), PostgreSQL ${pgVersion}.
Sequential: ${samples} calls per kind x ${rounds} rounds, alternating call by call on one connection (median of the rounds).
Closed loop: ${seconds} s per run, ${rounds} runs per kind and connection count (median), kinds alternating, after ${warmupSeconds} s warm-up each.

${table([['measure', 'REST', 'MCP', 'MCP overhead per call', 'MCP / REST'], ...seqRows, ...loopRows], (c) => c > 0)}

MCP overhead per call: ${us(seqOf('mcp', 'p50') - seqOf('rest', 'p50'))} µs of sequential p50 latency (${ratio(seqOf('mcp', 'p50'), seqOf('rest', 'p50'))}); ${cpuOverhead.map((o) => `${Math.round(o)} µs`).join(' / ')} of server CPU at ${settings.connections.join(' / ')} connections (${settings.connections.map((c) => ratio(m(loopOf('mcp', c).cpu), m(loopOf('rest', c).cpu))).join(' / ')})
${loadReport(loadBefore, disturbed, 'calls/s and latencies are unreliable, server CPU µs/call much less so')}
`);
}

runBench(main, cleanup);
