import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { projectRoot } from '../helpers/cli.ts';
import { serverDatabase } from '../helpers/database.ts';
import { socketOwner, spawnServer, teardown, until, type Spawned } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';
import { parseSamples } from '../ops/prometheus.ts';

// The deployment of docker-compose.yml, proven on one machine (docs/operations.md, "Deployment"): the one-shot
// migrate process (deploy/migrate.ts), then two API processes run as the image runs them (Node 24's own TypeScript
// support, no tsx) on one PostgreSQL database and one Redis, and HAProxy in front with deploy/haproxy.cfg (Debian's
// haproxy, the product compose runs; only the server list differs: two processes on 127.0.0.1 instead of Docker's
// DNS). Every client goes through HAProxy. A mixed load runs (REST creates and reads, GraphQL mutations and queries,
// idempotent payments, a GraphQL subscription, a webhook endpoint); the process holding the subscription is killed
// with SIGKILL mid-load and started again on its port. Then:
//   - no committed write is lost: every create answered 2xx is readable, and has its one event in the outbox;
//   - every event reaches the webhook endpoint (deduplicated by webhook-id: delivery is at least once, and an attempt
//     in flight in the killed process is made again) and the subscriber, which resumed with afterSeq, exactly once
//     and in seq order;
//   - an idempotent create retried with its Idempotency-Key across the kill made exactly one payment;
//   - a key's rate limit is one budget across processes (Redis): 60 requests a minute in webhook_ingest, not 60 per
//     process, before the kill and again with the restarted process;
//   - clients saw no error but retryable ones (502/503, a reset connection) and only while a process was down.
// PostgreSQL only (TEST_DATABASE_URL), like every multi-process test. It needs Redis (TEST_REDIS_URL, or 127.0.0.1:6379
// as .ci/run finds it) and haproxy on PATH (.ci/run installs it): without them, with PostgreSQL, it fails and says so.

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL ?? ((await reachable(6379)) ? 'redis://127.0.0.1:6379' : undefined);
/** Debian's haproxy is in /usr/sbin, which a non-root PATH may lack. */
const haproxy = ['haproxy', '/usr/sbin/haproxy'].find((bin) => spawnSync(bin, ['-v'], { stdio: 'ignore' }).status === 0);

const WORKERS = 4;
/** The webhook_ingest bucket: requests a key may make per minute to webhook management (src/kernel/rate-limit.ts). */
const INGEST_LIMIT = 60;
const TOPICS = ['customer.created', 'payment.created'];

/** What a client made of one request through the load balancer. */
type Outcome = { kind: 'ok'; status: number; body: any } | { kind: 'retryable'; what: string } | { kind: 'unexpected'; what: string };

describe.skipIf(!databaseUrl)('the scaled-out deployment: two API processes behind HAProxy on PostgreSQL and Redis (needs TEST_DATABASE_URL)', () => {
  let server: Awaited<ReturnType<typeof serverDatabase>> = null;
  let observer: pg.Client | undefined;
  let lb: Balancer | undefined;
  let hook: Receiver | undefined;
  const processes: Spawned[] = [];
  let accountId: string;
  let subscriberToken: string;
  const workerTokens: string[] = [];
  const limitTokens: string[] = [];
  let migrateOutput = '';

  function startApi(port?: number): Promise<Spawned> {
    return spawnServer(
      {
        DATABASE_URL: server!.url,
        DATABASE_POOL_SIZE: '6',
        REDIS_URL: redisUrl!,
        NODE_ENV: 'production',
        TRUST_PROXY: 'loopback',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // A delivery in flight in the killed process is made again once its job expired (1 s + 15 s margin).
        WEBHOOK_TIMEOUT_MS: '1000',
        // A payment whose first attempt died with its process can be retried after 3 s (not the default 60 s).
        IDEMPOTENCY_LOCK_SECONDS: '3',
        ...(port ? { PORT: String(port) } : {}),
      },
      { runtime: 'transform-types' },
    ).then((child) => {
      processes.push(child);
      return child;
    });
  }

  beforeAll(async () => {
    if (!redisUrl) throw new Error('this test needs Redis: set TEST_REDIS_URL, or run one on 127.0.0.1:6379');
    if (!haproxy) throw new Error('this test needs haproxy on PATH (apt-get install -y haproxy; .ci/run does)');
    server = await serverDatabase('fl_scale');
    // The compose file's migrate service, as a process of its own: migrations and the first start's demo account.
    migrateOutput = await runMigrate(server!.url);
    // The account under load, its keys (one per load worker, so no worker's write budget is the limit), in this
    // process: the database is migrated, so this app's own check is a no-op; it never listens (no queue here).
    const database = await openDatabase({ url: server!.url, poolSize: 2 });
    const app = buildApp({ database, config: loadConfig({ LOG_LEVEL: 'silent' }) });
    try {
      const created = await app.domain.admin.createAccount({ name: 'Scaled Out Ltd' });
      accountId = created.account.id;
      subscriberToken = created.key.token;
      for (let i = 0; i < WORKERS; i++) workerTokens.push((await app.domain.admin.createKey({ userId: Number(created.user.id) })).token);
      for (let i = 0; i < 2; i++) limitTokens.push((await app.domain.admin.createKey({ userId: Number(created.user.id) })).token);
    } finally {
      await app.close();
      await database.close();
    }
    observer = new pg.Client({ connectionString: server!.url });
    await observer.connect();
    hook = await startReceiver({ kind: 'echo' });
    // Both replicas start at once, as compose starts them once migrate completed.
    await Promise.all([startApi(), startApi()]);
    // api1 and api2 in HAProxy are processes[0] and processes[1].
    lb = await startBalancer(processes.map((child) => child.port));
    await until('both processes in rotation', async () => allUp(await lb!.serverStates()), 30_000);
  }, 180_000);

  afterAll(async () => {
    await teardown([
      ...processes.map((child) => () => child.stop()),
      () => lb?.stop(),
      () => hook?.close(),
      () => observer?.end(),
      () => server?.drop(),
    ]);
  }, 60_000);

  it('the migrate service applies every migration once and makes the one demo account; the replicas that start after it add neither', async () => {
    expect(migrateOutput).toContain('"msg":"migrations applied"');
    expect(migrateOutput).toContain('Demo API key');
    const folders = readdirSync(path.join(projectRoot, 'prisma', 'migrations'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const applied = (await observer!.query<{ migration_name: string; n: number }>(
      `SELECT migration_name, count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL GROUP BY migration_name`,
    )).rows;
    expect(new Map(applied.map((row) => [row.migration_name, row.n]))).toEqual(new Map(folders.map((name) => [name, 1])));
    // Two accounts: the migrate service's demo account and this test's; the replicas found accounts and made none.
    const accounts = (await observer!.query<{ name: string; sandbox: boolean }>(`SELECT name, sandbox FROM accounts ORDER BY name`)).rows;
    expect(accounts).toEqual([
      { name: 'Demo Field Services', sandbox: true },
      { name: 'Scaled Out Ltd', sandbox: false },
    ]);
    expect(await Promise.all(processes.slice(0, 2).map(async (child) => (await fetch(`${child.url}/readyz`)).status))).toEqual([200, 200]);
  });

  it(
    'survives a replica killed with -9 mid-load: no committed write lost, every event delivered once to webhooks and to a resumed subscriber, idempotent creates once, one rate limit across processes, only retryable errors while it was down',
    async () => {
      const [first, second] = processes as [Spawned, Spawned];
      const api = (token: string) => balancedClient(lb!.url, token);

      // The customer of the payments held in flight at the kill (below), made before the endpoint and the subscriber
      // exist: its event is neither's.
      const heldCustomer = await api(subscriberToken).rest('POST', '/customers', { customer: { organization: 'Held Payments Co' } });
      expect(heldCustomer).toMatchObject({ kind: 'ok', status: 201 });
      const heldCustomerId = (heldCustomer as { body: any }).body.data.id as string;

      // The webhook endpoint, registered and verified through the load balancer.
      const registered = await api(subscriberToken).rest('POST', '/webhooks/endpoints', { endpoint: { url: hook!.url, topics: TOPICS } });
      expect(registered).toMatchObject({ kind: 'ok', status: 201 });
      expect((registered as { body: any }).body.data.status).toBe('verified');

      // One rate limit across processes, both in rotation: of 80 requests from one key, exactly 60 pass.
      await expectOneRateLimit(limitTokens[0]!, [first, second]);

      // The subscriber, through the load balancer; it resumes with afterSeq whenever its socket closes.
      const subscriber = resumingSubscriber(lb!.url, subscriberToken, TOPICS);
      const holder = await until('the subscription registered in one process', async () => {
        const active = await Promise.all([first, second].map((child) => gauge(child, 'fieldline_graphql_subscriptions_active')));
        return active[0] === 1 && active[1] === 0 ? first : active[0] === 0 && active[1] === 1 ? second : null;
      });
      const survivor = holder === first ? second : first;

      // The load: WORKERS clients, each its own key, until told to stop.
      const load = new Load(lb!.url, workerTokens);
      const running = load.run();

      // Mid-load, once both processes have served part of it: the subscriber's process is killed.
      const servedBefore = await Promise.all([first, second].map((child) => served(child)));
      await until('load on both processes', async () => {
        const now = await Promise.all([first, second].map((child) => served(child)));
        return load.completed >= 40 && now.every((count, i) => count - servedBefore[i]! >= 20);
      }, 60_000);
      // A payment in flight in the process about to die, between the claim of its Idempotency-Key and its commit: its
      // create share-locks its customer, whose row this test holds. Payments for that customer are sent through the
      // balancer until one waits in the holder (its database connection's socket is the holder's, says /proc).
      const locker = new pg.Client({ connectionString: server!.url });
      await locker.connect();
      const lockerPid = (await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM customers WHERE id = $1::uuid FOR UPDATE', [heldCustomerId]);
      const heldPayments: Promise<void>[] = [];
      const databasePort = Number(new URL(server!.url).port || 5432);
      const heldClient = balancedClient(lb!.url, subscriberToken);
      let heldInHolder = false;
      for (let i = 1; i <= 4 && !heldInHolder; i++) {
        heldPayments.push(load.pay(heldClient, heldCustomerId));
        const waiting = await until(`payment ${i} waiting for the customer's lock`, async () => {
          const rows = (await observer!.query<{ client_port: number }>(
            `SELECT client_port FROM pg_stat_activity WHERE datname = current_database() AND $1::int = ANY(pg_blocking_pids(pid))`,
            [lockerPid],
          )).rows;
          return rows.length === i ? rows : null;
        });
        // The processes reach PostgreSQL on 127.0.0.1 (TEST_DATABASE_URL), so /proc/net/tcp holds their sockets.
        heldInHolder = waiting.some((row) => socketOwner(row.client_port, databasePort, [holder.pid]) === holder.pid);
      }
      expect(heldInHolder, 'a held payment in the process to be killed').toBe(true);

      load.phase = 'down';
      holder.kill();
      expect((await holder.exited).signal).toBe('SIGKILL');
      // Its transaction died with it; the survivor's held payments go on.
      await locker.query('ROLLBACK');
      await locker.end();
      const slot = `api${processes.indexOf(holder) + 1}`;
      await until('HAProxy took the killed process out of rotation', async () => (await lb!.serverStates())[slot] === 'DOWN', 30_000);
      // While it is down the survivor takes everything (HAProxy retries refused connections on it).
      const completedWhileDown = load.completed;
      await until('load served while one process is down', async () => load.completed - completedWhileDown >= 20, 60_000);

      // Started again on its address, as a restarted container is; back in rotation once its /readyz answers.
      const restarted = await startApi(holder.port);
      await until('the restarted process in rotation', async () => allUp(await lb!.serverStates()), 60_000);
      load.phase = 'after';
      const servedAfterRestart = await served(restarted);
      await until('load served by the restarted process', async () => (await served(restarted)) - servedAfterRestart >= 20, 60_000);
      await until('the subscriber resumed', async () => subscriber.resumes >= 1 && subscriber.connected, 60_000);
      load.stop();
      await Promise.all([running, ...heldPayments]);

      // One rate limit again, the restarted process in rotation.
      await expectOneRateLimit(limitTokens[1]!, [survivor, restarted]);

      // Clients saw only retryable errors, and only while a process was down.
      expect(load.unexpected, 'unexpected answers').toEqual([]);
      expect(subscriber.errors, 'subscription errors').toEqual([]);
      expect(load.retryable.filter((error) => !error.whileDown), 'retryable errors while both processes were up').toEqual([]);

      // No committed write lost: every 2xx create is readable, and the outbox holds its one event.
      const reader = api(subscriberToken);
      const committed = [...load.customers.map((id) => ({ id, path: `/customers/${id}`, topic: 'customer.created' })), ...[...load.payments.values()].map((id) => ({ id, path: `/payments/${id}`, topic: 'payment.created' }))];
      expect(load.customers.length).toBeGreaterThan(40);
      for (const record of committed) {
        const read = await reader.rest('GET', record.path);
        expect(read, `${record.path} after the load`).toMatchObject({ kind: 'ok', status: 200 });
      }
      const events = (await observer!.query<{ id: string; seq: string; topic: string; record_id: string }>(
        `SELECT id::text, seq::text, topic, record_id::text FROM events WHERE account_id = $1::uuid AND topic = ANY($2) AND record_id <> $3::uuid ORDER BY events.seq`,
        [accountId, TOPICS, heldCustomerId],
      )).rows;
      const eventsOf = new Map<string, number>();
      for (const event of events) eventsOf.set(event.record_id, (eventsOf.get(event.record_id) ?? 0) + 1);
      for (const record of committed) expect(eventsOf.get(record.id), `the ${record.topic} event of ${record.id}`).toBe(1);
      // What else committed was a create whose answer the client did not get (a 502 for a write): at most one each.
      expect(events.length - committed.length).toBeLessThanOrEqual(load.uncertainWrites);

      // Idempotent creates exactly once: one payment per Idempotency-Key (its reference), the one every 201 named.
      const payments = (await observer!.query<{ reference: string; ids: string[] }>(
        `SELECT reference, array_agg(id::text) AS ids FROM payments WHERE account_id = $1::uuid GROUP BY reference`,
        [accountId],
      )).rows;
      expect(load.payments.size).toBeGreaterThan(10);
      // The held payment of the killed process was retried (502 or a reset, then 409 while its claim held) and made once.
      expect(load.idempotentRetries).toBeGreaterThan(0);
      expect(new Map(payments.map((row) => [row.reference, row.ids]))).toEqual(new Map([...load.payments].map(([key, id]) => [key, [id]])));

      const expectedIds = events.map((event) => event.id);
      // Webhooks: every event, deduplicated by webhook-id, and nothing else; a repeat is the same event again.
      await until('every event at the webhook endpoint', async () => {
        const got = new Set(hook!.requests.map((request) => request.headers['webhook-id']));
        return expectedIds.every((id) => got.has(id));
      }, 90_000);
      const deliveries = hook!.requests.filter((request) => request.headers['webhook-id'] !== undefined && !JSON.parse(request.body).challenge);
      const bodies = new Map<string, string>();
      for (const delivery of deliveries) {
        const id = delivery.headers['webhook-id']!;
        const parsed = JSON.parse(delivery.body) as { id: string; type: string };
        expect(parsed.id).toBe(id);
        const seen = bodies.get(id);
        if (seen !== undefined) expect(JSON.parse(delivery.body), `a repeat of ${id}`).toEqual(JSON.parse(seen));
        bodies.set(id, delivery.body);
      }
      expect(new Set(bodies.keys())).toEqual(new Set(expectedIds));

      // The subscriber: every event exactly once, in seq order, across its resume.
      await until('every event at the subscriber', async () => subscriber.received.length >= expectedIds.length, 30_000);
      subscriber.stop();
      const firstDiff = subscriber.received.findIndex((event, i) => event.id !== expectedIds[i]);
      const gotIds = new Set(subscriber.received.map((event) => event.id));
      const missing = events.filter((event) => !gotIds.has(event.id));
      const detail = missing.length ? (await observer!.query(`SELECT id::text, seq::text, topic, created_at, request_id FROM events WHERE id = ANY($1::uuid[])`, [missing.map((e) => e.id)])).rows : [];
      expect(subscriber.received.map((event) => event.id), `missing: ${JSON.stringify(detail)}; resumes at ${JSON.stringify(subscriber.resumedAfter)}; first difference at ${firstDiff}: received ${JSON.stringify(subscriber.received.slice(Math.max(0, firstDiff - 2), firstDiff + 3))}, expected ${JSON.stringify(events.slice(Math.max(0, firstDiff - 2), firstDiff + 3))}`).toEqual(expectedIds);
      expect(subscriber.received.map((event) => event.seq)).toEqual(events.map((event) => Number(event.seq)));

      // Figures for the reader of a failure or of the log: what the kill cost the clients.
      console.info(
        `scale-out: ${load.completed} operations; ${committed.length} creates committed, ${load.uncertainWrites} unanswered writes; ` +
          `${load.retryable.length} retryable errors while down (${summarize(load.retryable.map((error) => error.what))}); ` +
          `${load.idempotentRetries} idempotent retries; ${deliveries.length - bodies.size} repeated webhook deliveries; subscriber resumed ${subscriber.resumes}×`,
      );
    },
    240_000,
  );

  /** 80 requests of one key to webhook_ingest through the load balancer, 8 at a time: 60 pass, 20 are 429, both processes answer. */
  async function expectOneRateLimit(token: string, inRotation: Spawned[]): Promise<void> {
    const before = await Promise.all(inRotation.map((child) => counters(child)));
    const client = balancedClient(lb!.url, token);
    const statuses: number[] = [];
    const queue = Array.from({ length: INGEST_LIMIT + 20 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (queue.shift() !== undefined) {
          const outcome = await client.rest('GET', '/webhooks/endpoints');
          expect(outcome.kind, JSON.stringify(outcome)).toBe('ok');
          const { status, body } = outcome as { status: number; body: any };
          if (status === 429) expect(body.code).toBe('rate_limit.exceeded');
          statuses.push(status);
        }
      }),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(INGEST_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    const after = await Promise.all(inRotation.map((child) => counters(child)));
    const answered = after.map((count, i) => count.ingest - before[i]!.ingest);
    const refused = after.map((count, i) => count.refused - before[i]!.refused);
    expect(answered.every((n) => n > 0), `requests answered by each process: ${answered}`).toBe(true);
    expect(answered.reduce((a, b) => a + b)).toBe(INGEST_LIMIT + 20);
    expect(refused.reduce((a, b) => a + b)).toBe(20);
  }
});

// ---- The load ----

interface RetryableError {
  /** Answered after the kill, sent before the restarted process was back in rotation. */
  whileDown: boolean;
  what: string;
}

/** WORKERS clients through the load balancer, each a loop of REST and GraphQL reads and writes and idempotent payments. */
class Load {
  phase: 'up' | 'down' | 'after' = 'up';
  completed = 0;
  /** Ids of customers whose create was answered 2xx (REST 201, GraphQL data without userErrors). */
  readonly customers: string[] = [];
  /** Idempotency-Key (the payment's reference) -> the id every 201 for it named. */
  readonly payments = new Map<string, string>();
  /** Writes answered 502/503 or cut: they may or may not have committed. */
  uncertainWrites = 0;
  idempotentRetries = 0;
  readonly retryable: RetryableError[] = [];
  readonly unexpected: string[] = [];
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly tokens: string[],
  ) {}

  stop(): void {
    this.stopped = true;
  }

  run(): Promise<void> {
    return Promise.all(this.tokens.map((token, worker) => this.worker(worker, balancedClient(this.url, token)))).then(() => {});
  }

  /**
   * Sorts one answer. A retryable error is expected only for a request that was answered after the kill and sent
   * before the restarted process was back in rotation; `sentIn` is the phase when the request was sent.
   */
  private note(outcome: Outcome, what: string, write: boolean, sentIn: Load['phase']): outcome is { kind: 'ok'; status: number; body: any } {
    if (outcome.kind === 'retryable') {
      this.retryable.push({ whileDown: this.phase !== 'up' && sentIn !== 'after', what: `${what}: ${outcome.what}` });
      if (write) this.uncertainWrites += 1;
    } else if (outcome.kind === 'unexpected') {
      this.unexpected.push(`${what}: ${outcome.what}`);
    }
    return outcome.kind === 'ok';
  }

  private async worker(worker: number, client: BalancedClient): Promise<void> {
    let lastCustomer: string | undefined;
    for (let i = 0; !this.stopped; i++) {
      const organization = `Scale ${worker}-${i} ${randomUUID().slice(0, 8)}`;
      // REST create, then read it back (possibly from the other process).
      let sentIn = this.phase;
      const created = await client.rest('POST', '/customers', { customer: { organization } });
      if (this.note(created, 'POST /customers', true, sentIn)) {
        if (created.status === 201) {
          lastCustomer = created.body.data.id;
          this.customers.push(lastCustomer!);
          sentIn = this.phase;
          const read = await client.rest('GET', `/customers/${lastCustomer}`);
          if (this.note(read, 'GET /customers/:id', false, sentIn) && read.status !== 200) this.unexpected.push(`GET /customers/:id: ${read.status}`);
        } else this.unexpected.push(`POST /customers: ${created.status} ${JSON.stringify(created.body)}`);
      }
      // GraphQL mutation and query.
      sentIn = this.phase;
      const mutation = await client.graphql('mutation Create($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } userErrors { code } } }', {
        input: { organization: `${organization} (GraphQL)` },
      });
      if (this.note(mutation, 'mutation createCustomer', true, sentIn)) {
        const payload = mutation.body?.data?.createCustomer;
        if (mutation.status === 200 && payload?.customer?.id && payload.userErrors.length === 0) this.customers.push(payload.customer.id);
        else this.unexpected.push(`mutation createCustomer: ${mutation.status} ${JSON.stringify(mutation.body)}`);
      }
      if (lastCustomer) {
        sentIn = this.phase;
        const query = await client.graphql('query Read($id: ID!) { customer(id: $id) { id organization } }', { id: lastCustomer });
        if (this.note(query, 'query customer', false, sentIn) && (query.status !== 200 || query.body?.data?.customer?.id !== lastCustomer)) {
          this.unexpected.push(`query customer: ${query.status} ${JSON.stringify(query.body)}`);
        }
      }
      // Every other round: an idempotent payment, retried with its key until answered.
      if (lastCustomer && i % 2 === 0) await this.pay(client, lastCustomer);
      this.completed += 1;
    }
  }

  /** An idempotent payment, retried with its key (after 502/503, a reset, or 409 while an earlier attempt's claim holds) until 201. */
  async pay(client: BalancedClient, customerId: string): Promise<void> {
    const key = randomUUID();
    const body = { payment: { customer_id: customerId, amount: '25.00', method: 'card', reference: key } };
    const deadline = Date.now() + 60_000;
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) this.idempotentRetries += 1;
      const sentIn = this.phase;
      const outcome = await client.rest('POST', '/payments', body, { 'idempotency-key': key });
      if (outcome.kind === 'ok' && outcome.status === 201) {
        const id = outcome.body.data.id as string;
        const before = this.payments.get(key);
        if (before !== undefined && before !== id) this.unexpected.push(`POST /payments ${key}: 201 named ${id}, before ${before}`);
        this.payments.set(key, id);
        return;
      }
      // A retry that meets the first attempt's claim (it died with its process): 409 with Retry-After, as documented.
      const inFlight = outcome.kind === 'ok' && outcome.status === 409 && outcome.body?.code === 'idempotency_key.in_use' && attempt > 0;
      if (outcome.kind === 'ok' && !inFlight) {
        this.unexpected.push(`POST /payments: ${outcome.status} ${JSON.stringify(outcome.body)}`);
        return;
      }
      if (outcome.kind === 'retryable') this.retryable.push({ whileDown: this.phase !== 'up' && sentIn !== 'after', what: `POST /payments: ${outcome.what}` });
      if (outcome.kind === 'unexpected') {
        this.unexpected.push(`POST /payments: ${outcome.what}`);
        return;
      }
      if (Date.now() > deadline) {
        this.unexpected.push(`POST /payments ${key}: no 201 within 60 s`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, inFlight ? 250 : 50));
    }
  }
}

type BalancedClient = ReturnType<typeof balancedClient>;

/** REST and GraphQL through the load balancer, every answer sorted into ok / retryable (502, 503, a reset) / unexpected. */
function balancedClient(base: string, token: string) {
  async function send(url: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(20_000),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const code = cause?.code ?? '';
      // The connection to HAProxy closed or reset under the request: the client cannot know whether it ran.
      if (['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_CLOSED'].includes(code)) return { kind: 'retryable', what: code };
      return { kind: 'unexpected', what: `${method} ${url}: ${(error as Error).message} ${code} ${cause?.message ?? ''}` };
    }
    const text = await res.text();
    if (res.status === 502 || res.status === 503) return { kind: 'retryable', what: String(res.status) };
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      return { kind: 'unexpected', what: `${method} ${url}: ${res.status} not JSON: ${text.slice(0, 200)}` };
    }
    return { kind: 'ok', status: res.status, body: parsed };
  }
  return {
    rest: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => send(`${base}/api/v2${path}`, method, body, headers),
    graphql: (query: string, variables: Record<string, unknown>) => send(`${base}/graphql`, 'POST', { query, variables }),
  };
}

// ---- The subscriber ----

/** A graphql-ws subscriber of events(topics) that, whenever its socket closes, subscribes again with afterSeq = the last seq it received. */
function resumingSubscriber(base: string, token: string, topics: string[]) {
  const state = {
    received: [] as { id: string; seq: number }[],
    errors: [] as string[],
    resumes: 0,
    resumedAfter: [] as (number | undefined)[],
    connected: false,
    stop: () => {},
  };
  let stopped = false;
  let dispose: (() => unknown) | null = null;
  const query = 'subscription Feed($topics: [String!]!, $after: SafeInt) { events(topics: $topics, afterSeq: $after) { id seq topic } }';
  void (async () => {
    while (!stopped) {
      const last = state.received.at(-1)?.seq;
      state.resumedAfter.push(last);
      const client = createClient({
        url: `${base.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${token}` },
        retryAttempts: 0,
        lazy: false,
        // A socket that closes (its process died) is reported to the subscription, which resumes; nothing to print.
        onNonLazyError: () => {},
        on: { connected: () => (state.connected = true), closed: () => (state.connected = false) },
      });
      dispose = () => client.dispose();
      await new Promise<void>((resolve) => {
        client.subscribe<{ events: { id: string; seq: number; topic: string } }>(
          { query, variables: { topics, after: last ?? null } },
          {
            next: (result) => {
              if (result.errors) state.errors.push(JSON.stringify(result.errors));
              if (result.data) state.received.push({ id: result.data.events.id, seq: Number(result.data.events.seq) });
            },
            // The socket closed (its process died, or the balancer closed it): resume.
            error: () => resolve(),
            complete: () => resolve(),
          },
        );
      });
      state.connected = false;
      await client.dispose();
      if (stopped) break;
      state.resumes += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  state.stop = () => {
    stopped = true;
    void dispose?.();
  };
  return state;
}

// ---- HAProxy, the migrate process, metrics ----

interface Balancer {
  url: string;
  /** Each API server's state in HAProxy's view (UP, DOWN, `UP 1/2` while going down ...) by its name (api1 is the first port), from its stats. */
  serverStates(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/** deploy/haproxy.cfg with its server discovery swapped for these ports of 127.0.0.1, run in the foreground. */
async function startBalancer(ports: number[]): Promise<Balancer> {
  const [port, statsPort] = [await freePort(), await freePort()];
  let config = readFileSync(path.join(projectRoot, 'deploy', 'haproxy.cfg'), 'utf8');
  const blocks = /# servers:begin[^\n]*\n[\s\S]*?# servers:end[^\n]*\n/g;
  expect(config.match(blocks), 'the two server blocks of deploy/haproxy.cfg').toHaveLength(2);
  let block = 0;
  config = config.replace(blocks, () => (block++ === 0 ? ports.map((p, i) => `  server api${i + 1} 127.0.0.1:${p}\n`).join('') : ''));
  const dir = mkdtempSync(path.join(tmpdir(), 'fl-haproxy-'));
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child: ChildProcess = spawn(haproxy!, ['-db', '-f', file], {
    env: { ...process.env, LB_BIND: `127.0.0.1:${port}`, LB_STATS_BIND: `127.0.0.1:${statsPort}`, LB_LOG_LEVEL: 'warning' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output = (output + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (output = (output + d).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const serverStates = async () => {
    try {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
      const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n').map((line) => line.split(','));
      const at = (name: string) => header!.indexOf(name);
      return Object.fromEntries(rows.filter((row) => row[at('pxname')] === 'replicas' && /^api\d+$/.test(row[at('svname')]!)).map((row) => [row[at('svname')]!, row[at('status')]!]));
    } catch {
      return { unreachable: 'unreachable' };
    }
  };
  await until('haproxy answering', async () => !('unreachable' in (await serverStates())), 10_000).catch((error) => {
    throw new Error(`${(error as Error).message}:\n${output}`);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    serverStates,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** deploy/migrate.ts as the compose file's migrate service runs it; resolves with its output once it exited 0. */
async function runMigrate(url: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'info', NODE_ENV: 'production' };
  delete env.NODE_OPTIONS;
  const child = spawn(path.join(projectRoot, 'node_modules', '.bin', 'node'), ['--disable-warning=ExperimentalWarning', '--experimental-transform-types', 'deploy/migrate.ts'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  if (code !== 0) throw new Error(`deploy/migrate.ts exited ${code}:\n${output}`);
  return output;
}

async function scrape(child: Spawned) {
  const res = await fetch(`${child.url}/metrics`);
  expect(res.status).toBe(200);
  return parseSamples(await res.text());
}

async function gauge(child: Spawned, name: string): Promise<number> {
  return (await scrape(child)).find((sample) => sample.name === name)?.value ?? 0;
}

/** Requests a process answered on /api/v2 and /graphql (from its own /metrics). */
async function served(child: Spawned): Promise<number> {
  return (await scrape(child))
    .filter((sample) => sample.name === 'fieldline_http_request_duration_seconds_count' && /^\/(api\/v2|graphql)/.test(sample.labels.route ?? ''))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** A process's answers on GET /webhooks/endpoints (a 429 of its bucket is `unmatched`, counted apart) and webhook_ingest refusals. */
async function counters(child: Spawned): Promise<{ ingest: number; refused: number }> {
  const samples = await scrape(child);
  const refused = samples.find((sample) => sample.name === 'fieldline_rate_limit_refusals_total' && sample.labels.bucket === 'webhook_ingest')?.value ?? 0;
  const ok = samples
    .filter((sample) => sample.name === 'fieldline_http_request_duration_seconds_count' && sample.labels.route === '/api/v2/webhooks/endpoints' && sample.labels.method === 'GET')
    .reduce((sum, sample) => sum + sample.value, 0);
  return { ingest: ok + refused, refused };
}

/** Both API servers known to HAProxy and UP. */
function allUp(states: Record<string, string>): boolean {
  return Object.keys(states).length === 2 && Object.values(states).every((state) => state === 'UP');
}

function summarize(items: string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, n]) => `${n}× ${item}`).join(', ') || 'none';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
