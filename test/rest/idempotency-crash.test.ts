import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { serverDatabase } from '../helpers/database.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { expectProblem } from '../helpers/problem.ts';
import { spawnServer, teardown, until, type Spawned } from '../helpers/processes.ts';

// docs/decisions.md "Idempotency keys", lock time: a process killed between the claim of a key and the commit of
// its record leaves a running claim; once its lock time has passed, a retry with the key creates the record, exactly
// once. Proven with a real process: a server spawned as src/main.ts (IDEMPOTENCY_LOCK_SECONDS=3) claims the key of
// POST /invoices, its create then waits for a lock this test holds on the customer row (the create share-locks its
// customer, invoice.resource.ts beforeWrite), and the test SIGKILLs it there. The retries go to the test's
// in-process app on the same database (default lock time, 60 s): the claim's locked_until was written by the
// process that claimed it, so the dead process's 3 s decide when the key may be taken over.
//
// PostgreSQL only (TEST_DATABASE_URL): the embedded database lives inside one process, which cannot be killed
// without killing the database too.

/** The lock time of the process that dies. */
const LOCK_SECONDS = 3;
const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

describe.skipIf(!process.env.TEST_DATABASE_URL)('an idempotency key whose process was killed between claim and commit', () => {
  let server: Awaited<ReturnType<typeof serverDatabase>> = null;
  let database: Database | undefined;
  let t: TestApp | undefined;
  let spawned: Spawned | undefined;
  /** Holds the lock on the customer row (a transaction of its own, as the database's owner: no row security). */
  let locker: pg.Client | undefined;
  /** Reads what the database holds while the locker's transaction is open. */
  let observer: pg.Client | undefined;
  let token: string;
  let accountId: string;
  let customerId: string;

  beforeAll(async () => {
    server = await serverDatabase('fl_idem_crash');
    database = await openDatabase({ url: server!.url, poolSize: 5 });
    t = await startTestApp({ database });
    const { tenant, api } = await t.newTenant();
    token = tenant.token;
    accountId = tenant.accountId;
    customerId = (await createCustomer(api)).id;
    // Started after the in-process app migrated the database; the account above means no demo account either.
    spawned = await spawnServer({ DATABASE_URL: server!.url, DATABASE_POOL_SIZE: '3', IDEMPOTENCY_LOCK_SECONDS: String(LOCK_SECONDS) });
    locker = new pg.Client({ connectionString: server!.url });
    observer = new pg.Client({ connectionString: server!.url });
    await Promise.all([locker.connect(), observer.connect()]);
  }, 180_000);

  afterAll(async () => {
    await teardown([
      async () => {
        spawned?.kill();
        await spawned?.exited;
      },
      () => locker?.end(), // an open transaction ends with its connection (rolled back)
      () => observer?.end(),
      () => t?.close(),
      () => database?.close(),
      () => server?.drop(),
    ]);
  }, 60_000);

  it(
    'the claim holds (409, Retry-After: 2) until its lock time has passed; then a retry creates the invoice, exactly once, and replays it',
    async () => {
      const api = t!.client(token);
      const key = `crash-${randomUUID()}`;
      const body = { invoice: { customer_id: customerId, reference: key } };
      const keyRow = async () =>
        (
          await observer!.query<{ state: string; claim_token: string; locked_until: Date; created_at: Date }>(
            `SELECT state, claim_token::text, locked_until, created_at FROM idempotency_keys WHERE account_id = $1::uuid AND key = $2`,
            [accountId, key],
          )
        ).rows[0];
      const invoicesOfCustomer = async () =>
        (await observer!.query<{ n: number }>(`SELECT count(*)::int AS n FROM invoices WHERE customer_id = $1::uuid`, [customerId])).rows[0].n;

      // The spawned server is up, on this database, and accepts the tenant's key.
      expect((await spawned!.api(token).get('/me')).status).toBe(200);
      // The in-process app, which retries, keeps the default lock time: the dead process's claim decides.
      expect(t!.config.IDEMPOTENCY_LOCK_SECONDS).toBe(60);

      // 1. Hold the customer row: a create of an invoice for it waits inside its transaction, after its claim.
      const lockerPid = (await locker!.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await locker!.query('BEGIN');
      expect((await locker!.query('SELECT id FROM customers WHERE id = $1::uuid FOR UPDATE', [customerId])).rowCount).toBe(1);

      // 2. POST /invoices with the key to the spawned server.
      let settled = false;
      const doomed = spawned!
        .api(token)
        .post('/invoices', body, withKey(key))
        .then(
          (res) => ({ res, error: null }),
          (error: unknown) => ({ res: null, error }),
        )
        .finally(() => (settled = true));
      const answered = async () => {
        if (settled) throw new Error(`the request answered before it was killed: ${JSON.stringify((await doomed).res?.text ?? String((await doomed).error))}`);
      };

      // 3. Wait until it has claimed the key (committed on its own) and its transaction waits for our lock.
      const claim = await until('the claim of the key', async () => {
        await answered();
        return keyRow();
      });
      expect(claim.state).toBe('running');
      // locked_until is the claiming process's now + its IDEMPOTENCY_LOCK_SECONDS.
      expect(claim.locked_until.getTime() - claim.created_at.getTime()).toBe(LOCK_SECONDS * 1000);
      const blocked = await until('the create to wait for the lock on the customer', async () => {
        await answered();
        return (
          await observer!.query<{ pid: number; state: string; query: string }>(
            `SELECT pid, state, query FROM pg_stat_activity WHERE datname = current_database() AND $1::int = ANY(pg_blocking_pids(pid))`,
            [lockerPid],
          )
        ).rows[0];
      });
      expect(blocked.query).toMatch(/FOR SHARE/);

      // 4. Kill the server there: between claim and commit. Its request gets no answer.
      spawned!.kill();
      expect((await spawned!.exited).signal).toBe('SIGKILL');
      const outcome = await doomed;
      expect(outcome.res, 'the killed server answered').toBeNull();

      // 5. A retry right away: the dead process's claim still holds.
      const early = await api.post('/invoices', body, withKey(key));
      const earlyAt = Date.now();
      expect(earlyAt, `the retry came ${earlyAt - claim.locked_until.getTime()} ms after the lock time: too late to see the claim hold`).toBeLessThan(
        claim.locked_until.getTime(),
      );
      expectProblem(early, { status: 409, code: 'idempotency_key.in_use' });
      expect(early.headers.get('retry-after')).toBe('2');
      expect(early.headers.get('idempotent-replayed')).toBeNull();

      // 6. Release the customer. The killed process's transaction goes on without its client: PostgreSQL ends it
      // (rolled back) when it finds the connection gone. Nothing of it committed; its claim is left running.
      await locker!.query('ROLLBACK');
      await until('the killed process’s backend to end', async () => (await observer!.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [blocked.pid])).rowCount === 0);
      expect(await invoicesOfCustomer()).toBe(0);
      expect((await api.get(`/invoices?customer_id=${customerId}`)).body.data).toEqual([]);
      expect(await keyRow()).toMatchObject({ state: 'running', claim_token: claim.claim_token });

      // 7. After the lock time, a retry takes the claim over and creates the invoice.
      const wait = claim.locked_until.getTime() - Date.now() + 50;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const created = await api.post('/invoices', body, withKey(key));
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get('idempotent-replayed')).toBeNull();
      expect(created.body.data).toMatchObject({ customer_id: customerId, reference: key });
      const taken = await keyRow();
      expect(taken.state).toBe('done');
      expect(taken.claim_token).not.toBe(claim.claim_token);
      // The new claim was the retrying process's: its own lock time.
      expect(taken.locked_until.getTime() - taken.created_at.getTime()).toBe(60_000);

      // 8. Another retry replays it; the customer has exactly one invoice, the one created.
      const replay = await api.post('/invoices', body, withKey(key));
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(created.text);
      expect(replay.headers.get('etag')).toBe(created.headers.get('etag'));
      expect(replay.headers.get('location')).toBe(created.headers.get('location'));
      const listed = await api.get(`/invoices?customer_id=${customerId}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((invoice: { id: string }) => invoice.id)).toEqual([created.body.data.id]);
      expect(await invoicesOfCustomer()).toBe(1);
    },
    60_000,
  );
});
