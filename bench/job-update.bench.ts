// npm run bench:mutations — one job update through each API of the real app, in the same run: GraphQL
// `updateJob(id, ifMatch, input: { title })` beside REST `PATCH /api/v2/jobs/{id}` with If-Match and
// `{"job": {"title": ...}}`, on a PostgreSQL database of its own. Closed loop, the two kinds alternating in rounds;
// each connection owns one job and carries its ETag forward, so every request is a real, successful update.
// Reports req/s, server CPU µs per request (over IPC), p50/p99 and the GraphQL / REST ratio of CPU per request.
// See bench/README.md ("Job update") for the method and the knobs.
//
// This file uses only bench/lib and bench/servers modules and src/ exports that are the same at commit fae813e, so
// it runs unchanged in a worktree of that commit (the before/after comparison of the issue).
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
import { median, ms, quantile, rate, table } from './lib/stats.ts';

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Seconds of each measured run. */
  seconds: Number(env.BENCH_SECONDS ?? 8),
  warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 3),
  rounds: Number(env.BENCH_ROUNDS ?? 3),
  /** Closed-loop connections per kind; each owns one job. */
  connections: Number(env.BENCH_CONNECTIONS ?? 8),
  /** Total seconds the bench may wait for a quiet machine before measured runs (at most 10 s before each; 0: never). */
  quietWaitSeconds: Number(env.BENCH_QUIET_WAIT_SECONDS ?? 30),
};
const unlimited = 1_000_000_000;
/** Jobs beyond the connections' own: the setup checks (stale ETags refused, ETags shared by the two APIs). */
const SPARE_JOBS = 4;
const HOST = '127.0.0.1';

const UPDATE_JOB = `mutation($id: ID!, $ifMatch: String!, $input: UpdateJobInput!) {
  updateJob(id: $id, ifMatch: $ifMatch, input: $input) { job { id title etag } userErrors { field message code } }
}`;

type Kind = 'rest' | 'graphql';
const KINDS: Kind[] = ['rest', 'graphql'];
const LABEL: Record<Kind, string> = {
  rest: 'REST PATCH /api/v2/jobs/{id}',
  graphql: 'GraphQL updateJob',
};

// ---------------------------------------------------------------------------------------------------------------
// Cleanup: the database is dropped and the child stopped on success, failure and SIGINT/SIGTERM.
let benchDb: BenchDatabase | null = null;
let setupApp: App | null = null;
let setupDatabase: Database | null = null;
let sqlClient: pg.Client | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app: setupApp, database: setupDatabase, sql: sqlClient }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

// ---------------------------------------------------------------------------------------------------------------
// A minimal keep-alive HTTP/1.1 client on a raw socket (as bench/lib/raw.ts, whose pool returns the status only):
// one request in flight, and the answer's status, ETag header and body. Answers must carry Content-Length.

interface Reply {
  status: number;
  etag: string | undefined;
  body: string;
}

class Connection {
  private chunks: Buffer[] = [];
  private received = 0;
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | null = null;
  private failure: Error | null = null;

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

  send(request: Buffer): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(request);
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

function requestBytes(method: string, path: string, port: number, token: string, body: string, extra = ''): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const bodyHeaders = payload.length ? `Content-Type: application/json\r\nContent-Length: ${payload.length}\r\n` : '';
  const head = `${method} ${path} HTTP/1.1\r\nHost: ${HOST}:${port}\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\n${bodyHeaders}${extra}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

// ---------------------------------------------------------------------------------------------------------------
// One update of each kind: the request, and the check of its answer (the job's new ETag, or what went wrong).

interface Job {
  id: string;
  etag: string;
  /** The title the last successful update set. */
  title: string;
}

function updateRequest(kind: Kind, job: Job, title: string, port: number, token: string): Buffer {
  if (kind === 'rest') {
    return requestBytes('PATCH', `/api/v2/jobs/${job.id}`, port, token, JSON.stringify({ job: { title } }), `If-Match: ${job.etag}\r\n`);
  }
  const body = JSON.stringify({ query: UPDATE_JOB, variables: { id: job.id, ifMatch: job.etag, input: { title } } });
  return requestBytes('POST', '/graphql', port, token, body);
}

/** The job's new ETag when the answer is a successful update to `title`; otherwise an Error saying why. */
function checkUpdate(kind: Kind, job: Job, title: string, reply: Reply): string | Error {
  const wrong = (why: string) => new Error(`${LABEL[kind]} on job ${job.id}: ${why}: ${reply.status} ${reply.body.slice(0, 300)}`);
  if (reply.status !== 200) return wrong('status');
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.body);
  } catch {
    return wrong('body is not JSON');
  }
  let etag: string | undefined;
  let written: { id?: string; title?: string } | undefined;
  if (kind === 'rest') {
    etag = reply.etag;
    written = (parsed as { data?: { id?: string; title?: string } }).data;
  } else {
    const answer = parsed as {
      data?: { updateJob?: { job?: { id?: string; title?: string; etag?: string } | null; userErrors?: unknown[] } | null };
      errors?: unknown[];
    };
    if (answer.errors?.length) return wrong('GraphQL errors');
    const payload = answer.data?.updateJob;
    if (!payload) return wrong('no updateJob payload');
    if (!Array.isArray(payload.userErrors) || payload.userErrors.length) return wrong('userErrors');
    etag = payload.job?.etag;
    written = payload.job ?? undefined;
  }
  if (written?.id !== job.id || written?.title !== title) return wrong(`the job written is not ${job.id} titled "${title}"`);
  if (!etag) return wrong('no new ETag');
  if (etag === job.etag) return wrong('the ETag did not change');
  return etag;
}

// ---------------------------------------------------------------------------------------------------------------
// Closed loop: one connection per job, each sending its next update when the previous answer is read and checked.

interface RunResult {
  rps: number;
  ok: number;
  failed: number;
  failures: string[];
  p50: number;
  p99: number;
}

let titleSeq = 0;

async function closedLoop(kind: Kind, jobs: Job[], seconds: number, port: number, token: string): Promise<RunResult> {
  const connections = await Promise.all(jobs.map(() => Connection.open(port)));
  const latencies: number[] = [];
  const failures: string[] = [];
  let failed = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  try {
    await Promise.all(
      jobs.map(async (job, i) => {
        const connection = connections[i];
        while (performance.now() < until) {
          const title = `Bench ${kind} ${i} #${++titleSeq}`;
          const request = updateRequest(kind, job, title, port, token);
          const sent = performance.now();
          let outcome: string | Error;
          try {
            outcome = checkUpdate(kind, job, title, await connection.send(request));
          } catch (error) {
            outcome = new Error(`${LABEL[kind]} on job ${job.id}: ${(error as Error).message}`);
          }
          if (outcome instanceof Error) {
            // The job's ETag is unknown from here on: this connection stops, and the bench fails after the run.
            failed += 1;
            if (failures.length < 5) failures.push(outcome.message);
            return;
          }
          latencies.push(performance.now() - sent);
          job.etag = outcome;
          job.title = title;
        }
      }),
    );
  } finally {
    for (const connection of connections) connection.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  return { rps: latencies.length / elapsed, ok: latencies.length, failed, failures, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99) };
}

// ---------------------------------------------------------------------------------------------------------------
// Setup: the account through the domain's admin (an app in this process that never listens), then the customer, its
// site and the jobs through the REST API of the server under test.

interface Seeded {
  token: string;
  jobs: Record<Kind, Job[]>;
  spare: Job[];
}

async function setup(db: BenchDatabase, port: () => number): Promise<{ token: string; seed: () => Promise<Seeded> }> {
  setupDatabase = await openDatabase({ url: db.url, poolSize: 2 }); // applies the migrations
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: db.url, HOST });
  setupApp = buildApp({ database: setupDatabase, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited } });
  const created = await setupApp.domain.admin.createAccount({ name: 'Bench Job Updates Ltd' });
  await setupApp.close();
  await setupDatabase.close();
  setupApp = null;
  setupDatabase = null;
  const token = created.key.token;

  const post = async (path: string, body: object): Promise<{ id: string; etag: string; title?: string }> => {
    const res = await fetch(`http://${HOST}:${port()}/api/v2${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    const data = (JSON.parse(text) as { data: { id: string; title?: string } }).data;
    return { id: data.id, etag: res.headers.get('etag') ?? '', title: data.title };
  };
  const seed = async (): Promise<Seeded> => {
    const customer = await post('/customers', { customer: { organization: 'Bench Job Updates Customer' } });
    const site = await post('/sites', {
      site: { site_name: 'Bench Site', street: '1 Bench Street', city: 'Springfield', state: 'IL', siteable_id: customer.id, siteable_type: 'Customer' },
    });
    const newJob = async (title: string): Promise<Job> => {
      const job = await post('/jobs', { job: { customer_id: customer.id, site_id: site.id, title } });
      if (!job.etag) throw new Error('POST /jobs answered without an ETag');
      return { id: job.id, etag: job.etag, title };
    };
    const jobs: Record<Kind, Job[]> = { rest: [], graphql: [] };
    for (const kind of KINDS) for (let i = 0; i < settings.connections; i++) jobs[kind].push(await newJob(`Bench ${kind} ${i}`));
    const spare: Job[] = [];
    for (let i = 0; i < SPARE_JOBS; i++) spare.push(await newJob(`Bench spare ${i}`));
    return { token, jobs, spare };
  };
  return { token, seed };
}

/** One request on a connection of its own (setup and final checks). */
async function once(port: number, request: Buffer): Promise<Reply> {
  const connection = await Connection.open(port);
  try {
    return await connection.send(request);
  } finally {
    connection.close();
  }
}

/**
 * Before loading: each kind refuses a stale ETag (so the loop measures updates that check If-Match), and whether
 * an ETag one API hands out is accepted by the other (informative).
 */
async function setupChecks(port: number, token: string, spare: Job[]): Promise<string> {
  const [a, b] = spare;
  for (const kind of KINDS) {
    const job = kind === 'rest' ? a : b;
    const fresh = `Bench check ${kind}`;
    const next = checkUpdate(kind, job, fresh, await once(port, updateRequest(kind, job, fresh, port, token)));
    if (next instanceof Error) throw next;
    const stale = { ...job };
    const refused = await once(port, updateRequest(kind, stale, 'Bench stale', port, token));
    const ok =
      kind === 'rest'
        ? refused.status === 412
        : refused.status === 200 && /"code":"precondition\.failed"/.test(refused.body);
    if (!ok) throw new Error(`${LABEL[kind]} with a stale If-Match was not refused as precondition.failed: ${refused.status} ${refused.body.slice(0, 300)}`);
    job.etag = next;
    job.title = fresh;
  }
  // ETags across the APIs: REST's into GraphQL, then GraphQL's into REST.
  const c = spare[2];
  let note = 'yes';
  for (const kind of ['graphql', 'rest'] as Kind[]) {
    const title = `Bench cross ${kind}`;
    const next = checkUpdate(kind, c, title, await once(port, updateRequest(kind, c, title, port, token)));
    if (next instanceof Error) {
      note = `no (${next.message.slice(0, 200)})`;
      break;
    }
    c.etag = next;
    c.title = title;
  }
  return note;
}

/** After loading: every job reads back (REST GET) with the title and the ETag of its last successful update. */
async function finalCheck(port: number, token: string, jobs: Record<Kind, Job[]>): Promise<string> {
  const etagMismatch: string[] = [];
  for (const kind of KINDS) {
    for (const job of jobs[kind]) {
      const reply = await once(port, requestBytes('GET', `/api/v2/jobs/${job.id}`, port, token, ''));
      if (reply.status !== 200) throw new Error(`GET /api/v2/jobs/${job.id} answered ${reply.status}: ${reply.body.slice(0, 300)}`);
      const title = (JSON.parse(reply.body) as { data: { title: string } }).data.title;
      if (title !== job.title) throw new Error(`job ${job.id} (${kind}) reads back titled "${title}", its last update set "${job.title}"`);
      if (reply.etag !== job.etag) etagMismatch.push(`${kind} ${job.id}: GET ${reply.etag}, last answer ${job.etag}`);
    }
  }
  return etagMismatch.length ? `ETag differs from the last answer's on ${etagMismatch.length} jobs (first: ${etagMismatch[0]})` : 'each ETag is the last answer\'s';
}

// ---------------------------------------------------------------------------------------------------------------
function otherNote(other: number | null): string {
  return other === null ? '' : `; other processes ${Math.round(other * 100)}% of the machine`;
}

/** (max - min) / median, as a ± percentage. */
function noise(values: number[]): string {
  if (values.length < 2) return 'n/a';
  return `±${(((Math.max(...values) - Math.min(...values)) / median(values)) * 100).toFixed(0)}%`;
}

async function main(): Promise<void> {
  const { seconds, rounds, connections, warmupSeconds } = settings;
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), database server ${new URL(settings.serverUrl).host}`);
  const loadBefore = loadAverage();
  log(`machine load average ${loadBefore}`);
  benchDb = await createBenchDatabase(settings.serverUrl);
  log(`created database ${benchDb.name}`);
  let app: Child | null = null;
  const { token, seed } = await setup(benchDb, () => app!.port);
  sqlClient = new pg.Client({ connectionString: benchDb.url });
  await sqlClient.connect();
  const pgVersion = (await sqlClient.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;

  app = await startChild('app', 'app-server.ts', { databaseUrl: benchDb.url });
  const port = app.port;
  log(`PostgreSQL ${pgVersion}; app on :${port} (pid ${app.process.pid})`);
  const { jobs, spare } = await seed();
  log(`seeded one customer with a site and ${connections * 2 + SPARE_JOBS} jobs through POST /api/v2/jobs (${connections} per kind, ${SPARE_JOBS} spare)`);
  const crossEtags = await setupChecks(port, token, spare);
  log(`both APIs refuse a stale If-Match (412 / userErrors precondition.failed); an ETag of one API accepted by the other: ${crossEtags}`);

  const ownPids = async () => [
    process.pid,
    process.ppid,
    app!.process.pid ?? 0,
    ...(await sqlClient!.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((r) => r.pid),
  ];
  let waitBudget = settings.quietWaitSeconds * 1000;
  const quiet = async () => {
    if (waitBudget <= 0) return;
    const waited = await waitForQuiet(ownPids, Math.min(10_000, waitBudget));
    waitBudget -= waited;
    if (waited > 1500) log(`waited ${(waited / 1000).toFixed(0)} s for other work on the machine to calm down`);
  };
  const failIf = (kind: Kind, r: RunResult, what: string) => {
    if (r.failed || r.ok === 0) {
      throw new Error(`${LABEL[kind]}: ${r.failed} failed updates and ${r.ok} successful ones in the ${what}:\n  ${r.failures.join('\n  ')}`);
    }
  };

  for (const kind of KINDS) {
    const r = await closedLoop(kind, jobs[kind], warmupSeconds, port, token);
    failIf(kind, r, 'warm-up');
    log(`warmed up ${LABEL[kind]} (${warmupSeconds} s closed loop, ${rate(r.rps)} req/s)`);
  }

  const runs = new Map<Kind, RunResult[]>(KINDS.map((k) => [k, []]));
  const cpu = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
  const otherLoad: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    // Each round starts with the other kind, so drift of a busy machine hits both alike.
    for (const kind of KINDS.map((_, i) => KINDS[(i + round) % KINDS.length])) {
      await quiet();
      const before = await app.ask<{ micros: number }>('cpu');
      const window = startWindow(await ownPids());
      const r = await closedLoop(kind, jobs[kind], seconds, port, token);
      const other = window.end();
      const after = await app.ask<{ micros: number }>('cpu');
      failIf(kind, r, `measured run ${round}`);
      const perRequest = (after.micros - before.micros) / r.ok;
      runs.get(kind)!.push(r);
      cpu.get(kind)!.push(perRequest);
      if (other !== null) otherLoad.push(other);
      log(`round ${round}/${rounds} ${LABEL[kind]}: ${rate(r.rps)} req/s, server CPU ${Math.round(perRequest)} µs/req, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms (${r.ok} updates)${otherNote(other)}`);
    }
  }
  const readBack = await finalCheck(port, token, jobs);
  log(`every job reads back with its last title; ${readBack}`);

  // ---- report --------------------------------------------------------------------------------------------------
  const of = (kind: Kind) => runs.get(kind)!;
  const rps = (kind: Kind) => median(of(kind).map((r) => r.rps));
  const cpuOf = (kind: Kind) => median(cpu.get(kind)!);
  const total = (kind: Kind) => of(kind).reduce((sum, r) => sum + r.ok, 0);
  const pairedCpu = median(cpu.get('graphql')!.map((g, i) => g / cpu.get('rest')![i]));
  const pairedRps = median(of('graphql').map((g, i) => g.rps / of('rest')[i].rps));
  const disturbed = otherLoad.length ? Math.max(...otherLoad) : 0;
  console.log(`
== job update: ${LABEL.graphql} beside ${LABEL.rest} ==
closed loop: ${connections} connections per kind, each updating its own job's title with its current ETag (If-Match / ifMatch);
${seconds} s x ${rounds} runs per kind (median), kinds alternating, after ${warmupSeconds} s warm-up each. Every answer checked: 200, no
errors or userErrors, the title written and a new ETag. app = buildApp() in a child process (bench/servers/app-server.ts,
NODE_ENV=production, rate limits and the GraphQL points budget 10^9/min, pool 10). p50/p99 are under saturation.

${table([
    ['kind', 'req/s (median)', 'runs', 'server CPU µs/req (median)', 'runs', 'noise', 'p50 ms', 'p99 ms', 'updates', 'failed'],
    ...KINDS.map((kind) => [
      LABEL[kind],
      rate(rps(kind)),
      of(kind).map((r) => rate(r.rps)).join(' / '),
      String(Math.round(cpuOf(kind))),
      cpu.get(kind)!.map((c) => String(Math.round(c))).join(' / '),
      noise(cpu.get(kind)!),
      ms(median(of(kind).map((r) => r.p50))),
      ms(median(of(kind).map((r) => r.p99))),
      total(kind).toLocaleString('en-US'),
      '0',
    ]),
  ])}

GraphQL / REST server CPU per update: ${(cpuOf('graphql') / cpuOf('rest')).toFixed(2)}x (ratio of medians; median of the ${rounds} per-round ratios ${pairedCpu.toFixed(2)}x); GraphQL spends ${Math.round(cpuOf('graphql') - cpuOf('rest'))} µs more per update
GraphQL / REST throughput: ${(rps('graphql') / rps('rest')).toFixed(2)}x (median of per-round ratios ${pairedRps.toFixed(2)}x)
${loadReport(loadBefore, disturbed, 'req/s and latencies are unreliable, server CPU µs/req much less so')}
`);
}

runBench(main, cleanup);
