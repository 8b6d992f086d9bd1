import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { serverDatabase } from '../helpers/database.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { socketOwner, spawnServer, teardown, until, type Spawned } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// Webhook delivery across real server processes (docs/webhooks.md, src/events/queue.ts): every process runs the
// outbox dispatcher and the delivery workers over one PostgreSQL database. Proven with src/main.ts processes
// (test/helpers/processes.ts) and receivers on 127.0.0.1:
//   - two processes taking writes at once deliver each event exactly once, and both deliver;
//   - a process SIGKILLed while a delivery attempt is in flight (the receiver holds the request): the job expires
//     and another process delivers the event again, with the same webhook-id, once;
//   - a process SIGKILLed right after a write committed, before any dispatcher handed the event on: another
//     process dispatches and delivers it, once;
//   - a GraphQL subscriber on one process receives the events of writes made through the other.
//
// PostgreSQL only (TEST_DATABASE_URL): the embedded database lives inside one process, which cannot be killed
// without killing the database too.

/** Per-attempt timeout of the spawned processes: a delivery job expires 15 s after it (src/events/queue.ts). */
const TIMEOUT_MS = 3000;

describe.skipIf(!process.env.TEST_DATABASE_URL)('server processes on one PostgreSQL database (needs TEST_DATABASE_URL: the embedded database lives inside one process)', () => {
  let server: Awaited<ReturnType<typeof serverDatabase>> = null;
  /** Reads what the database holds (as its owner: no row security). */
  let observer: pg.Client | undefined;
  let token: string;
  const spawned: Spawned[] = [];
  const receivers: { close(): Promise<void> }[] = [];

  /** A server process on the test database (webhook receivers on 127.0.0.1 allowed); stopped after the file. */
  async function start(env: Record<string, string> = {}): Promise<Spawned> {
    const child = await spawnServer({
      DATABASE_URL: server!.url,
      DATABASE_POOL_SIZE: '4',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      ...env,
    });
    spawned.push(child);
    return child;
  }

  async function receiver(behaviour: Parameters<typeof startReceiver>[0] = { kind: 'echo' }): Promise<Receiver> {
    const started = await startReceiver(behaviour);
    receivers.push(started);
    return started;
  }

  /** Registers a verified endpoint for the topics through `via`; answers its id. */
  async function register(via: Spawned, url: string, topics: string[]): Promise<string> {
    const res = await via.api(token).post('/webhooks/endpoints', { endpoint: { url, topics } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.status).toBe('verified');
    return res.body.data.id as string;
  }

  /** The endpoint's delivery log (the latest 100 attempts, newest first), read through `via`. */
  async function deliveryLog(via: Spawned, endpointId: string): Promise<{ event_id: string; attempt: number; status_code: number | null; error: string | null }[]> {
    const res = await via.api(token).get(`/webhooks/endpoints/${endpointId}/deliveries`);
    expect(res.status, res.text).toBe(200);
    return res.body.data;
  }

  /** How many attempts the endpoint's delivery log holds (read in the database: the API's log counts in the 60/min webhook_ingest bucket). */
  async function attemptsLogged(endpointId: string): Promise<number> {
    return (await observer!.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1::uuid`, [endpointId])).rows[0]!.n;
  }

  /** The id of the event a write appended for the record (its outbox row). */
  async function eventOf(recordId: string, topic: string): Promise<{ id: string; seq: string }> {
    const rows = (await observer!.query<{ id: string; seq: string }>(`SELECT id::text, seq::text FROM events WHERE record_id = $1::uuid AND topic = $2`, [recordId, topic])).rows;
    expect(rows, `the ${topic} event of ${recordId}`).toHaveLength(1);
    return rows[0]!;
  }

  beforeAll(async () => {
    server = await serverDatabase('fl_processes');
    // Migrations and the account, through the app in this process. It never listens, so its job queue (which
    // starts with the first listen) does not run here: every dispatcher and worker is in a spawned process.
    const database = await openDatabase({ url: server!.url, poolSize: 2 });
    const app = buildApp({ database, config: loadConfig({ LOG_LEVEL: 'silent' }) });
    try {
      token = (await app.domain.admin.createAccount({ name: 'Processes Ltd' })).key.token;
    } finally {
      await app.close();
      await database.close();
    }
    observer = new pg.Client({ connectionString: server!.url });
    await observer.connect();
  }, 120_000);

  afterAll(async () => {
    await teardown([
      ...spawned.map((child) => () => child.stop()),
      ...receivers.map((started) => () => started.close()),
      () => observer?.end(),
      () => server?.drop(),
    ]);
  }, 60_000);

  describe('two processes taking writes at once', () => {
    it(
      'deliver every event exactly once; both run their workers and both deliver',
      async () => {
        const [a, b] = await Promise.all([start(), start()]);
        try {
          // Both are ready, with their webhook workers running (/readyz requires every registered worker).
          for (const child of [a, b]) {
            const ready = await fetch(`${child.url}/readyz`);
            expect(ready.status).toBe(200);
            expect((await ready.json()).checks).toMatchObject({ database: 'ok', workers: 'ok' });
          }
          const attributed = await attributingReceiver([a.pid, b.pid]);
          receivers.push(attributed);
          const endpointId = await register(a, attributed.url, ['customer.created']);

          // 40 creates, half through each process, four at a time.
          const customerIds: string[] = [];
          for (let round = 0; round < 10; round++) {
            const created = await Promise.all([a, b, a, b].map((child) => createCustomer(child.api(token))));
            customerIds.push(...created.map((customer) => customer.id));
          }
          const eventIds = new Set<string>();
          for (const id of customerIds) eventIds.add((await eventOf(id, 'customer.created')).id);
          expect(eventIds.size).toBe(40);

          // Every attempt writes its log row after the receiver answered: 40 rows means every attempt is done.
          await until('40 attempts in the delivery log', async () => (await attemptsLogged(endpointId)) >= 40, 120_000);
          const log = await deliveryLog(b, endpointId);
          const deliveries = attributed.requests.filter((request) => request.type === 'customer.created');
          const perEvent = new Map<string, number>();
          for (const delivery of deliveries) perEvent.set(delivery.webhookId!, (perEvent.get(delivery.webhookId!) ?? 0) + 1);
          expect(new Set(perEvent.keys())).toEqual(eventIds);
          expect([...perEvent.values()].every((count) => count === 1), `deliveries per event: ${JSON.stringify([...perEvent.values()])}`).toBe(true);
          expect(log).toHaveLength(40);
          expect(new Set(log.map((row) => row.event_id))).toEqual(eventIds);
          for (const row of log) expect(row).toMatchObject({ attempt: 1, status_code: 204, error: null });

          // Which process sent each delivery: the sender's socket, found among each process's open files while the
          // receiver held the request (the operating system's view; nothing the server reports about itself).
          const perSender = new Map<number | null, number>();
          for (const delivery of deliveries) perSender.set(delivery.senderPid, (perSender.get(delivery.senderPid) ?? 0) + 1);
          expect(new Set(perSender.keys()), `deliveries per sending pid (a: ${a.pid}, b: ${b.pid}): ${JSON.stringify([...perSender])}`).toEqual(new Set([a.pid, b.pid]));
        } finally {
          // The next tests need to know which processes run workers.
          await Promise.all([a.stop(), b.stop()]);
        }
      },
      180_000,
    );
  });

  describe('a process killed with -9', () => {
    it(
      'mid-delivery (the receiver holds the request): the job expires and another process delivers the event again, same webhook-id, once',
      async () => {
        const doomed = await start();
        const hook = await receiver({ kind: 'echo' });
        const endpointId = await register(doomed, hook.url, ['lead.created']);
        hook.setBehaviour({ kind: 'hang' });
        const lead = await doomed.api(token).post('/leads', { lead: { organization: 'Killed Mid-Delivery Plumbing' } });
        expect(lead.status, lead.text).toBe(201);
        const event = await eventOf(lead.body.data.id, 'lead.created');

        // The only process there is has the job active: its worker's request is held open by the receiver.
        const [, held] = await hook.waitFor(2, 30_000);
        expect(held!.headers['webhook-id']).toBe(event.id);
        doomed.kill();
        expect((await doomed.exited).signal).toBe('SIGKILL');

        // From now on the receiver answers 200. A new process's supervisor expires the dead worker's job, and a
        // worker delivers it again.
        hook.setBehaviour({ kind: 'status', status: 200 });
        const survivor = await start();
        const [, , again] = await hook.waitFor(3, 90_000);
        expect(again!.headers['webhook-id']).toBe(event.id);
        expect(JSON.parse(again!.body)).toMatchObject({ id: event.id, type: 'lead.created', data: { object: { id: lead.body.data.id } } });
        await until('the successful attempt in the delivery log', async () => (await attemptsLogged(endpointId)) > 0);
        const log = await deliveryLog(survivor, endpointId);
        // The killed attempt left no log row (it died before writing one): the log holds the success only.
        expect(log).toEqual([expect.objectContaining({ event_id: event.id, attempt: 1, status_code: 200, error: null })]);

        // Nothing more of it arrives: longer than a supervision pass (5 s), a poll and a retry delay.
        await new Promise((resolve) => setTimeout(resolve, 8_000));
        expect(hook.requests.filter((request) => request.headers['webhook-id'] === event.id)).toHaveLength(2);
        expect(await attemptsLogged(endpointId)).toBe(1);
        await survivor.stop();
      },
      180_000,
    );

    it(
      'right after a write committed, before any dispatcher handed its event on: another process dispatches and delivers it, once',
      async () => {
        const survivor = await start();
        const doomed = await start();
        const hook = await receiver({ kind: 'echo' });
        const endpointId = await register(doomed, hook.url, ['item.created']);
        // The dispatchers' cursor (src/db/outbox.ts): while this test holds its row, every dispatcher skips it.
        await until('the dispatcher’s cursor', async () => (await observer!.query(`SELECT 1 FROM event_cursors WHERE name = 'webhooks'`)).rowCount === 1);
        const locker = new pg.Client({ connectionString: server!.url });
        await locker.connect();
        try {
          await locker.query('BEGIN');
          const cursor = (await locker.query<{ seq: string }>(`SELECT seq::text FROM event_cursors WHERE name = 'webhooks' FOR UPDATE`)).rows[0]!;

          const item = await doomed.api(token).post('/items', { item: { name: 'Filter 20x25', item_type: 'material', unit_price: '14.50' } });
          expect(item.status, item.text).toBe(201);
          doomed.kill();
          expect((await doomed.exited).signal).toBe('SIGKILL');
          // Committed, and behind the cursor no dispatcher could move.
          const event = await eventOf(item.body.data.id, 'item.created');
          expect(BigInt(event.seq)).toBeGreaterThan(BigInt(cursor.seq));
          expect(hook.requests).toHaveLength(1); // the verification only

          await locker.query('ROLLBACK');
          const [, delivered] = await hook.waitFor(2, 30_000);
          expect(delivered!.headers['webhook-id']).toBe(event.id);
          await until('the attempt in the delivery log', async () => (await attemptsLogged(endpointId)) > 0);
          const log = await deliveryLog(survivor, endpointId);
          expect(log).toEqual([expect.objectContaining({ event_id: event.id, attempt: 1, status_code: 204, error: null })]);
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          expect(hook.requests.filter((request) => request.headers['webhook-id'] === event.id)).toHaveLength(1);
        } finally {
          await locker.end();
        }
      },
      120_000,
    );
  });

  describe('GraphQL subscriptions', () => {
    it(
      'a subscriber on one process receives every event of writes made through the other, in seq order, once',
      async () => {
        const [one, two] = [await start(), await start()];
        const received: { seq: number; object: string }[] = [];
        const client = createClient({ url: `${one.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
        const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
        const stop = client.subscribe<{ events: { seq: number; envelope: { data: { object: { id: string } } } } }>(
          { query: 'subscription { events(topics: ["customer.created"]) { seq envelope } }' },
          { next: (result) => result.data && received.push({ seq: Number(result.data.events.seq), object: result.data.events.envelope.data.object.id }), error: () => {}, complete: () => {} },
        );
        try {
          await connected;
          // The subscribe reaches the server right after the socket is acknowledged; give it a moment to be registered.
          await new Promise((resolve) => setTimeout(resolve, 300));
          const ids: string[] = [];
          for (let i = 0; i < 5; i += 1) ids.push((await createCustomer(two.api(token), { organization: `Across ${i}` })).id);
          await until(`${ids.length} events on the other process`, async () => received.length >= ids.length, 10_000);
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(received.map((event) => event.object)).toEqual(ids);
          expect(received.map((event) => event.seq)).toEqual([...received.map((event) => event.seq)].sort((a, b) => a - b));
        } finally {
          stop();
          await client.dispose();
        }
      },
      120_000,
    );
  });
});

interface AttributedRequest {
  webhookId: string | null;
  /** The body's `type` (webhook_endpoint.verification for the handshake). */
  type: string | null;
  /** The process whose socket sent the request (one of the candidates), or null when none holds it. */
  senderPid: number | null;
}

/**
 * A receiver on 127.0.0.1 that answers 204 (the challenge when there is one, so verification passes) and notes,
 * before answering, which of `candidates` sent each request: the sender's socket is looked up in /proc/net/tcp
 * (local port = the request's remote port, remote port = the receiver's) and its inode among each candidate's
 * open files. The sender closes its socket once answered (src/resources/webhooks/outbound.ts sends with agent: false), so the
 * lookup is made while the request is held.
 */
async function attributingReceiver(candidates: number[]): Promise<{ url: string; requests: AttributedRequest[]; close(): Promise<void> }> {
  const requests: AttributedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const senderPid = socketOwner(req.socket.remotePort!, (server.address() as AddressInfo).port, candidates);
      const webhookId = typeof req.headers['webhook-id'] === 'string' ? req.headers['webhook-id'] : null;
      const parsed = (() => {
        try {
          return JSON.parse(body) as { type?: string; challenge?: string };
        } catch {
          return {};
        }
      })();
      requests.push({ webhookId, type: parsed.type ?? null, senderPid });
      const challenge = parsed.challenge ?? null;
      if (challenge) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(challenge);
      } else {
        res.writeHead(204);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
