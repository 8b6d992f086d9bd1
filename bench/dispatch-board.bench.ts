// npm run bench:dispatch — the GraphQL dispatchBoard query (one week, ~1,000 of 10,000 jobs, each with customer,
// site, contact, assignees and line items) through the real app over HTTP, beside the same data fetched by ONE
// hand-written SQL statement (json_agg joins) with pg, in the same run, on a PostgreSQL database of its own.
// Knobs: BENCH_DATABASE_URL (server to create fl_bench_<random> on), BENCH_SAMPLES (requests per path, default 40),
// BENCH_CONNECTIONS (closed-loop connections, default 4), BENCH_SECONDS (each closed-loop run, default 8),
// BENCH_ROUNDS (closed-loop runs per path, default 3), BENCH_PROFILE=1 (CPU profile of the app by area).
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { benchCleanup } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { BOARD, createDispatchAccount, DISPATCH, seedDispatch, WINDOW } from './lib/dispatch-seed.ts';
import { AREAS, timeByArea } from './lib/areas.ts';
import type { CpuProfile } from './lib/profile.ts';
import { median, ms, quantile, rate, table } from './lib/stats.ts';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const samples = Number(process.env.BENCH_SAMPLES ?? 40);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4);
const loopSeconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const profiling = process.env.BENCH_PROFILE === '1';
const { jobs: JOBS, customers: CUSTOMERS } = DISPATCH;
const unlimited = 1_000_000_000;

let benchDb: BenchDatabase | null = null;
let app: App | null = null;
let database: Database | null = null;
let sql: pg.Client | null = null;
let pool: pg.Pool | null = null;
const log = (message: string) => console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
const cleanup = benchCleanup(() => ({ benchDb, app, database, sql }), log);

/**
 * Closed loop for `seconds`: `connections` workers, each sending its next request as soon as the previous answer
 * is read (and its JSON parsed, as both paths do). Requests per second over the run.
 */
async function closedLoop(send: () => Promise<unknown>, workers: number, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < until) {
        await send();
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

/** The same data in one statement: jobs of the window with their customer, site, contact, assignees and lines. */
const HAND_SQL = `
SELECT coalesce(json_agg(j ORDER BY j.scheduled_start, j.id), '[]') AS jobs FROM (
  SELECT jb.id, jb.number, jb.status, jb.title, jb.scheduled_start, jb.scheduled_end, jb.amount,
    (SELECT json_build_object('id', c.id, 'organization', c.organization) FROM customers c WHERE c.id = jb.customer_id AND c.deleted_at IS NULL) AS customer,
    (SELECT json_build_object('id', s.id, 'site_name', s.site_name, 'street', s.street, 'city', s.city, 'state', s.state, 'zip_code', s.zip_code)
       FROM sites s WHERE s.id = jb.site_id AND s.deleted_at IS NULL) AS site,
    (SELECT json_build_object('id', ct.id, 'first_name', ct.first_name, 'last_name', ct.last_name, 'mobile', ct.mobile)
       FROM contacts ct WHERE ct.id = jb.contact_id AND ct.deleted_at IS NULL) AS contact,
    (SELECT coalesce(json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'role', u.role) ORDER BY a.position, a.created_at), '[]')
       FROM job_assignments a JOIN users u ON u.id = a.user_id WHERE a.account_id = $1::uuid AND a.job_id = jb.id) AS assignees,
    (SELECT coalesce(json_agg(json_build_object('id', l.id, 'description', l.description, 'quantity', l.quantity, 'unit_price', l.unit_price,
              'discount', l.discount, 'line_total', l.line_total, 'tax_amount', l.tax_amount) ORDER BY l.position, l.created_at), '[]')
       FROM lineitems l WHERE l.account_id = $1::uuid AND l.job_id = jb.id) AS lineitems
  FROM jobs jb
  WHERE jb.account_id = $1::uuid AND jb.deleted_at IS NULL AND jb.scheduled_start >= $2::timestamptz AND jb.scheduled_start < $3::timestamptz
  ORDER BY jb.scheduled_start, jb.id LIMIT 1000
) j`;

async function main(): Promise<void> {
  benchDb = await createBenchDatabase(serverUrl);
  log(`created ${benchDb.name}`);
  let counting = false;
  let statements = 0;
  database = await openDatabase({ url: benchDb.url, onQuery: () => counting && statements++ });
  app = buildApp({
    database,
    config: loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: benchDb.url, HOST: '127.0.0.1' }),
    rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited },
  });
  const { accountId, token, userIds } = await createDispatchAccount(app.domain.admin);
  sql = new pg.Client({ connectionString: benchDb.url });
  await sql.connect();
  let started = performance.now();
  await seedDispatch(sql, accountId, userIds);
  log(`seeded ${CUSTOMERS} customers/sites/contacts, ${JOBS} jobs, their assignments and lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const { port } = await app.listen(0, '127.0.0.1');
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const body = JSON.stringify({ query: BOARD, variables: WINDOW });
  const viaApp = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers, body });
    const json = (await res.json()) as { data?: { dispatchBoard: { jobs: unknown[] } }; errors?: unknown };
    if (res.status !== 200 || json.errors) throw new Error(`dispatchBoard failed: ${JSON.stringify(json.errors ?? res.status)}`);
    return json.data!.dispatchBoard.jobs.length;
  };
  const viaSql = async () => {
    const result = await sql!.query({ name: 'dispatch', text: HAND_SQL, values: [accountId, WINDOW.from, WINDOW.to] });
    return (result.rows[0].jobs as unknown[]).length;
  };

  counting = true;
  const appJobs = await viaApp();
  counting = false;
  const sqlJobs = await viaSql();
  if (appJobs !== sqlJobs) throw new Error(`app served ${appJobs} jobs, SQL ${sqlJobs}`);
  log(`window ${WINDOW.from} .. ${WINDOW.to}: ${appJobs} jobs; one GraphQL request issued ${statements} SQL statements (authentication included)`);

  // The loops and the profile use node:http keep-alive (no fetch): the body is read whole, then JSON-parsed (or not).
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const post = (parse: boolean) =>
    new Promise<unknown>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/graphql', method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`dispatchBoard answered ${res.statusCode}`));
            resolve(parse ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : chunks.length);
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  pool = new pg.Pool({ connectionString: benchDb.url, max: connections });
  const viaPool = () => pool!.query({ name: 'dispatch', text: HAND_SQL, values: [accountId, WINDOW.from, WINDOW.to] });

  for (let i = 0; i < 5; i++) {
    await viaApp();
    await viaSql();
  }
  const times = { app: [] as number[], sql: [] as number[] };
  for (let i = 0; i < samples; i++) {
    // Alternate, so both see the same machine.
    let t0 = performance.now();
    await viaApp();
    times.app.push(performance.now() - t0);
    t0 = performance.now();
    await viaSql();
    times.sql.push(performance.now() - t0);
  }
  const row = (name: string, values: number[]) => [name, ms(quantile(values, 0.5)), ms(quantile(values, 0.99))];
  const p50 = (values: number[]) => quantile(values, 0.5);
  const p99 = (values: number[]) => quantile(values, 0.99);
  console.log(`\ndispatch board, ${appJobs} of ${JOBS} jobs, ${samples} sequential requests each (ms)\n`);
  console.log(
    table([
      ['path', 'p50', 'p99'],
      row('GraphQL dispatchBoard (app over HTTP)', times.app),
      row('one hand-written SQL statement (pg)', times.sql),
      ['ratio app / SQL', `${(p50(times.app) / p50(times.sql)).toFixed(1)}x`, `${(p99(times.app) / p99(times.sql)).toFixed(1)}x`],
    ]),
  );

  // Closed-loop throughput: a short warm-up of each, then `rounds` runs of each path, alternating.
  await closedLoop(() => post(true), connections, 2);
  await closedLoop(viaPool, connections, 2);
  const throughput = { app: [] as number[], sql: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    throughput.app.push(await closedLoop(() => post(true), connections, loopSeconds));
    throughput.sql.push(await closedLoop(viaPool, connections, loopSeconds));
  }
  const spread = (values: number[]) => `${rate(Math.min(...values))}..${rate(Math.max(...values))}`;
  console.log(`\nclosed loop, ${connections} connections, ${rounds} runs of ${loopSeconds} s per path, alternating (requests/s, median of the runs)\n`);
  console.log(
    table([
      ['path', 'req/s', 'runs'],
      ['GraphQL dispatchBoard (app over HTTP)', rate(median(throughput.app)), spread(throughput.app)],
      ['one hand-written SQL statement (pg pool)', rate(median(throughput.sql)), spread(throughput.sql)],
      ['ratio app / SQL', `${(median(throughput.app) / median(throughput.sql)).toFixed(2)}x`, ''],
    ]),
  );

  if (profiling) await profileApp(() => post(false));
  agent.destroy();
  await pool.end();
  pool = null;
}

/**
 * BENCH_PROFILE=1: `samples` sequential board requests under the V8 sampling profiler (200 µs), in this process (the
 * app and its client), the body read but not parsed. Sampled self time per request by area; the client's own share
 * is its fetch-free node:http reading, part of "HTTP server" (small beside the server's).
 */
async function profileApp(send: () => Promise<unknown>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const cpu = process.cpuUsage();
  for (let i = 0; i < samples; i++) await send();
  const used = process.cpuUsage(cpu);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const dir = mkdtempSync(join(os.tmpdir(), 'fl-bench-dispatch-'));
  writeFileSync(join(dir, 'app.cpuprofile'), JSON.stringify(profile));
  const { areas, total, functions } = timeByArea(profile as unknown as CpuProfile);
  const perRequest = (micros: number) => ms(micros / samples / 1000);
  console.log(`\nCPU profile of the app process, ${samples} sequential requests: sampled self time per request (ms) by area\n`);
  console.log(
    table([
      ['area', 'ms/req', 'share'],
      ...AREAS.map((area) => [area, perRequest(areas.get(area) ?? 0), `${(((areas.get(area) ?? 0) / total) * 100).toFixed(0)}%`]),
      ['total sampled', perRequest(total), ''],
      ['process CPU (cpuUsage)', ms((used.user + used.system) / samples / 1000), ''],
    ]),
  );
  console.log('\ntop functions by self time (ms/req):');
  for (const f of functions.slice(0, 15)) console.log(`  ${perRequest(f.micros).padStart(6)}  ${f.name}`);
  console.log(`profile: ${join(dir, 'app.cpuprofile')}`);
}

main()
  .then(() => cleanup())
  .catch(async (error: unknown) => {
    console.error(error);
    await cleanup();
    process.exit(1);
  });
