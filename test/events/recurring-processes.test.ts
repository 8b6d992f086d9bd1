import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { serverDatabase } from '../helpers/database.ts';
import { createRecurringJob } from '../helpers/factories/recurring.ts';
import { ifMatch, readRecord } from '../helpers/factories/records.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { spawnServer, teardown, until, type Spawned } from '../helpers/processes.ts';

// Recurring generation across real server processes (src/resources/recurring/generator.ts, src/events/queue.ts):
// every process sweeps the due templates when its queue starts, and each occurrence is one transaction that
// claims its row in the occurrence ledger (recurring_occurrences, unique per template and date) before creating
// the job. Proven with src/main.ts processes (test/helpers/processes.ts) on one PostgreSQL database:
//   - two processes starting at once sweep the same templates at the same time: each occurrence becomes one job;
//   - a process SIGKILLed in the middle of its sweep leaves no half-created occurrence, and the next process's
//     sweep creates exactly the occurrences that were missing.
//
// The templates are made through the API without any occurrence generated (created with a start date beyond the
// horizon, paused, then moved to start today: nothing is generated while paused), and made active in SQL, so
// that only the start sweeps of the processes under test generate them.
//
// PostgreSQL only (TEST_DATABASE_URL): the embedded database lives inside one process.

/** Days ahead each template creates: today and the 30 days after it, 31 daily occurrences. */
const HORIZON_DAYS = 30;
const OCCURRENCES = HORIZON_DAYS + 1;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const daysFrom = (day: string, days: number) => isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));

describe.skipIf(!process.env.TEST_DATABASE_URL)('recurring generation across server processes on one PostgreSQL database (needs TEST_DATABASE_URL: the embedded database lives inside one process)', () => {
  let server: Awaited<ReturnType<typeof serverDatabase>> = null;
  /** Reads and prepares what the database holds (as its owner: no row security). */
  let observer: pg.Client | undefined;
  let token: string;
  /** The paused templates of each test, made in one process before the tests. */
  let together: string[];
  let killed: string[];
  const spawned: Spawned[] = [];

  /** A server process on the test database; stopped after the file at the latest. */
  async function start(env: Record<string, string> = {}): Promise<Spawned> {
    const child = await spawnServer({ DATABASE_URL: server!.url, DATABASE_POOL_SIZE: '4', ...env });
    spawned.push(child);
    return child;
  }

  async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await observer!.query<T>(text, values)).rows;
  }

  /**
   * For each of `counts`, that many daily recurring jobs starting today (UTC, the account's time zone), horizon 30
   * days, two line items each, paused, none of their occurrences generated. Made through the API of a process that
   * is stopped before any of them is made active, so that no sweep of it (at start or on the 5-minute schedule)
   * generates them. Its writes stay under the write rate limit (300 a minute).
   */
  async function pausedTemplates(...counts: number[]): Promise<string[][]> {
    const today = isoDay(new Date());
    const setup = await start();
    const ids: string[] = [];
    const count = counts.reduce((sum, n) => sum + n, 0);
    try {
      const api = setup.api(token);
      const place = await createPlace(api);
      const one = async (n: number): Promise<string> => {
        // Its first occurrence is past the horizon: the create generates nothing.
        const created = await createRecurringJob(api, {
          customer_id: place.customer.id,
          site_id: place.site.id,
          title: `Daily round ${n}`,
          rule: 'FREQ=DAILY',
          start_date: daysFrom(today, 2 * HORIZON_DAYS),
          horizon_days: HORIZON_DAYS,
          lineitems: [
            { description: 'Inspection', quantity: '1', unit_price: '80' },
            { description: 'Filter', quantity: '2', unit_price: '12.50' },
          ],
        });
        const paused = await api.post(`/recurring_jobs/${created.id}/pause`, {});
        expect(paused.status, paused.text).toBe(200);
        // Paused, the schedule change generates nothing (and clears generated_through).
        const current = await readRecord(api, 'recurring_jobs', created.id);
        expect(current.record.status).toBe('paused');
        const moved = await api.patch(`/recurring_jobs/${created.id}`, { recurring_job: { start_date: today } }, ifMatch(current.etag));
        expect(moved.status, moved.text).toBe(200);
        expect(moved.body.data).toMatchObject({ status: 'paused', start_date: today });
        return created.id;
      };
      for (let n = 0; n < count; n += 10) ids.push(...(await Promise.all(Array.from({ length: Math.min(10, count - n) }, (_, i) => one(n + i)))));
    } finally {
      await setup.stop();
    }
    expect(await progress(ids)).toEqual({ ledger: 0, jobs: 0 });
    let offset = 0;
    return counts.map((n) => ids.slice(offset, (offset += n)));
  }

  /** Makes the templates due in SQL (status active, generated_through NULL): what the next process to start finds. */
  async function activate(ids: string[]): Promise<void> {
    const activated = await observer!.query(`UPDATE recurring_jobs SET status = 'active', generated_through = NULL WHERE id = ANY($1::uuid[])`, [ids]);
    expect(activated.rowCount).toBe(ids.length);
  }

  /** How many ledger rows and jobs (live or not) the templates have. */
  async function progress(ids: string[]): Promise<{ ledger: number; jobs: number }> {
    const [row] = await sql<{ ledger: number; jobs: number }>(
      `SELECT (SELECT count(*)::int FROM recurring_occurrences WHERE template_id = ANY($1::uuid[])) AS ledger,
              (SELECT count(*)::int FROM jobs WHERE recurring_job_id = ANY($1::uuid[])) AS jobs`,
      [ids],
    );
    return row!;
  }

  /** Waits until the ledger holds every occurrence of the templates. */
  async function complete(ids: string[], timeoutMs: number): Promise<void> {
    await until(`${ids.length * OCCURRENCES} ledger rows`, async () => (await progress(ids)).ledger >= ids.length * OCCURRENCES, timeoutMs);
  }

  /**
   * What holds at every moment, even right after a crash: every ledger row of the templates is 'created' and names
   * a job of its template and date; every job of a template has its ledger row, and its two line items.
   */
  async function expectNoHalfCreatedOccurrence(ids: string[]): Promise<void> {
    const unnamed = await sql(`SELECT id FROM recurring_occurrences WHERE template_id = ANY($1::uuid[]) AND (state <> 'created' OR record_id IS NULL)`, [ids]);
    expect(unnamed, 'ledger rows not created, or naming no job').toEqual([]);
    const dangling = await sql(
      `SELECT o.id FROM recurring_occurrences o LEFT JOIN jobs j ON j.id = o.record_id
       WHERE o.template_id = ANY($1::uuid[]) AND (j.id IS NULL OR j.recurring_job_id <> o.template_id OR j.occurrence_date <> o.occurrence_date)`,
      [ids],
    );
    expect(dangling, 'ledger rows naming no job of their template and date').toEqual([]);
    const unrecorded = await sql(
      `SELECT j.id FROM jobs j LEFT JOIN recurring_occurrences o ON o.record_id = j.id WHERE j.recurring_job_id = ANY($1::uuid[]) AND o.id IS NULL`,
      [ids],
    );
    expect(unrecorded, 'jobs of a template without their ledger row').toEqual([]);
    const lineless = await sql(
      `SELECT j.id, count(l.id)::int AS lines FROM jobs j LEFT JOIN lineitems l ON l.job_id = j.id
       WHERE j.recurring_job_id = ANY($1::uuid[]) GROUP BY j.id HAVING count(l.id) <> 2`,
      [ids],
    );
    expect(lineless, 'jobs without their two line items').toEqual([]);
  }

  /** Once complete: each template has exactly one live job per occurrence, 31 of them, and every job number is the account's once. */
  async function expectEachOccurrenceOnce(ids: string[]): Promise<void> {
    await expectNoHalfCreatedOccurrence(ids);
    const perTemplate = await sql<{ template: string; ledger: number; jobs: number; dates: number; first: string; last: string }>(
      `SELECT t.id::text AS template,
              (SELECT count(*)::int FROM recurring_occurrences o WHERE o.template_id = t.id) AS ledger,
              count(j.id)::int AS jobs, count(DISTINCT j.occurrence_date)::int AS dates,
              min(j.occurrence_date)::text AS first, max(j.occurrence_date)::text AS last
       FROM recurring_jobs t LEFT JOIN jobs j ON j.recurring_job_id = t.id AND j.deleted_at IS NULL
       WHERE t.id = ANY($1::uuid[]) GROUP BY t.id`,
      [ids],
    );
    expect(perTemplate).toHaveLength(ids.length);
    for (const row of perTemplate) {
      // 31 consecutive days: no date twice, none missing.
      expect(row, `template ${row.template}`).toMatchObject({ ledger: OCCURRENCES, jobs: OCCURRENCES, dates: OCCURRENCES, last: row.first && daysFrom(row.first, HORIZON_DAYS) });
    }
    const twice = await sql(
      `SELECT recurring_job_id, occurrence_date, count(*)::int AS n FROM jobs WHERE recurring_job_id = ANY($1::uuid[])
       GROUP BY recurring_job_id, occurrence_date HAVING count(*) > 1`,
      [ids],
    );
    expect(twice, 'occurrences with more than one job').toEqual([]);
    const [numbers] = await sql<{ jobs: number; numbers: number }>(`SELECT count(*)::int AS jobs, count(DISTINCT (account_id, number))::int AS numbers FROM jobs`);
    expect(numbers!.numbers, 'distinct job numbers').toBe(numbers!.jobs);
  }

  /** The created counts a process logged for its sweeps ('recurring occurrences generated', LOG_LEVEL info). */
  function loggedCreated(child: Spawned): number {
    let created = 0;
    for (const line of child.output().split('\n')) {
      let entry: { msg?: string; created?: number };
      try {
        entry = JSON.parse(line);
      } catch {
        continue; // not a log line, or one not written out yet
      }
      if (entry.msg === 'recurring occurrences generated') created += entry.created ?? 0;
    }
    return created;
  }

  beforeAll(async () => {
    server = await serverDatabase('fl_recurring_processes');
    // Migrations and the account, through the app in this process; it never listens, so it runs no sweep.
    const database = await openDatabase({ url: server!.url, poolSize: 2 });
    const app = buildApp({ database, config: loadConfig({ LOG_LEVEL: 'silent' }) });
    try {
      token = (await app.domain.admin.createAccount({ name: 'Recurring Processes Ltd' })).key.token;
    } finally {
      await app.close();
      await database.close();
    }
    observer = new pg.Client({ connectionString: server!.url });
    await observer.connect();
    // 20 × 31 occurrences for two processes at once; 30 × 31 (a sweep of 10 s or more) for one to be killed in.
    [together, killed] = await pausedTemplates(20, 30);
  }, 120_000);

  afterAll(async () => {
    await teardown([...spawned.map((child) => () => child.stop()), () => observer?.end(), () => server?.drop()]);
  }, 60_000);

  it(
    'two server processes generating the same templates at once create each occurrence exactly once',
    async () => {
      const ids = together;
      await activate(ids);
      // Both start sweeps run at the same time: each process starts its sweep before its banner.
      const [a, b] = await Promise.all([start({ LOG_LEVEL: 'info' }), start({ LOG_LEVEL: 'info' })]);
      try {
        await complete(ids, 60_000);
        await expectEachOccurrenceOnce(ids);
        // Each process logs what its sweep created once the sweep is over: together, every occurrence once.
        // Both took part: each created some (which is what makes this a race the ledger decided).
        const [byA, byB] = await until('both sweeps logged', async () => {
          const counts = [loggedCreated(a), loggedCreated(b)] as const;
          return counts[0] + counts[1] >= ids.length * OCCURRENCES && counts;
        });
        expect(byA + byB).toBe(ids.length * OCCURRENCES);
        expect(Math.min(byA, byB), `created by a: ${byA}, by b: ${byB}`).toBeGreaterThan(0);
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    },
    180_000,
  );

  it(
    'a process killed in the middle of a generation run leaves no half-created occurrence, and the next run fills the gap exactly once',
    async () => {
      const ids = killed;
      await activate(ids);
      const total = ids.length * OCCURRENCES;
      const started = Date.now();
      const doomed = await start();
      // Well into the sweep, far from its end.
      const reached = await until('some of the jobs created', async () => {
        const now = await progress(ids);
        return now.jobs >= total / 5 && now;
      }, 60_000);
      doomed.kill();
      expect((await doomed.exited).signal).toBe('SIGKILL');
      const left = await progress(ids);
      expect(left.jobs, `jobs when killed (${reached.jobs} seen ${Date.now() - started} ms after the start)`).toBeLessThan(total);
      expect(left.ledger).toBe(left.jobs);
      await expectNoHalfCreatedOccurrence(ids);

      const survivor = await start();
      try {
        await complete(ids, 90_000);
        await expectEachOccurrenceOnce(ids);
      } finally {
        await survivor.stop();
      }
    },
    240_000,
  );
});
