import { createClient, type Client as WsClient } from 'graphql-ws';
import { Webhook } from 'standardwebhooks';
import WebSocket from 'ws';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { ifMatch } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// Note events (note.created|updated|deleted) reach every consumer of the outbox: webhook deliveries, the GraphQL
// events and noteEvents subscriptions, each carrying the note's parent (notable_type / notable_id). A subscription
// receives the notes of every parent, so it needs the read scope of every parent resource (docs/decisions.md, Notes).

const t = useTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0,0,0' } });
const { tenant, api } = useTenant(t);
const receivers: Receiver[] = [];
const clients: WsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

const TOPICS = ['note.created', 'note.updated', 'note.deleted'];

/** A live GraphQL subscription: its results as they arrive. */
function subscribe(token: string, query: string, variables?: Record<string, unknown>) {
  const client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  clients.push(client);
  const results: any[] = [];
  let completed = false;
  client.subscribe(
    { query, variables },
    {
      next: (result) => void results.push(result),
      error: (error) => {
        results.push({ transportError: error });
        completed = true;
      },
      complete: () => {
        completed = true;
      },
    },
  );
  const acked = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  return {
    results,
    ready: async () => {
      await acked;
      await new Promise((resolve) => setTimeout(resolve, 150));
    },
    async waitFor(count: number, timeoutMs = 8000) {
      const deadline = Date.now() + timeoutMs;
      while (results.length < count && !completed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      return results;
    },
  };
}

/** A note's life on a new customer: created, pinned, deleted; returns the customer and the note's id. */
async function noteLife() {
  const customer = await createCustomer(api);
  const created = await api.post(`/customers/${customer.id}/notes`, { note: { body: 'Gate code 4711' } });
  expect(created.status, created.text).toBe(201);
  const pinned = await api.patch(`/notes/${created.body.data.id}`, { note: { pinned: true } }, ifMatch(created.headers.get('etag')!));
  expect(pinned.status, pinned.text).toBe(200);
  expect((await api.delete(`/notes/${created.body.data.id}`, ifMatch(pinned.headers.get('etag')!))).status).toBe(204);
  return { customer, id: created.body.data.id as string };
}

/** A key of the tenant's user with these scopes. */
async function keyWith(scopes: string[]) {
  return (await t.app.domain.admin.createKey({ userId: tenant.userId, scopes })).token;
}

describe('note events', () => {
  it('are delivered to a webhook endpoint, signed, each carrying the note and its parent, the update naming its changed field', async () => {
    const echo = await startReceiver({ kind: 'echo' });
    receivers.push(echo);
    const endpoint = await api.post('/webhooks/endpoints', { endpoint: { url: echo.url, topics: TOPICS } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const { customer, id } = await noteLife();
    const deliveries = (await echo.waitFor(4)).slice(1);
    const verifier = new Webhook(endpoint.body.data.secret);
    for (const delivery of deliveries) expect(() => verifier.verify(delivery.body, delivery.headers)).not.toThrow();
    // Deliveries are concurrent: in the order of the events (their ids are UUID v7, made in commit order).
    const events = deliveries.map((delivery) => JSON.parse(delivery.body)).sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(events.map((event) => event.type)).toEqual(TOPICS);
    for (const event of events) expect(event.data.object).toMatchObject({ id, notable_type: 'Customer', notable_id: customer.id, body: 'Gate code 4711' });
    expect(events[1].data.changed_fields).toEqual(['pinned']);
  });

  it('are refused to a webhook endpoint of a key that cannot read every parent resource (403 auth.scope_missing), and nothing is stored', async () => {
    const token = await keyWith(['webhooks:write', 'customers:read']);
    const res = await t.client(token).post('/webhooks/endpoints', { endpoint: { url: 'https://example.com/hooks', topics: ['note.created'] } });
    const problem = expectProblem(res, { status: 403, code: 'auth.scope_missing' });
    expect(problem.required_scope).toMatch(/:read$/);
    expect(problem.required_scope).not.toBe('customers:read');
    expect((await api.get('/webhooks/endpoints?limit=100')).body.data.filter((e: any) => e.url === 'https://example.com/hooks')).toEqual([]);
  });

  it('reach the GraphQL events subscription with the webhook envelope and noteEvents with the Note and its parent', async () => {
    const envelopes = subscribe(tenant.token, 'subscription($topics: [String!]!) { events(topics: $topics) { topic envelope } }', { topics: TOPICS });
    const typed = subscribe(tenant.token, 'subscription { noteEvents { topic changedFields note { id pinned notableType notableId } } }');
    await envelopes.ready();
    await typed.ready();
    const { customer, id } = await noteLife();
    const carried = (await envelopes.waitFor(3)).map((result) => result.data.events);
    expect(carried.map((event) => event.topic)).toEqual(TOPICS);
    for (const event of carried) expect(event.envelope.data.object).toMatchObject({ id, notable_type: 'Customer', notable_id: customer.id });
    const records = (await typed.waitFor(3)).map((result) => result.data.noteEvents);
    expect(records.map((event) => event.topic)).toEqual(['NOTE_CREATED', 'NOTE_UPDATED', 'NOTE_DELETED']);
    expect(records[0].note).toEqual({ id, pinned: false, notableType: 'CUSTOMER', notableId: customer.id });
    expect(records[1].changedFields).toEqual(['pinned']);
  });

  it('are refused to a GraphQL subscription of a key that cannot read every parent resource', async () => {
    const token = await keyWith(['customers:read']);
    const typed = subscribe(token, 'subscription { noteEvents { topic } }');
    const [result] = await typed.waitFor(1);
    expect(result.errors?.[0]?.extensions?.code ?? result.transportError).toBe('auth.scope_missing');
  });
});
