// npm run bench:limits — what the GraphQL cost limits (src/graphql/transport/limits.ts and its neighbours: lexing, cost analysis, the points
// charge, the result meter) cost: the same app started twice over one seeded database, with the limits (the default)
// and with buildApp({ graphqlLimits: false }), measured alternately on the dispatch board, a small GraphQL list and
// the REST list (which the limits do not touch: its figures show the noise floor). See bench/README.md.
//
// The two servers are bench/servers/app-server.ts processes, one with `limits: false`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { execute as executeGraphql } from '@graphql-tools/executor';
import { buildSchema as buildGraphqlSchema, parse as parseGraphql } from 'graphql';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { meterSchema, OperationCost } from '../src/graphql/schema/meter.ts';
import { startChild, type Child } from './lib/children.ts';
import { benchCleanup, runBench } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { BOARD, createDispatchAccount, DISPATCH, seedDispatch, WINDOW } from './lib/dispatch-seed.ts';
import type { Target } from './lib/http.ts';
import { startWindow, waitForQuiet, loadAverage, loadReport } from './lib/machine.ts';
import { categoryOf, PROFILER, selfTimeByGroup } from './lib/profile.ts';
import { openLoop, RawPool, type OpenLoopResult } from './lib/raw.ts';
import { median, ms, quantile, rate, table } from './lib/stats.ts';

const unlimited = 1_000_000_000;
const rateLimits = { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited };

// ---------------------------------------------------------------------------------------------------------------
// Server process: buildApp() on the bench database, with or without the GraphQL limits.

// ---------------------------------------------------------------------------------------------------------------
// Bench process.

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Sequential board requests per app. */
  samples: Number(env.BENCH_SAMPLES ?? 40),
  /** Seconds of each closed- and open-loop run. */
  seconds: Number(env.BENCH_SECONDS ?? 4),
  warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 3),
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  connections: Number(env.BENCH_CONNECTIONS ?? 16),
  openConnections: Number(env.BENCH_OPEN_CONNECTIONS ?? 64),
  /** Open-loop rate as a share of the LOWER of the two apps' max, the same rate for both. */
  openShare: Number(env.BENCH_OPEN_SHARE ?? 0.6),
  /** Total seconds the bench may wait for a quiet machine before measured runs (at most 10 s each; 0: never). */
  quietWaitSeconds: Number(env.BENCH_QUIET_WAIT_SECONDS ?? 30),
  /** unset: profile a GraphQL path whose CPU per request differs above noise; 1: always; 0: never. */
  profile: env.BENCH_PROFILE === '1' ? 'always' : env.BENCH_PROFILE === '0' ? 'never' : 'auto',
};
const REST_PATH = '/api/v2/customers?limit=25';
const SMALL = '{ customers(limit: 25) { nodes { id organization status } pageInfo { hasNextPage endCursor } } }';

let benchDb: BenchDatabase | null = null;
let setupApp: App | null = null;
let setupDatabase: Database | null = null;
let sqlClient: pg.Client | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app: setupApp, database: setupDatabase, sql: sqlClient }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

/** One request, keep-alive, as raw bytes (the raw client of bench/lib/raw.ts sends them as they are). */
function requestBytes(target: Target, method: 'GET' | 'POST', path: string, body?: string): Buffer {
  const headers = Object.entries(target.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body, 'utf8');
  const extra = body === undefined ? '' : `content-type: application/json\r\ncontent-length: ${payload.length}\r\n`;
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: ${target.host}:${target.port}\r\n${headers}${extra}\r\n`, 'latin1'), payload]);
}

interface Exchange {
  status: number;
  body: string;
  ms: number;
}

/** One request through node:http on a keep-alive agent; `ms` runs from dispatch to the last byte (the body is not parsed). */
function exchange(target: Target, agent: http.Agent, method: 'GET' | 'POST', path: string, body?: string): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string> = { ...target.headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    const req = http.request({ host: target.host, port: target.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface ClosedResult {
  rps: number;
  requests: number;
  failed: number;
}

/** Closed loop over the raw client: each connection sends its next request as soon as the answer is in. */
async function closedLoop(target: Target, request: Buffer, connections: number, seconds: number): Promise<ClosedResult> {
  const pool = await RawPool.open(target, connections);
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const reply = await pool.get(request);
          if (reply.status === 200) ok += 1;
          else failed += 1;
        }
      }),
    );
  } finally {
    pool.close();
  }
  return { rps: ok / ((performance.now() - started) / 1000), requests: ok, failed };
}

// ---------------------------------------------------------------------------------------------------------------
// Profile attribution: where the limits' time goes, from the stacks of a V8 CPU profile of the limits app.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The limits' own files: lexing, analysis, admission and the meter. */
const LIMITS_FILES = ['/src/graphql/transport/document-limits.ts', '/src/graphql/transport/analysis.ts', '/src/graphql/transport/limits.ts', '/src/graphql/schema/meter.ts'];
const isLimitsFile = (file: string) => LIMITS_FILES.some((name) => file.endsWith(name));
const GATE_FILE = '/src/graphql/transport/gate.ts';
const AREAS = {
  lex: 'lexing the document (documentRefusal)',
  analysis: 'cost analysis (analyzeOperation: plugin-complexity validate, aliases, depth)',
  charge: 'charging the points bucket (GraphqlGate.charge)',
  meter: 'result meter (resolver wrappers, OperationCost.count, their promise callbacks)',
  hooks: 'plugin hooks (onExecute, abort signal, extensions.cost report)',
} as const;
type Area = keyof typeof AREAS;

/**
 * CPU time by limits area, from the sampled stacks: a sample belongs to lexing / analysis / charge when such a frame
 * is on its stack (inclusive), to the meter or the hooks when its own frame, or the nearest JavaScript frame above a
 * native one, is a function of the limits' files (self time: the resolvers a wrapper calls are not its cost). Also the total
 * sampled time (idle and the profiler's own work excluded).
 */
interface Attribution {
  areas: Map<Area, number>;
  /** Sampled CPU time, idle and the profiler's own work excluded (µs). */
  total: number;
  profiler: number;
  /** Self time of limits.ts functions. */
  functions: Map<string, number>;
  /** Time under @graphql-tools/executor's promiseForObject (inclusive): with an abort signal it races each object's promise against it. */
  promiseForObject: number;
  /** Self time by package / src file / node module / V8 pseudo frame. */
  groups: Map<string, number>;
  /** The analysis's time by where it is spent (self time by package or file, under analyzeOperation). */
  analysisGroups: Map<string, number>;
}

function limitsTime(profile: Profile): Attribution {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const path = (url: string) => decodeURIComponent(url.replace(/^file:\/\//, ''));
  const memo = new Map<number, { area: Area | null; fn: string | null }>();
  const classify = (id: number): { area: Area | null; fn: string | null } => {
    const known = memo.get(id);
    if (known) return known;
    let inclusive: Area | null = null;
    let selfFn: string | null = null;
    let sawJs = false;
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      const file = path(frame.url);
      if (isLimitsFile(file) && frame.functionName === 'documentRefusal') inclusive = 'lex';
      else if (isLimitsFile(file) && frame.functionName === 'analyzeOperation') inclusive = 'analysis';
      else if (file.endsWith(GATE_FILE) && frame.functionName === 'charge') inclusive = 'charge';
      if (!sawJs && frame.url) {
        sawJs = true;
        if (isLimitsFile(file)) selfFn = frame.functionName || '(anonymous)';
      }
      if (inclusive) break;
    }
    let result: { area: Area | null; fn: string | null };
    if (inclusive) result = { area: inclusive, fn: null };
    else if (selfFn) {
      // The wrapper meterSchema installs (field.resolve), the meter's count, and the anonymous .then callbacks.
      const meter = selfFn === 'count' || selfFn === 'field.resolve' || selfFn === '(anonymous)';
      result = { area: meter ? 'meter' : 'hooks', fn: selfFn };
    } else result = { area: null, fn: null };
    memo.set(id, result);
    return result;
  };
  const racing = new Map<number, boolean>();
  const underPromiseForObject = (id: number): boolean => {
    const known = racing.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)!.callFrame;
    const parentId = parent.get(id);
    const result =
      (frame.functionName === 'promiseForObject' && frame.url.includes('/@graphql-tools/executor/')) || (parentId !== undefined && underPromiseForObject(parentId));
    racing.set(id, result);
    return result;
  };
  const areas = new Map<Area, number>();
  const functions = new Map<string, number>();
  let total = 0;
  let profiler = 0;
  let promiseForObject = 0;
  const analysisGroups = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const fn = node.callFrame.functionName;
    if (fn === '(idle)') return;
    const dt = profile.timeDeltas[i] ?? 0;
    if (categoryOf(groupOfFrame(node)) === PROFILER) {
      profiler += dt;
      return;
    }
    total += dt;
    const { area, fn: self } = classify(id);
    if (area) areas.set(area, (areas.get(area) ?? 0) + dt);
    if (area === 'analysis') analysisGroups.set(groupOfFrame(node), (analysisGroups.get(groupOfFrame(node)) ?? 0) + dt);
    if (self) functions.set(self, (functions.get(self) ?? 0) + dt);
    if (underPromiseForObject(id)) promiseForObject += dt;
  });
  const groups = new Map(selfTimeByGroup(profile).filter((g) => categoryOf(g.group) !== PROFILER).map((g) => [g.group, g.micros]));
  return { areas, total, profiler, functions, promiseForObject, groups, analysisGroups };
}

/** An npm package, a file under src/, a node module, a V8 pseudo frame / native function, or the file's path. */
function groupOfFrame(node: ProfileNode): string {
  const url = node.callFrame.url;
  if (!url) return node.callFrame.functionName;
  if (url.startsWith('node:')) return url.split('/')[0];
  const file = decodeURIComponent(url.replace(/^file:\/\//, ''));
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = file.indexOf('/src/');
  return src >= 0 ? file.slice(src + 1) : file;
}

// ---------------------------------------------------------------------------------------------------------------

interface Server {
  child: Child;
  target: Target;
  label: string;
}

async function main(): Promise<void> {
  const { seconds, rounds, connections } = settings;
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), database server ${new URL(settings.serverUrl).host}`);
  const loadBefore = loadAverage();
  log(`machine load average ${loadBefore}`);
  benchDb = await createBenchDatabase(settings.serverUrl);
  log(`created database ${benchDb.name}`);

  // ---- seed (the dispatch board data set) --------------------------------------------------------------------
  setupDatabase = await openDatabase({ url: benchDb.url, poolSize: 2 });
  setupApp = buildApp({ database: setupDatabase, config: loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: benchDb.url, HOST: '127.0.0.1' }), rateLimits });
  const { accountId, token, userIds } = await createDispatchAccount(setupApp.domain.admin);
  await setupApp.close();
  await setupDatabase.close();
  setupApp = null;
  setupDatabase = null;
  sqlClient = new pg.Client({ connectionString: benchDb.url });
  await sqlClient.connect();
  const seedStarted = performance.now();
  await seedDispatch(sqlClient, accountId, userIds);
  log(`seeded ${DISPATCH.customers} customers/sites/contacts, ${DISPATCH.jobs} jobs with assignments and lines in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

  // ---- the two apps -----------------------------------------------------------------------------------------
  const headers = { authorization: `Bearer ${token}` };
  const start = async (name: string, limits: boolean): Promise<Server> => {
    const child = await startChild(name, 'app-server.ts', { databaseUrl: benchDb!.url, limits });
    return { child, label: name, target: { name, host: '127.0.0.1', port: child.port, headers } };
  };
  const withLimits = await start('with limits', true);
  const without = await start('without', false);
  const servers = [withLimits, without];
  log(servers.map((s) => `${s.label} on :${s.child.port} (pid ${s.child.process.pid})`).join(', '));

  // Same data from both; the cost each reports.
  const boardBody = JSON.stringify({ query: BOARD, variables: WINDOW });
  const smallBody = JSON.stringify({ query: SMALL });
  const agents = new Map(servers.map((s) => [s.label, new http.Agent({ keepAlive: true, maxSockets: 1 })]));
  const costs = new Map<string, { board: unknown; small: unknown }>();
  let boardJobs = 0;
  {
    const seen: Record<string, string[]> = { board: [], small: [], rest: [] };
    for (const s of servers) {
      const agent = agents.get(s.label)!;
      const board = await exchange(s.target, agent, 'POST', '/graphql', boardBody);
      const small = await exchange(s.target, agent, 'POST', '/graphql', smallBody);
      const rest = await exchange(s.target, agent, 'GET', REST_PATH);
      for (const [name, reply] of [['board', board], ['small', small], ['rest', rest]] as const) {
        if (reply.status !== 200) throw new Error(`${s.label} ${name}: ${reply.status} ${reply.body.slice(0, 300)}`);
      }
      const b = JSON.parse(board.body) as { data?: { dispatchBoard: { jobs: unknown[] } }; errors?: unknown; extensions?: { cost?: unknown } };
      const m = JSON.parse(small.body) as { data?: unknown; errors?: unknown; extensions?: { cost?: unknown } };
      if (b.errors || m.errors) throw new Error(`${s.label}: GraphQL errors ${JSON.stringify(b.errors ?? m.errors).slice(0, 400)}`);
      boardJobs = b.data!.dispatchBoard.jobs.length;
      seen.board.push(JSON.stringify(b.data));
      // endCursor carries its issue time (kernel/cursor.ts): compared for presence only.
      seen.small.push(JSON.stringify(m.data, (key, value) => (key === 'endCursor' ? typeof value : value)));
      seen.rest.push(JSON.stringify((JSON.parse(rest.body) as { data: unknown }).data));
      costs.set(s.label, { board: b.extensions?.cost, small: m.extensions?.cost });
    }
    for (const [name, bodies] of Object.entries(seen)) if (bodies[0] !== bodies[1]) throw new Error(`${name}: the two apps answer different data`);
    if (boardJobs !== 1000) throw new Error(`the board served ${boardJobs} jobs, expected 1000`);
  }
  log(`both apps answer the same data: board ${boardJobs} jobs, customers(limit: 25), ${REST_PATH}`);

  // ---- machine noise ------------------------------------------------------------------------------------------
  const ownPids = async () => [
    process.pid,
    process.ppid,
    ...servers.map((s) => s.child.process.pid ?? 0),
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
  const note = (other: number | null) => {
    if (other !== null) otherLoad.push(other);
    return other === null ? '' : `; other processes ${Math.round(other * 100)}% of the machine`;
  };
  const cpu = async (s: Server) => (await s.child.ask<{ micros: number }>('cpu')).micros;

  // ---- 1. the board: sequential, alternating (the first of each pair alternates too) ---------------------------
  const boardOnce = async (s: Server) => {
    const reply = await exchange(s.target, agents.get(s.label)!, 'POST', '/graphql', boardBody);
    if (reply.status !== 200) throw new Error(`${s.label} board: ${reply.status}`);
    return reply.ms;
  };
  for (let i = 0; i < 5; i++) for (const s of servers) await boardOnce(s);
  await quiet();
  const boardTimes = new Map<string, number[]>(servers.map((s) => [s.label, []]));
  let window = startWindow(await ownPids());
  // Server CPU read at the start and after each third of the samples: per-third figures give the noise.
  const thirdEnds = [1, 2, 3].map((k) => Math.floor((k * settings.samples) / 3));
  const cpuMarks = [await Promise.all(servers.map(cpu))];
  for (let i = 0; i < settings.samples; i++) {
    for (const s of i % 2 === 0 ? servers : [...servers].reverse()) boardTimes.get(s.label)!.push(await boardOnce(s));
    if (thirdEnds.includes(i + 1)) cpuMarks.push(await Promise.all(servers.map(cpu)));
  }
  /** Server CPU µs per board request, per app (index as servers): the whole sample and each third. */
  const boardCpu = servers.map((_, k) => ({
    all: (cpuMarks[cpuMarks.length - 1][k] - cpuMarks[0][k]) / settings.samples,
    thirds: thirdEnds.map((end, t) => (cpuMarks[t + 1][k] - cpuMarks[t][k]) / (end - (t === 0 ? 0 : thirdEnds[t - 1]))),
  }));
  log(`board: ${settings.samples} sequential requests per app, alternating${note(window.end())}`);

  // ---- 2./3. closed loops (max throughput, server CPU per request), then open loops at the same rate ---------
  const paths = [
    { key: 'small', name: 'GraphQL customers(limit: 25)', bytes: (t: Target) => requestBytes(t, 'POST', '/graphql', smallBody) },
    { key: 'rest', name: `REST GET ${REST_PATH}`, bytes: (t: Target) => requestBytes(t, 'GET', REST_PATH) },
  ] as const;
  const requestOf = new Map<string, Buffer>();
  for (const p of paths) for (const s of servers) requestOf.set(`${p.key}|${s.label}`, p.bytes(s.target));
  const rotation = (round: number) => (round % 2 === 1 ? servers : [...servers].reverse());
  for (const p of paths) {
    for (const s of servers) await closedLoop(s.target, requestOf.get(`${p.key}|${s.label}`)!, connections, settings.warmupSeconds);
  }
  log(`warmed up both apps on both paths (${settings.warmupSeconds} s closed loop each)`);
  const closed = new Map<string, { rps: number[]; cpu: number[] }>();
  for (const p of paths) for (const s of servers) closed.set(`${p.key}|${s.label}`, { rps: [], cpu: [] });
  for (let round = 1; round <= rounds; round++) {
    for (const p of paths) {
      for (const s of rotation(round)) {
        await quiet();
        const before = await cpu(s);
        window = startWindow(await ownPids());
        const r = await closedLoop(s.target, requestOf.get(`${p.key}|${s.label}`)!, connections, seconds);
        const other = window.end();
        const after = await cpu(s);
        if (r.failed) throw new Error(`${s.label} ${p.name}: ${r.failed} failed requests in the closed loop`);
        const entry = closed.get(`${p.key}|${s.label}`)!;
        entry.rps.push(r.rps);
        entry.cpu.push((after - before) / r.requests);
        log(`closed loop ${round}/${rounds} ${p.key} ${s.label}: ${rate(r.rps)} req/s, server CPU ${Math.round(entry.cpu.at(-1)!)} µs/req${note(other)}`);
      }
    }
  }
  const openRate = new Map(paths.map((p) => [p.key, Math.max(1, Math.round(Math.min(...servers.map((s) => median(closed.get(`${p.key}|${s.label}`)!.rps))) * settings.openShare))]));
  const open = new Map<string, OpenLoopResult[]>();
  for (const p of paths) for (const s of servers) open.set(`${p.key}|${s.label}`, []);
  for (let round = 1; round <= rounds; round++) {
    for (const p of paths) {
      for (const s of rotation(round)) {
        await quiet();
        window = startWindow(await ownPids());
        const r = await openLoop(s.target, requestOf.get(`${p.key}|${s.label}`)!, openRate.get(p.key)!, seconds, settings.openConnections);
        const other = window.end();
        if (r.failed) throw new Error(`${s.label} ${p.name}: ${r.failed} failed requests in the open loop`);
        open.get(`${p.key}|${s.label}`)!.push(r);
        log(`open loop ${round}/${rounds} ${p.key} ${s.label} at ${rate(openRate.get(p.key)!)} req/s: p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms (dispatch lag p99 ${ms(r.lagP99)} ms)${note(other)}`);
      }
    }
  }

  // ---- report -----------------------------------------------------------------------------------------------
  /** Relative spread (max - min) / median of repeated measurements: the noise the difference is compared with. */
  const spread = (values: number[]) => (Math.max(...values) - Math.min(...values)) / median(values);
  const thirds = (values: number[], q: number) => [0, 1, 2].map((k) => quantile(values.slice(Math.floor((k * values.length) / 3), Math.floor(((k + 1) * values.length) / 3)), q));
  interface Row {
    path: string;
    metric: string;
    a: number;
    b: number;
    format: (v: number) => string;
    noise: number;
  }
  const rows: Row[] = [];
  const bt = (label: string) => boardTimes.get(label)!;
  const L = withLimits.label;
  const W = without.label;
  rows.push({ path: 'board (1,000 jobs)', metric: 'p50 ms', a: quantile(bt(L), 0.5), b: quantile(bt(W), 0.5), format: ms, noise: Math.max(spread(thirds(bt(L), 0.5)), spread(thirds(bt(W), 0.5))) });
  rows.push({ path: 'board (1,000 jobs)', metric: 'p99 ms', a: quantile(bt(L), 0.99), b: quantile(bt(W), 0.99), format: ms, noise: Math.max(spread(thirds(bt(L), 0.99)), spread(thirds(bt(W), 0.99))) });
  rows.push({
    path: 'board (1,000 jobs)', metric: 'server CPU ms/req', a: boardCpu[0].all / 1000, b: boardCpu[1].all / 1000, format: ms,
    noise: Math.max(spread(boardCpu[0].thirds), spread(boardCpu[1].thirds)),
  });
  for (const p of paths) {
    const c = (label: string) => closed.get(`${p.key}|${label}`)!;
    const o = (label: string) => open.get(`${p.key}|${label}`)!;
    rows.push({ path: p.name, metric: 'max req/s', a: median(c(L).rps), b: median(c(W).rps), format: rate, noise: Math.max(spread(c(L).rps), spread(c(W).rps)) });
    rows.push({ path: p.name, metric: 'server CPU µs/req', a: median(c(L).cpu), b: median(c(W).cpu), format: (v) => v.toFixed(0), noise: Math.max(spread(c(L).cpu), spread(c(W).cpu)) });
    for (const q of ['p50', 'p99'] as const) {
      rows.push({
        path: p.name, metric: `${q} ms at ${rate(openRate.get(p.key)!)} req/s`, a: median(o(L).map((r) => r[q])), b: median(o(W).map((r) => r[q])), format: ms,
        noise: Math.max(spread(o(L).map((r) => r[q])), spread(o(W).map((r) => r[q]))),
      });
    }
  }
  const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
  const disturbed = otherLoad.length ? Math.max(...otherLoad) : 0;
  console.log(`
== the cost of the GraphQL limits: the same app with and without (buildApp graphqlLimits: false), one database ==
board: ${settings.samples} sequential requests per app, alternating; closed loop: ${connections} connections, ${seconds} s x ${rounds} (median) after ${settings.warmupSeconds} s warm-up;
open loop: fixed schedule at ${Math.round(settings.openShare * 100)}% of the lower of the two maxes (the same rate for both), ${seconds} s x ${rounds} (median); runs alternate between the apps
noise = (max - min) / median of the repeated runs (the board: of the figures of each third of its samples), the larger of the two apps'

${table([
    ['path', 'metric', 'with limits', 'without', 'difference', '%', 'noise', 'above noise'],
    ...rows.map((r) => [
      r.path, r.metric, r.format(r.a), r.format(r.b), `${r.a - r.b >= 0 ? '+' : ''}${r.format(r.a - r.b)}`, pct((r.a - r.b) / r.b),
      Number.isFinite(r.noise) ? `±${(r.noise * 100).toFixed(1)}%` : '-', Number.isFinite(r.noise) ? (Math.abs((r.a - r.b) / r.b) > r.noise ? 'yes' : 'no') : '-',
    ]),
  ], (c) => c >= 2 && c <= 6)}

extensions.cost of the board, with limits: ${JSON.stringify(costs.get(L)!.board)}
extensions.cost of the board, without:     ${JSON.stringify(costs.get(W)!.board)}
extensions.cost of customers(limit: 25), with limits: ${JSON.stringify(costs.get(L)!.small)}
${loadReport(loadBefore, disturbed, 'req/s and latencies are unreliable, server CPU µs/req much less so')}`);

  // ---- profile: where the limits' time goes --------------------------------------------------------------------
  const cpuRow = (path: string) => rows.find((r) => r.path.startsWith(path) && r.metric.startsWith('server CPU'))!;
  const smallCpu = cpuRow('GraphQL');
  const boardCpuRow = cpuRow('board');
  const aboveNoise = (r: Row) => Math.abs((r.a - r.b) / r.b) > r.noise;
  const toProfile = [
    { key: 'board', name: 'board', row: boardCpuRow },
    { key: 'small', name: 'GraphQL customers(limit: 25)', row: smallCpu },
  ].filter((p) => settings.profile === 'always' || (settings.profile === 'auto' && aboveNoise(p.row)));
  // REST is the control: it runs no limits code, so any difference it shows is the machine's, not the limits'.
  const restRows = rows.filter((r) => r.path.startsWith('REST') && Number.isFinite(r.noise) && aboveNoise(r));
  if (restRows.length) {
    console.log(`\nnote: the REST control differs "above noise" (${restRows.map((r) => `${r.metric} ${pct((r.a - r.b) / r.b)}`).join(', ')}); REST runs no limits code, so differences of that size elsewhere are this machine's noise, not the limits'`);
  }
  if (toProfile.length === 0) {
    console.log(`\nno GraphQL path differs above noise in server CPU per request: not profiled (BENCH_PROFILE=1 forces it)`);
    return;
  }
  const profileDir = mkdtempSync(join(os.tmpdir(), 'fl-bench-limits-profile-'));
  for (const p of toProfile) {
    const perApp = new Map<string, { cpuPerRequest: number; attribution: Attribution; profile: Profile }>();
    for (const s of servers) {
      await quiet();
      await s.child.ask('profile', { action: 'start' });
      const before = await cpu(s);
      let requests: number;
      if (p.key === 'board') {
        requests = Math.max(10, Math.round(settings.samples / 3));
        for (let i = 0; i < requests; i++) await boardOnce(s);
      } else {
        requests = (await closedLoop(s.target, requestOf.get(`small|${s.label}`)!, connections, seconds)).requests;
      }
      const after = await cpu(s);
      const { profile } = await s.child.ask<{ profile: Profile }>('profile', { action: 'stop' });
      perApp.set(s.label, { cpuPerRequest: (after - before) / requests, attribution: limitsTime(profile), profile });
    }
    const mine = perApp.get(L)!;
    const base = perApp.get(W)!;
    const board = p.key === 'board';
    const unitName = board ? 'ms' : 'µs';
    const fmt = (micros: number) => (board ? (micros / 1000).toFixed(2) : micros.toFixed(1));
    const signed = (micros: number) => `${micros >= 0 ? '+' : ''}${fmt(micros)}`;
    // Profile shares applied to the CPU per request measured over the same profiled run, the profiler's own work removed.
    const cpuOf = (app: typeof mine) => app.cpuPerRequest * (app.attribution.total / (app.attribution.total + app.attribution.profiler));
    const scale = (app: typeof mine, t: number) => (t / app.attribution.total) * cpuOf(app);
    const attributed = [...mine.attribution.areas.values()].reduce((a, b) => a + b, 0);
    const measuredDiff = board ? (p.row.a - p.row.b) * 1000 : p.row.a - p.row.b;
    const groupNames = [...new Set([...mine.attribution.groups.keys(), ...base.attribution.groups.keys()])];
    const groupDiffs = groupNames
      .map((g) => ({ g, a: scale(mine, mine.attribution.groups.get(g) ?? 0), b: scale(base, base.attribution.groups.get(g) ?? 0) }))
      .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b))
      .slice(0, 8);
    writeFileSync(join(profileDir, `${p.key}-with-limits.cpuprofile`), JSON.stringify(mine.profile));
    writeFileSync(join(profileDir, `${p.key}-without.cpuprofile`), JSON.stringify(base.profile));
    console.log(`
== where the limits' time goes: ${p.name} (V8 sampling profiles, 200 µs interval; ${unitName} of server CPU per request) ==
profiled runs: with limits ${fmt(cpuOf(mine))} ${unitName}/req, without ${fmt(cpuOf(base))} ${unitName}/req (profiler's own work removed; profiled runs are short, so this difference is rougher than the measured ${signed(measuredDiff)} ${unitName}/req above)
${table([
      ['area', 'with limits', 'without', 'difference'],
      ...(Object.keys(AREAS) as Area[]).map((area) => {
        const t = scale(mine, mine.attribution.areas.get(area) ?? 0);
        return [AREAS[area], fmt(t), '-', signed(t)];
      }),
      ['all limits.ts / gate charge code on the stacks', fmt(scale(mine, attributed)), '-', signed(scale(mine, attributed))],
      [
        'executor promiseForObject (inclusive; with an abort signal each object races it)',
        fmt(scale(mine, mine.attribution.promiseForObject)),
        fmt(scale(base, base.attribution.promiseForObject)),
        signed(scale(mine, mine.attribution.promiseForObject) - scale(base, base.attribution.promiseForObject)),
      ],
    ])}
cost analysis by package (${unitName}/req): ${[...mine.attribution.analysisGroups.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([g, t]) => `${g} ${fmt(scale(mine, t))}`).join(', ') || 'none sampled'} (graphql = the validate() walk with TypeInfo that hosts the complexity rule)
limits.ts functions by self time (${unitName}/req): ${[...mine.attribution.functions.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([fn, t]) => `${fn} ${fmt(scale(mine, t))}`).join(', ') || 'none sampled'}
measured difference not on the limits' own stacks: ${signed(measuredDiff - scale(mine, attributed))} ${unitName}/req (executor work the abort signal adds, extra promise reactions, garbage collection, noise)
self time by package / file, largest differences (${unitName}/req):
${table([['where', 'with limits', 'without', 'difference'], ...groupDiffs.map((d) => [d.g, fmt(d.a), fmt(d.b), signed(d.a - d.b)])])}`);
    if (board) await executorSplit();
  }
  console.log(`\nprofiles: ${profileDir}`);
}

/**
 * The execution overhead of the limits split in two, without the database or HTTP (in this process, a synthetic
 * schema shaped like the board: 1,000 jobs, each with 5 relations resolved through promises as the loaders do):
 * the result meter (meterSchema's resolver wrappers counting into OperationCost) and the abort signal the limits
 * plugin hands to the executor (the meter's: yoga passes no request signal of its own), each alone and both.
 */
async function executorSplit(): Promise<void> {
  const sdl = `type Query { jobs: [Job!]! }
    type Job { id: ID! number: String status: String title: String scheduledStart: String scheduledEnd: String amount: String
               customer: Customer site: Site contact: Contact assignees: [User!]! lineitems: [Line!]! }
    type Customer { id: ID! organization: String }
    type Site { id: ID! siteName: String street: String city: String state: String zipCode: String }
    type Contact { id: ID! firstName: String lastName: String mobile: String }
    type User { id: ID! name: String email: String role: String }
    type Line { id: ID! description: String quantity: String unitPrice: String discount: String lineTotal: String taxAmount: String }`;
  const plain = buildGraphqlSchema(sdl);
  const metered = meterSchema(buildGraphqlSchema(sdl));
  const customer = { id: 'c', organization: 'Dispatch Customer 1' };
  const site = { id: 's', siteName: 'Site of Dispatch Customer 1', street: '1 Main St', city: 'Springfield', state: 'IL', zipCode: '62701' };
  const contact = { id: 'k', firstName: 'Pat', lastName: 'Contact 1', mobile: '+1 555 1' };
  const user = { id: 'u', name: 'Tech 1', email: 'tech1@bench.invalid', role: 'technician' };
  const line = { id: 'l', description: 'Line 0', quantity: '1', unitPrice: '25.5', discount: '0', lineTotal: '25.5', taxAmount: '0' };
  const jobs = Array.from({ length: 1000 }, (_, i) => ({
    id: `j${i}`, number: String(i), status: 'Scheduled', title: `Service visit ${i}`, scheduledStart: '2031-01-27T00:00:00.000Z', scheduledEnd: '2031-01-27T02:00:00.000Z', amount: '76.5',
    customer: () => Promise.resolve(customer), site: () => Promise.resolve(site), contact: () => Promise.resolve(contact),
    assignees: () => Promise.resolve(i % 2 ? [user] : [user, user]), lineitems: () => Promise.resolve(i % 2 ? [line, line, line] : [line, line]),
  }));
  const document = parseGraphql(`{ jobs { id number status title scheduledStart scheduledEnd amount customer { id organization }
    site { id siteName street city state zipCode } contact { id firstName lastName mobile } assignees { nodes { id name email role } }
    lineitems { id description quantity unitPrice discount lineTotal taxAmount } } }`);
  const variants: [string, () => unknown][] = [
    ['neither (as without limits)', () => executeGraphql({ schema: plain, document, rootValue: { jobs } })],
    ['meter only', () => executeGraphql({ schema: metered, document, rootValue: { jobs }, contextValue: { cost: new OperationCost() } })],
    // yoga gives the plugin no request signal (no useExecutionCancellation), so the executor gets the meter's own.
    ['abort signal only', () => executeGraphql({ schema: plain, document, rootValue: { jobs }, signal: new AbortController().signal })],
    ['meter and signal (as with limits)', () => {
      const cost = new OperationCost();
      return executeGraphql({ schema: metered, document, rootValue: { jobs }, contextValue: { cost }, signal: cost.signal });
    }],
  ];
  const wall = variants.map(() => [] as number[]);
  const cpuMs = variants.map(() => [] as number[]);
  for (let i = 0; i < 10; i++) for (const [, run] of variants) await run();
  const runs = 40;
  for (let i = 0; i < runs; i++) {
    for (const [k, [, run]] of variants.entries()) {
      const cpuBefore = process.cpuUsage();
      const t0 = performance.now();
      await run();
      wall[k].push(performance.now() - t0);
      const used = process.cpuUsage(cpuBefore);
      cpuMs[k].push((used.user + used.system) / 1000);
    }
  }
  const base = median(cpuMs[0]);
  const signedMs = (v: number) => `${v >= 0 ? '+' : ''}${ms(v)}`;
  console.log(`
executor overhead of the limits alone (in the bench process, no database/HTTP: a board-shaped synthetic schema, 1,000 jobs with 5
promise-resolved relations each, @graphql-tools/executor as yoga runs it; ${runs} alternating runs, medians; CPU time is the figure
to read, wall time stretches when other work shares the machine):
${table([
    ['variant', 'CPU ms per execution', 'difference', '%', 'wall ms'],
    ...variants.map(([name], k) => {
      const v = median(cpuMs[k]);
      return [name, ms(v), k === 0 ? '-' : signedMs(v - base), k === 0 ? '-' : `${v >= base ? '+' : ''}${(((v - base) / base) * 100).toFixed(1)}%`, ms(median(wall[k]))];
    }),
  ])}`);
}

// ---------------------------------------------------------------------------------------------------------------
runBench(main, cleanup);
