import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { freshKey } from '../helpers/factories/records.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';
import { scrape } from './prometheus.ts';

// /metrics of the event pipeline (docs/operations.md, "Event pipeline"): the outbox head and its readers' lag, the
// job queues' depth, webhook delivery jobs by outcome with the endpoints' answer times, open WebSockets and
// subscriptions, and requests with an Idempotency-Key by outcome. The first retry of a failed delivery is an hour
// away, so it stays in the queue as a deferred job while the test looks.

const t = useTestApp({ rateLimits: highRateLimits, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '3600' } });
const { api, tenant } = useTenant(t);

const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** Scrapes until `check` holds (the pipeline works in the background), then answers that scrape. */
async function scrapeUntil(check: (figures: Awaited<ReturnType<typeof scrape>>) => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const figures = await scrape(t);
    if (check(figures)) return figures;
    if (Date.now() > deadline) throw new Error(`metrics never matched:\n${figures.text.split('\n').filter((line) => /fieldline_(events|queue|webhook|graphql_(websockets|subscriptions)|idempotency)/.test(line)).join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('event pipeline metrics', () => {
  it("reports the outbox head and, per reader (the webhook dispatcher, this process's subscription tail), the events not yet handed on and the oldest one's age", async () => {
    const before = (await scrape(t)).value('fieldline_events_outbox_head_seq') ?? 0;
    for (const organization of ['Lag One', 'Lag Two']) expect((await api.post('/customers', { customer: { organization } })).status).toBe(201);
    const { value } = await scrapeUntil(
      ({ value }) => value('fieldline_events_lag_events', { reader: 'webhooks' }) === 0 && value('fieldline_events_lag_events', { reader: 'tail' }) === 0,
    );
    expect(value('fieldline_events_outbox_head_seq')).toBeGreaterThanOrEqual(before + 2);
    expect(value('fieldline_events_lag_seconds', { reader: 'webhooks' })).toBe(0);
    expect(value('fieldline_events_lag_seconds', { reader: 'tail' })).toBe(0);
  });

  // Holding the dispatcher's cursor needs a second connection: PostgreSQL only (the embedded database has one).
  it.runIf(process.env.TEST_DATABASE_URL)('reports the events the webhook dispatcher has not handed on while it is held up, and how old the oldest is', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // The dispatcher skips a cursor another transaction holds (FOR UPDATE SKIP LOCKED), as it does while another process dispatches.
    const holder = t.database.prisma.$transaction(
      async (tx) => {
        await tx.$queryRawUnsafe(`SELECT seq FROM event_cursors WHERE name = 'webhooks' FOR UPDATE`);
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    try {
      await isLocked;
      for (const organization of ['Held One', 'Held Two']) expect((await api.post('/customers', { customer: { organization } })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const { value } = await scrape(t);
      expect(value('fieldline_events_lag_events', { reader: 'webhooks' })).toBeGreaterThanOrEqual(2);
      expect(value('fieldline_events_lag_seconds', { reader: 'webhooks' })).toBeGreaterThanOrEqual(1);
    } finally {
      release();
      await holder;
    }
    await scrapeUntil(({ value }) => value('fieldline_events_lag_events', { reader: 'webhooks' }) === 0);
  });

  it('counts webhook delivery jobs by outcome, every outcome from 0, with the time endpoints took to answer; a failed one leaves its retry in the queue as deferred', async () => {
    const first = await scrape(t);
    for (const outcome of ['delivered', 'failed', 'dropped', 'deferred', 'error']) expect(first.value('fieldline_webhook_deliveries_total', { outcome })).toBeGreaterThanOrEqual(0);
    const delivered = first.value('fieldline_webhook_deliveries_total', { outcome: 'delivered' })!;
    const failed = first.value('fieldline_webhook_deliveries_total', { outcome: 'failed' })!;

    const receiver = await startReceiver({ kind: 'echo' });
    receivers.push(receiver);
    const endpoint = await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: ['customer.created'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    expect((await api.post('/customers', { customer: { organization: 'Delivered Co' } })).status).toBe(201);
    await receiver.waitFor(2);
    const afterSuccess = await scrapeUntil(({ value }) => value('fieldline_webhook_deliveries_total', { outcome: 'delivered' }) === delivered + 1);
    expect(afterSuccess.value('fieldline_webhook_delivery_request_duration_seconds_count', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(afterSuccess.value('fieldline_webhook_delivery_request_duration_seconds_sum', { outcome: 'delivered' })).toBeGreaterThan(0);

    receiver.setBehaviour({ kind: 'status', status: 500 });
    expect((await api.post('/customers', { customer: { organization: 'Failed Co' } })).status).toBe(201);
    const afterFailure = await scrapeUntil(({ value }) => value('fieldline_webhook_deliveries_total', { outcome: 'failed' }) === failed + 1);
    expect(afterFailure.value('fieldline_webhook_delivery_request_duration_seconds_count', { outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    // The retry waits an hour: deferred, not ready; nothing of the delivery queue is due, so its oldest ready job is 0 s old.
    expect(afterFailure.value('fieldline_queue_jobs', { queue: 'webhook-delivery', state: 'deferred' })).toBeGreaterThanOrEqual(1);
    expect(afterFailure.value('fieldline_queue_jobs', { queue: 'webhook-delivery', state: 'ready' })).toBe(0);
    expect(afterFailure.value('fieldline_queue_oldest_ready_job_age_seconds', { queue: 'webhook-delivery' })).toBe(0);
    // Every queue of the app has its series, each with the three states.
    for (const queue of ['webhook-delivery', 'events-purge', 'idempotency-keys-purge', 'files-purge']) {
      for (const state of ['ready', 'deferred', 'active']) expect(afterFailure.value('fieldline_queue_jobs', { queue, state }), `${queue} ${state}`).toBeGreaterThanOrEqual(0);
    }
  });

  it('counts the open GraphQL WebSockets and the subscriptions they hold, and both go back down when the client leaves', async () => {
    const base = await scrape(t);
    const sockets = base.value('fieldline_graphql_websockets_open')!;
    const subscriptions = base.value('fieldline_graphql_subscriptions_active')!;
    const client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${tenant.token}` }, retryAttempts: 0, lazy: true });
    const events: unknown[] = [];
    const stop = client.subscribe({ query: 'subscription { customerEvents { topic } }' }, { next: (event) => events.push(event), error: () => {}, complete: () => {} });
    try {
      await scrapeUntil(({ value }) => value('fieldline_graphql_subscriptions_active') === subscriptions + 1);
      expect((await scrape(t)).value('fieldline_graphql_websockets_open')).toBe(sockets + 1);
    } finally {
      stop();
      await client.dispose();
    }
    await scrapeUntil(({ value }) => value('fieldline_graphql_subscriptions_active') === subscriptions && value('fieldline_graphql_websockets_open') === sockets);
  });

  it('counts requests with an Idempotency-Key by outcome: completed, replayed, mismatch (another body) and failed (a refused body releases the key)', async () => {
    const count = async (outcome: string) => (await scrape(t)).value('fieldline_idempotency_requests_total', { outcome })!;
    const before = Object.fromEntries(await Promise.all(['completed', 'replayed', 'mismatch', 'failed', 'in_flight'].map(async (outcome) => [outcome, await count(outcome)] as const)));
    const customer = await api.post('/customers', { customer: { organization: 'Keyed Co' } });
    const key = freshKey();
    const body = { invoice: { customer_id: customer.body.data.id, lineitems: [{ description: 'Visit', quantity: 1, unit_price: 80 }] } };
    expect((await api.post('/invoices', body, key)).status).toBe(201);
    expect((await api.post('/invoices', body, key)).status).toBe(201);
    expect((await api.post('/invoices', { invoice: { ...body.invoice, reference: 'other' } }, key)).status).toBe(409);
    expect((await api.post('/invoices', { invoice: { customer_id: 'not-a-customer' } }, freshKey())).status).toBe(422);
    expect(await count('completed')).toBe(before.completed + 1);
    expect(await count('replayed')).toBe(before.replayed + 1);
    expect(await count('mismatch')).toBe(before.mismatch + 1);
    expect(await count('failed')).toBe(before.failed + 1);
    expect(await count('in_flight')).toBe(before.in_flight);
  });
});
