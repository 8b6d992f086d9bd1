// npm run bench:dispatch — the GraphQL dispatchBoard query (one week, ~1,000 of 10,000 jobs, each with customer,
// site, contact, assignees and line items) through the real app over HTTP, beside the same data fetched by ONE
// hand-written SQL statement (json_agg joins) with pg, in the same run, on a PostgreSQL database of its own.
// Knobs: BENCH_DATABASE_URL (server to create fl_bench_<random> on), BENCH_SAMPLES (requests per path, default 40).
import pg from 'pg';
import { buildApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { benchCleanup } from './lib/cleanup.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/db.ts';
import { BOARD, createDispatchAccount, DISPATCH, seedDispatch, WINDOW } from './lib/dispatch-seed.ts';
import { ms, quantile, table } from './lib/stats.ts';

const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const samples = Number(process.env.BENCH_SAMPLES ?? 40);
const { jobs: JOBS, customers: CUSTOMERS } = DISPATCH;
const unlimited = 1_000_000_000;

let benchDb: BenchDatabase | null = null;
let app: App | null = null;
let database: Database | null = null;
let sql: pg.Client | null = null;
const log = (message: string) => console.log(`[bench ${(performance.now() / 1000).toFixed(1)}s] ${message}`);
const cleanup = benchCleanup(() => ({ benchDb, app, database, sql }), log);

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
}

main()
  .then(() => cleanup())
  .catch(async (error: unknown) => {
    console.error(error);
    await cleanup();
    process.exit(1);
  });
