// npm run bench:recurring — recurring generation at the size of the issue: a year of weekly occurrences for 1,000
// recurring jobs (52,000 jobs) in one sweep, beside a plain createMany of the same rows as the baseline, in one run.
// Reports wall time, occurrences/s, µs and statements per occurrence, the CPU of this process and of the database
// backends, and the machine load. See bench/README.md ("Recurring generation") for the method and the knobs.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Prisma } from '../src/generated/prisma/client.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { addDays, calendarDateIn } from '../src/kernel/dates.ts';
import { newId } from '../src/kernel/ids.ts';
import { benchCleanup, runBench } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { loadAverage, loadReport, startWindow, waitForQuiet } from './lib/machine.ts';
import { categoryOf, selfTimeByGroup, type CpuProfile } from './lib/profile.ts';
import { rate, table } from './lib/stats.ts';

const env = process.env;
const settings = {
  serverUrl: env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  /** Which databases, in order: postgresql (a fl_bench_* database on BENCH_DATABASE_URL), pglite (in memory). */
  databases: (env.BENCH_DATABASES ?? 'postgresql').split(',').map((d) => d.trim()).filter(Boolean),
  /** Recurring jobs (52 occurrences each); default the issue's 1,000 on PostgreSQL, 100 on the embedded database. */
  templates: (kind: string) => Number(env.BENCH_TEMPLATES ?? (kind === 'pglite' ? 100 : 1000)),
  /** Rows per createMany batch of the baseline (its jobs and their line items in one transaction). */
  batch: Number(env.BENCH_BATCH ?? 1000),
  /** 1: after the measured runs, a sweep of BENCH_PROFILE_TEMPLATES more templates and its baseline, under the V8 profiler. */
  profile: env.BENCH_PROFILE === '1',
  profileTemplates: Number(env.BENCH_PROFILE_TEMPLATES ?? 100),
  /** Seconds the bench may wait for a quiet machine before each measured run (0: never). */
  quietWaitSeconds: Number(env.BENCH_QUIET_WAIT_SECONDS ?? 20),
  /** PostgreSQL: auto (default) does autovacuum's analyze while the server's autovacuum is off; 1 always, 0 never. */
  autoAnalyze: env.BENCH_AUTOANALYZE ?? 'auto',
};
const WEEKS = 52;
/** today + 364 days holds exactly 52 Mondays after today: each template has 52 occurrences due. */
const HORIZON = 7 * WEEKS;
const unlimited = 1_000_000_000;
const HOST = '127.0.0.1';

let benchDb: BenchDatabase | null = null;
let app: App | null = null;
let database: Database | null = null;
let server: http.Server | null = null;
let analyzer: pg.Client | null = null;
const cleanup = benchCleanup(() => ({ benchDb, app, database, sql: analyzer }), log);

function log(message: string): void {
  console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Statements: what the app sends to the database (openDatabase's onQuery), by text. Transaction control is counted
// apart: Prisma reports a transaction's COMMIT (or ROLLBACK) and not its BEGIN, so transactions are the COMMITs and
// ROLLBACKs, and the round trips on PostgreSQL the statements plus a BEGIN and a COMMIT per transaction.
const control = /^\s*(BEGIN|COMMIT|ROLLBACK|-- Implicit)/i;
/** A transaction's end as reported: COMMIT/ROLLBACK on PostgreSQL, '-- Implicit "COMMIT" ...' on PGlite. */
const ending = /^\s*(COMMIT|ROLLBACK|-- Implicit "(COMMIT|ROLLBACK))/i;
const counts = { statements: 0, transactions: 0, ledgerInserts: 0 };
let byText = new Map<string, number>();
function onQuery(sql: string): void {
  if (control.test(sql)) {
    if (ending.test(sql)) counts.transactions += 1;
    return;
  }
  counts.statements += 1;
  if (sql.includes('INSERT INTO recurring_occurrences')) counts.ledgerInserts += 1;
  byText.set(sql, (byText.get(sql) ?? 0) + 1);
}

/** A statement in one line, shortened. */
const brief = (sql: string, max = 120) => ((line) => (line.length > max ? `${line.slice(0, max - 3)}...` : line))(sql.replace(/\s+/g, ' ').trim());

/** nodeMicros: CPU of this process (the app; on PGlite the database too); dbMicros: of the database's backends. */
interface Measured {
  label: string;
  rows: number;
  wallMs: number;
  statements: number;
  transactions: number;
  nodeMicros: number;
  dbMicros: number | null;
  /** Share of the machine other processes took during the run. */
  other: number | null;
  byText: Map<string, number>;
}

/**
 * Times one run: wall time, statements, this process's CPU, and two machine windows, one counting nothing as the
 * bench's own and one counting this process and the database's backends, whose difference is what the bench used.
 */
async function measure(label: string, rows: number, backends: () => Promise<number[]>, run: () => Promise<void>): Promise<Measured> {
  const pids = await backends();
  const at = { ...counts };
  byText = new Map();
  const [all, others] = [startWindow([]), startWindow([process.pid, ...pids])];
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const texts = byText;
  byText = new Map();
  const [busy, other] = [all.end(), others.end()];
  const nodeMicros = used.user + used.system;
  const machineMicros = wallMs * 1000 * os.cpus().length;
  const dbMicros = pids.length && busy !== null && other !== null ? Math.max(0, (busy - other) * machineMicros - nodeMicros) : null;
  return { label, rows, wallMs, statements: counts.statements - at.statements, transactions: counts.transactions - at.transactions, nodeMicros, dbMicros, other, byText: texts };
}

// ---------------------------------------------------------------------------------------------------------------
async function post(port: number, token: string, route: string, body: object): Promise<{ id: string }> {
  const res = await fetch(`http://${HOST}:${port}/api/v2${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${route} answered ${res.status}: ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { data: { id: string } }).data;
}

/** The first Monday strictly after `today`: from it, today + HORIZON holds exactly WEEKS Mondays. */
function nextMonday(today: string): string {
  const day = new Date(`${today}T00:00:00Z`).getUTCDay();
  return addDays(today, ((8 - day) % 7) || 7);
}

const sql = (text: string, ...values: unknown[]) => database!.prisma.$executeRawUnsafe(text, ...values);

async function run(kind: 'postgresql' | 'pglite'): Promise<void> {
  const templates = settings.templates(kind);
  let analyzes: (() => number) | null = null;
  let label = 'PGlite (embedded, in memory)';
  if (kind === 'postgresql') {
    benchDb = await createBenchDatabase(settings.serverUrl);
    log(`created database ${benchDb.name}`);
    database = await openDatabase({ url: benchDb.url, onQuery });
    const [{ server_version, synchronous_commit, autovacuum }] = await database.prisma.$queryRawUnsafe<{ server_version: string; synchronous_commit: string; autovacuum: string }[]>(
      "SELECT current_setting('server_version') AS server_version, current_setting('synchronous_commit') AS synchronous_commit, current_setting('autovacuum') AS autovacuum",
    );
    const analyze = settings.autoAnalyze === '1' || (settings.autoAnalyze === 'auto' && autovacuum === 'off');
    if (analyze) analyzes = await autoAnalyze(benchDb.url);
    label = `PostgreSQL ${server_version} (${new URL(settings.serverUrl).host}, pool 10, synchronous_commit ${synchronous_commit}, autovacuum ${autovacuum}${analyze ? ', its analyze done by the bench' : ''})`;
  } else {
    database = await openDatabase({ onQuery });
  }
  const db = database;
  const config = loadConfig({ LOG_LEVEL: 'silent', HOST, ...(benchDb ? { DATABASE_URL: benchDb.url } : {}) });
  app = buildApp({ database: db, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited } });
  // The REST API on a server of the bench's own, not app.listen(): that would start the job queue, whose sweep (at
  // start and every 5 minutes) would generate beside the measured one.
  server = http.createServer(app.express);
  await new Promise<void>((resolve) => server!.listen(0, HOST, resolve));
  const port = (server.address() as AddressInfo).port;
  const created = await app.domain.admin.createAccount({ name: 'Bench Recurring Ltd' });
  const [accountId, token] = [created.account.id, created.key.token];
  log(`${label}: app in this process, account ${accountId} (time zone UTC)`);

  // ---- setup: the customer, its site and the templates through REST; none generates anything at create ----------
  const customer = await post(port, token, '/customers', { customer: { organization: 'Bench Recurring Customer' } });
  const site = await post(port, token, '/sites', {
    site: { site_name: 'Bench Site', street: '1 Bench Street', city: 'Springfield', state: 'IL', siteable_id: customer.id, siteable_type: 'Customer' },
  });
  const [today, setupStarted, profiled] = [calendarDateIn(new Date(), 'UTC'), performance.now(), settings.profile ? settings.profileTemplates : 0];
  const start = nextMonday(today);
  for (let i = 0; i < templates + profiled; i++) {
    // horizon_days 0 and a start after today: the generator that runs after the create finds nothing due.
    await post(port, token, '/recurring_jobs', {
      recurring_job: {
        customer_id: customer.id, site_id: site.id, title: `Weekly inspection ${i + 1}`, rule: 'FREQ=WEEKLY;BYDAY=MO', start_date: start, horizon_days: 0,
        lineitems: [{ description: 'Inspection visit', quantity: '1', unit_price: '85' }],
      },
    });
  }
  const [{ jobs: jobsAtCreate }] = await db.prisma.$queryRawUnsafe<{ jobs: number }[]>('SELECT count(*)::int AS jobs FROM jobs');
  if (jobsAtCreate !== 0) throw new Error(`creating the templates generated ${jobsAtCreate} jobs`);
  // All paused; the measured set then active with a year's horizon and nothing handled yet.
  await sql(`UPDATE recurring_jobs SET status = 'paused' WHERE account_id = $1::uuid`, accountId);
  const ids = (await db.prisma.recurringJob.findMany({ where: { account_id: accountId }, select: { id: true }, orderBy: { id: 'asc' } })).map((r) => r.id);
  const activate = (some: string[]) =>
    sql(`UPDATE recurring_jobs SET status = 'active', horizon_days = $2, generated_through = NULL WHERE account_id = $1::uuid AND id = ANY($3::uuid[])`, accountId, HORIZON, some);
  await activate(ids.slice(0, templates));
  if (kind === 'postgresql') await sql('VACUUM ANALYZE');
  log(`created ${templates + profiled} recurring jobs through POST /api/v2/recurring_jobs in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s (0 jobs generated); ` +
    `${templates} made active in SQL: FREQ=WEEKLY;BYDAY=MO from ${start}, horizon_days ${HORIZON} (today ${today}, through ${addDays(today, HORIZON)}), generated_through NULL, 1 line item each`);

  const backends = async () =>
    kind === 'postgresql'
      ? (await db.prisma.$queryRawUnsafe<{ pid: number }[]>('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).map((r) => r.pid)
      : [];
  // Every connection of the pool open before the windows start, so each backend is counted as the bench's.
  if (kind === 'postgresql') await Promise.all(Array.from({ length: 10 }, () => db.raw.$queryRawUnsafe('SELECT pg_sleep(0.05)')));
  const quiet = async () => {
    if (settings.quietWaitSeconds <= 0) return;
    const waited = await waitForQuiet(async () => [process.pid, ...(await backends())], settings.quietWaitSeconds * 1000);
    if (waited > 1500) log(`waited ${(waited / 1000).toFixed(0)} s for other work on the machine to calm down`);
  };
  const expected = templates * WEEKS;

  /** Sequential scans of jobs so far (PostgreSQL's statistics, which backends report up to 10 s late). */
  const jobScans = async () =>
    kind === 'postgresql'
      ? (await db.prisma.$queryRawUnsafe<{ scans: number; read: number }[]>("SELECT seq_scan::int AS scans, seq_tup_read::float8 AS read FROM pg_stat_user_tables WHERE relname = 'jobs'"))[0]
      : null;
  const scansBefore = await jobScans();
  const analyzedBefore = analyzes?.() ?? 0;

  // ---- the sweep --------------------------------------------------------------------------------------------
  await quiet();
  log(`sweep: ${templates} templates, ${expected.toLocaleString('en-US')} occurrences due ...`);
  const progress = setInterval(() => log(`  ... ${counts.ledgerInserts.toLocaleString('en-US')} occurrences claimed`), 30_000);
  let outcome = { created: 0, missed: 0, failed: 0 };
  const sweep = await measure('domain.recurring.sweep()', expected, backends, async () => void (outcome = await app!.domain.recurring.sweep())).finally(() => clearInterval(progress));
  const [{ jobs, lines }] = await db.prisma.$queryRawUnsafe<{ jobs: number; lines: number }[]>(
    'SELECT (SELECT count(*)::int FROM jobs) AS jobs, (SELECT count(*)::int FROM lineitems WHERE job_id IS NOT NULL) AS lines',
  );
  if (outcome.created !== expected || outcome.missed || outcome.failed || jobs !== expected || lines !== expected) {
    throw new Error(`the sweep answered ${JSON.stringify(outcome)} and left ${jobs} jobs with ${lines} line items; expected ${expected} of each` +
      (calendarDateIn(new Date(), 'UTC') !== today ? ' (the date changed during the run)' : ''));
  }
  log(`sweep: ${rate(expected)} jobs with ${rate(lines)} line items in ${(sweep.wallMs / 1000).toFixed(1)} s${sweep.other === null ? '' : `; other processes ${Math.round(sweep.other * 100)}% of the machine`}`);
  // The next sweep, with nothing due: what every 5-minute run costs from now on.
  const idle = await measure('the next sweep (nothing due)', templates, backends, async () => {
    const again = await app!.domain.recurring.sweep();
    if (again.created + again.missed + again.failed) throw new Error(`the second sweep generated ${JSON.stringify(again)}`);
  });

  const analyzed = (analyzes?.() ?? 0) - analyzedBefore;
  await new Promise((resolve) => setTimeout(resolve, kind === 'postgresql' ? 11_000 : 0));
  const scansAfter = await jobScans();

  // ---- the baseline: the same rows through createMany ---------------------------------------------------------
  const importRows = await importOf(accountId, ids.slice(0, templates));
  await quiet();
  log(`baseline: ${rate(expected)} jobs and their line items through prisma.job.createMany / lineitem.createMany, ${settings.batch} jobs per batch ...`);
  const baseline = await measure(`createMany, ${settings.batch} jobs per batch`, expected, backends, importRows);

  // ---- report -----------------------------------------------------------------------------------------------
  const runs = [sweep, baseline];
  const per = (m: Measured, value: number) => value / m.rows;
  const fixed = (value: number, digits = 1) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const cpuOf = (m: Measured | null, field: 'nodeMicros' | 'dbMicros') => (m && m[field] !== null ? per(m, m[field]!) : NaN);
  const trips = (m: Measured) => m.statements + 2 * m.transactions;
  const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${fixed(a / b, 1)}x` : 'n/a');
  const rows: [string, (m: Measured) => string, string][] = [
    ['jobs (each with 1 line item)', (m) => rate(m.rows), ''],
    ['wall time, s', (m) => fixed(m.wallMs / 1000), ratio(sweep.wallMs, baseline.wallMs)],
    ['jobs/s', (m) => rate(m.rows / (m.wallMs / 1000)), ratio(baseline.wallMs, sweep.wallMs)],
    ['wall µs per job', (m) => fixed(per(m, m.wallMs * 1000)), ratio(sweep.wallMs, baseline.wallMs)],
    ['statements per job (BEGIN/COMMIT apart)', (m) => fixed(per(m, m.statements), 3), ratio(sweep.statements, baseline.statements)],
    ['transactions per job', (m) => fixed(per(m, m.transactions), 3), ratio(sweep.transactions, baseline.transactions)],
    ...(kind === 'postgresql'
      ? [['round trips per job (statements + BEGIN/COMMIT)', (m: Measured) => fixed(per(m, trips(m)), 3), ratio(trips(sweep), trips(baseline))] as [string, (m: Measured) => string, string]]
      : []),
    [`bench process CPU µs per job${kind === 'pglite' ? ' (app and database)' : ' (the app)'}`, (m) => fixed(cpuOf(m, 'nodeMicros')), ratio(sweep.nodeMicros, baseline.nodeMicros)],
    ...(kind === 'postgresql' ? [['PostgreSQL backends CPU µs per job', (m: Measured) => fixed(cpuOf(m, 'dbMicros')), ratio(cpuOf(sweep, 'dbMicros'), cpuOf(baseline, 'dbMicros'))] as [string, (m: Measured) => string, string]] : []),
    ['other processes, share of the machine', (m) => (m.other === null ? 'n/a' : `${Math.round(m.other * 100)}%`), ''],
  ];
  console.log(`
== recurring generation on ${label} ==
${templates} recurring jobs FREQ=WEEKLY;BYDAY=MO from ${start}, horizon ${HORIZON} days: ${WEEKS} occurrences each, ${rate(expected)} jobs in one domain.recurring.sweep()
baseline: the same ${rate(expected)} rows (the generated jobs' columns, a new id and number, no template) and their line items,
prisma.job.createMany + prisma.lineitem.createMany in one transaction per ${settings.batch} jobs; statements counted with openDatabase's onQuery
${table([['', ...runs.map((m) => m.label), 'sweep / baseline'], ...rows.map(([name, cell, r]) => [name, ...runs.map(cell), r])])}

the sweep's statements per occurrence, by text:
${table([['per job', 'statement'], ...[...sweep.byText.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([text, n]) => [fixed(n / expected, 3), brief(text)])], (c) => c === 0)}
the baseline's statements: ${[...baseline.byText.entries()].map(([text, n]) => `${n} x ${brief(text, 60)}`).join('; ')}
${scansBefore && scansAfter ? `sequential scans of jobs during the sweep: ${rate(scansAfter.scans - scansBefore.scans)}, ${rate(scansAfter.read - scansBefore.read)} rows read; ANALYZE run by the bench meanwhile (autovacuum's rule): ${analyzes ? analyzed : 'none (BENCH_AUTOANALYZE=0, or the server analyzes)'}\n` : ''}the next sweep, nothing due: ${fixed(idle.wallMs)} ms, ${idle.statements} statements (${fixed(idle.statements / templates, 2)} per template), ${idle.transactions} transactions
${loadReport(loadBefore, Math.max(sweep.other ?? 0, baseline.other ?? 0), 'the wall times are unreliable, the statement counts are not')}
`);

  if (settings.profile) await profileRuns(accountId, ids.slice(0, templates), ids.slice(templates), activate);

  server.close();
  await analyzer?.end();
  await app.close();
  await db.close();
  [server, analyzer, app, database] = [null, null, null, null];
  if (benchDb) await benchDb.drop().then(() => log(`dropped ${benchDb!.name}`));
  benchDb = null;
}

/**
 * Autovacuum's analyze, for a server where autovacuum is off (the bench server's is): every 5 s, ANALYZE each table
 * with more rows changed since its last analyze than 50 + 10% of its rows (autovacuum_analyze_threshold and
 * _scale_factor defaults). Without it the tables the sweep fills from empty are never analyzed, so no connection
 * drops the generic plans of the app's named statements made while they were tiny: sequential scans, and each
 * occurrence reads every job created before it. Answers the count of ANALYZEs so far.
 */
async function autoAnalyze(url: string): Promise<() => number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  analyzer = client;
  let count = 0;
  const tick = async () => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT quote_ident(s.relname) AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
       WHERE s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)`,
    );
    for (const { name } of rows) {
      await client.query(`ANALYZE ${name}`);
      count += 1;
    }
  };
  const loop = () => setTimeout(() => void tick().then(loop, () => {}), 5000).unref();
  loop();
  return () => count;
}

/**
 * The baseline's work: the jobs these templates generated and their line items, as an import brings them (the same
 * columns, a new id and number, no template), inserted with createMany in batches of BENCH_BATCH jobs, each batch's
 * jobs and lines in one transaction. Rows are read and numbered here; run() builds each batch and inserts it.
 */
async function importOf(accountId: string, templateIds: string[]): Promise<() => Promise<void>> {
  const db = database!;
  const generated = await db.prisma.job.findMany({ where: { account_id: accountId, recurring_job_id: { in: templateIds } }, orderBy: { id: 'asc' } });
  const lines = await db.prisma.lineitem.findMany({ where: { account_id: accountId, job_id: { in: generated.map((job) => job.id) } } });
  const linesOf = new Map<string, typeof lines>();
  for (const line of lines) linesOf.set(line.job_id!, [...(linesOf.get(line.job_id!) ?? []), line]);
  const [{ last }] = await db.prisma.$queryRawUnsafe<{ last: number }[]>('SELECT max(number::bigint)::int AS last FROM jobs WHERE account_id = $1::uuid', accountId);
  return async () => {
    for (let from = 0; from < generated.length; from += settings.batch) {
      const now = new Date();
      const jobRows: Prisma.JobCreateManyInput[] = [];
      const lineRows: Prisma.LineitemCreateManyInput[] = [];
      for (const [i, job] of generated.slice(from, from + settings.batch).entries()) {
        const id = newId();
        jobRows.push({ ...job, id, number: String(last + from + i + 1), recurring_job_id: null, custom_fields: job.custom_fields as object, created_at: now, updated_at: now });
        for (const line of linesOf.get(job.id) ?? []) lineRows.push({ ...line, id: newId(), job_id: id, created_at: now, updated_at: now });
      }
      await db.prisma.$transaction(async (tx) => { await tx.job.createMany({ data: jobRows }); await tx.lineitem.createMany({ data: lineRows }); }, { timeout: 120_000 });
    }
  };
}

/** CPU of `work` under the V8 profiler: µs per job by area and by package or file (profiler included). */
async function profiled(what: string, jobs: number, work: () => Promise<void>): Promise<void> {
  const session = new Session();
  session.connect();
  for (const step of ['Profiler.enable', 'Profiler.setSamplingInterval', 'Profiler.start'] as const) await session.post(step, { interval: 500 });
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: CpuProfile };
  session.disconnect();
  const file = path.join(os.tmpdir(), `recurring-${what.replace(/\W+/g, '-')}-${process.pid}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));
  const groups = selfTimeByGroup(profile);
  const sampled = groups.reduce((sum, g) => sum + g.micros, 0);
  // Each place's share of the samples applied to the process CPU measured over the same run.
  const scale = (used.user + used.system) / sampled / jobs;
  const categories = new Map<string, number>();
  for (const g of groups) categories.set(categoryOf(g.group), (categories.get(categoryOf(g.group)) ?? 0) + g.micros);
  const rows = (entries: [string, number][], n: number) => entries.sort((a, b) => b[1] - a[1]).slice(0, n).map(([name, micros]) => [name, (micros * scale).toFixed(1)]);
  console.log(`
== profile: ${what}, ${rate(jobs)} jobs, under the V8 profiler (${file}) ==
process CPU ${((used.user + used.system) / jobs).toFixed(0)} µs per job
${table([['area', 'CPU µs per job'], ...rows([...categories.entries()], 12)])}

${table([['package or file', 'CPU µs per job'], ...rows(groups.map((g) => [g.group, g.micros]), 25)])}
`);
}

/** One sweep of the profile's own templates (the measured ones paused), then their jobs through the baseline, profiled. */
async function profileRuns(accountId: string, measured: string[], own: string[], activate: (ids: string[]) => Promise<number>): Promise<void> {
  await sql(`UPDATE recurring_jobs SET status = 'paused' WHERE account_id = $1::uuid AND id = ANY($2::uuid[])`, accountId, measured);
  await activate(own);
  const jobs = own.length * WEEKS;
  await profiled('sweep', jobs, async () => {
    const result = await app!.domain.recurring.sweep();
    if (result.created !== jobs) throw new Error(`the profiled sweep created ${result.created} jobs, expected ${jobs}`);
  });
  await profiled('createMany', jobs, await importOf(accountId, own));
}

let loadBefore = '';
async function main(): Promise<void> {
  loadBefore = loadAverage();
  log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), load average ${loadBefore}`);
  for (const kind of settings.databases) {
    if (kind !== 'postgresql' && kind !== 'pglite') throw new Error(`BENCH_DATABASES: unknown database ${kind} (postgresql, pglite)`);
    await run(kind);
  }
}

runBench(main, async () => {
  server?.close();
  await cleanup();
});
