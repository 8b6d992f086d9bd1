import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { siteFields } from '../helpers/factories/sites.ts';
import { userClient } from '../helpers/factories/accounts.ts';

// GraphQL subscriptions (graphql-ws on /graphql): events(topics) carries exactly what webhooks carry; the typed
// <resource>Events carry the record as its GraphQL type, its etag and changed fields; afterSeq replays what a
// reconnecting client missed, then goes live; streams are tenant-scoped and scope-checked; a revoked key's streams
// end within seconds. And GET /events, the change feed by seq.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

const clients: WsClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
});

/** A live subscription: its results as they arrive, and a way to wait for the nth. */
function subscribe(token: string, query: string, variables?: Record<string, unknown>) {
  const client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  clients.push(client);
  const results: any[] = [];
  let completed = false;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((resolve) => resolve());
  const done = new Promise<void>((resolve) => {
    client.subscribe(
      { query, variables },
      {
        next: (result) => {
          results.push(result);
          wake();
        },
        error: (error) => {
          results.push({ transportError: error });
          completed = true;
          wake();
          resolve();
        },
        complete: () => {
          completed = true;
          wake();
          resolve();
        },
      },
    );
  });
  const acked = new Promise<void>((resolve) => client.on('connected', () => resolve()));
  return {
    results,
    done,
    /** Resolves once the server has the subscription (the socket is acknowledged and the subscribe sent). */
    ready: async () => {
      await acked;
      await new Promise((resolve) => setTimeout(resolve, 150));
    },
    async waitFor(count: number, timeoutMs = 8000) {
      const deadline = Date.now() + timeoutMs;
      while (results.length < count && !completed) {
        if (Date.now() > deadline) throw new Error(`expected ${count} results, got ${results.length}: ${JSON.stringify(results)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return results;
    },
  };
}

const EVENTS = 'subscription($topics: [String!]!, $afterSeq: SafeInt) { events(topics: $topics, afterSeq: $afterSeq) { seq id topic envelope } }';

describe('the events subscription', () => {
  it('carries each event of the topics with the webhook envelope and its seq, in commit order, and nothing of other topics', async () => {
    const live = subscribe(tenant.token, EVENTS, { topics: ['customer.created', 'customer.updated'] });
    await live.ready();
    const created = await api.post('/customers', { customer: { organization: 'Live Heating' } });
    const updated = await api.patch(`/customers/${created.body.data.id}`, { customer: { organization: 'Live Heating Co' } }, { headers: { 'If-Match': created.headers.get('etag')! } });
    expect(updated.status, updated.text).toBe(200);
    expect((await api.post('/sites', { site: siteFields({ type: 'Customer', id: created.body.data.id }) })).status).toBe(201);
    const [first, second] = (await live.waitFor(2)).map((result) => result.data.events);
    expect(first.topic).toBe('customer.created');
    expect(first.envelope).toMatchObject({ id: first.id, type: 'customer.created', api_version: '2026-04-30', data: { object: created.body.data } });
    expect(second.envelope).toMatchObject({ type: 'customer.updated', data: { object: updated.body.data, changed_fields: ['organization'] } });
    expect(Number(second.seq)).toBeGreaterThan(Number(first.seq));
    const feed = await api.get(`/events?record_id=${created.body.data.id}`);
    expect(feed.status, feed.text).toBe(200);
    expect(feed.body.data.map((event: any) => [event.seq, event.id])).toEqual([
      [first.seq, first.id],
      [second.seq, second.id],
    ]);
    expect(feed.body.data[1]).toEqual({ seq: second.seq, ...second.envelope });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.results).toHaveLength(2);
  });

  it('replays what followed afterSeq, then goes live, without a gap or a repeat', async () => {
    const first = await api.post('/customers', { customer: { organization: 'Before the gap' } });
    const [seen] = (await api.get(`/events?record_id=${first.body.data.id}`)).body.data;
    const missed = await api.post('/customers', { customer: { organization: 'Missed while away' } });
    const resumed = subscribe(tenant.token, EVENTS, { topics: ['customer.created'], afterSeq: seen.seq });
    await resumed.ready();
    const after = await api.post('/customers', { customer: { organization: 'After reconnecting' } });
    const results = await resumed.waitFor(2);
    expect(results.every((result) => result.data), JSON.stringify(results)).toBe(true);
    const objects = results.map((result) => result.data.events.envelope.data.object.id);
    expect(objects).toEqual([missed.body.data.id, after.body.data.id]);
  });

  it('refuses topics as a webhook endpoint does, and topics another key scope would need', async () => {
    const cases: [unknown, string][] = [
      [[], 'validation.no_topics'],
      [['customer.exploded'], 'validation.failed'],
      [['system.created'], 'topic.not_available'],
    ];
    for (const [topics, code] of cases) {
      const refused = subscribe(tenant.token, EVENTS, { topics });
      await refused.done;
      expect(refused.results[0]?.errors?.[0]?.extensions?.code, JSON.stringify(refused.results)).toBe(code);
    }
    const narrow = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const noScope = subscribe(narrow.token, EVENTS, { topics: ['job.created'] });
    await noScope.done;
    expect(noScope.results[0].errors[0].extensions.code).toBe('auth.scope_missing');
  });

  it('never carries another tenant\'s events', async () => {
    const other = await t.newTenant();
    const live = subscribe(other.tenant.token, EVENTS, { topics: ['customer.created'] });
    await live.ready();
    await api.post('/customers', { customer: { organization: 'Not yours' } });
    const theirs = await other.api.post('/customers', { customer: { organization: 'Yours' } });
    const [only] = await live.waitFor(1);
    expect(only.data.events.envelope.data.object.id).toBe(theirs.body.data.id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.results).toHaveLength(1);
    expect((await other.api.get('/events')).body.data.map((event: any) => event.data.object.id)).toEqual([theirs.body.data.id]);
  });

  it('ends the subscriptions of a revoked key within 5 seconds, with auth.token_revoked', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const live = subscribe(key.token, EVENTS, { topics: ['customer.created'] });
    await live.ready();
    await t.app.domain.admin.revokeKey(key.id);
    const revokedAt = Date.now();
    await live.done;
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    expect(live.results.at(-1).errors[0].extensions.code).toBe('auth.token_revoked');
  });
});

describe('typed subscriptions', () => {
  const JOB_EVENTS = `subscription($filter: JobEventFilter, $afterSeq: SafeInt) {
    jobEvents(filter: $filter, afterSeq: $afterSeq) { seq topic etag changedFields job { id title scheduledStart customer { organization } assignees { nodes { id } } assignments { nodes { userId } } } }
  }`;

  it('jobEvents carries the Job with its relations and etag, and filters by window and assignee, reporting a job that leaves the window', async () => {
    const customer = (await api.post('/customers', { customer: { organization: 'Board Customer' } })).body.data;
    const site = (await api.post('/sites', { site: siteFields({ type: 'Customer', id: customer.id }) })).body.data;
    const window = { from: '2030-05-01T00:00:00Z', to: '2030-05-02T00:00:00Z' };
    const live = subscribe(tenant.token, JOB_EVENTS, { filter: window });
    await live.ready();
    const elsewhere = await api.post('/jobs', { job: { customer_id: customer.id, site_id: site.id, title: 'Next week', scheduled_start: '2030-05-08T09:00:00Z' } });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    const job = await api.post('/jobs', { job: { customer_id: customer.id, site_id: site.id, title: 'Boiler service', scheduled_start: '2030-05-01T09:00:00Z' } });
    const moved = await api.patch(`/jobs/${job.body.data.id}`, { job: { scheduled_start: '2030-05-03T09:00:00Z' } }, { headers: { 'If-Match': job.headers.get('etag')! } });
    expect(moved.status, moved.text).toBe(200);
    const [created, update] = (await live.waitFor(2)).map((result) => result.data.jobEvents);
    expect(created).toMatchObject({ topic: 'JOB_CREATED', etag: job.headers.get('etag'), changedFields: null, job: { id: job.body.data.id, title: 'Boiler service', customer: { organization: 'Board Customer' }, assignees: { nodes: [] } } });
    expect(update).toMatchObject({ topic: 'JOB_UPDATED', etag: moved.headers.get('etag'), changedFields: ['scheduledStart'], job: { id: job.body.data.id } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.results).toHaveLength(2);
  });

  it('jobEvents filtered by assignee carries the jobs of those technicians, and reports a job taken from them', async () => {
    const customer = (await api.post('/customers', { customer: { organization: 'Assigned Customer' } })).body.data;
    const site = (await api.post('/sites', { site: siteFields({ type: 'Customer', id: customer.id }) })).body.data;
    const { user: technician } = await userClient(t, tenant, 'technician');
    const { user: other } = await userClient(t, tenant, 'technician');
    const live = subscribe(tenant.token, JOB_EVENTS, { filter: { assigneeIds: [String(technician.id)] } });
    await live.ready();
    const theirs = await api.post('/jobs', { job: { customer_id: customer.id, site_id: site.id, title: 'Other tech', assignments: [{ user_id: other.id }] } });
    expect(theirs.status, theirs.text).toBe(201);
    const mine = await api.post('/jobs', { job: { customer_id: customer.id, site_id: site.id, title: 'Mine', assignments: [{ user_id: technician.id }] } });
    const handedOver = await api.patch(`/jobs/${mine.body.data.id}`, { job: { assignments: [{ user_id: other.id }] } }, { headers: { 'If-Match': mine.headers.get('etag')! } });
    expect(handedOver.status, handedOver.text).toBe(200);
    const [created, moved] = (await live.waitFor(2)).map((result) => result.data?.jobEvents ?? result);
    expect(created).toMatchObject({ topic: 'JOB_CREATED', job: { id: mine.body.data.id, assignments: { nodes: [{ userId: technician.id }] } } });
    expect(moved).toMatchObject({ topic: 'JOB_UPDATED', changedFields: ['assignments'], job: { assignments: { nodes: [{ userId: other.id }] } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.results).toHaveLength(2);
  });

  it('subscription documents pass the cost limits, and are refused over HTTP (graphql.websocket_required)', async () => {
    const deep = `subscription { jobEvents { job { customer { ${'sites { nodes { customer { '.repeat(5)}id${' } } }'.repeat(5)} } } } }`;
    const refused = subscribe(tenant.token, deep);
    await refused.done;
    const errors = refused.results[0]?.errors ?? refused.results[0]?.transportError;
    expect(['graphql.depth_exceeded', 'graphql.cost_exceeded'], JSON.stringify(refused.results)).toContain(errors?.[0]?.extensions?.code);
    const overHttp = await t.graphql(tenant.token)('subscription { events(topics: ["customer.created"]) { seq } }');
    expect(overHttp.status).toBe(400);
    expect(overHttp.body.errors?.[0]?.extensions?.code).toBe('graphql.websocket_required');
  });

  it('serves each subscriber of one event what its own key may read: a key without customers:read gets a null customer and its own error, beside one that reads it', async () => {
    const customer = (await api.post('/customers', { customer: { organization: 'Scoped Customer' } })).body.data;
    const site = (await api.post('/sites', { site: siteFields({ type: 'Customer', id: customer.id }) })).body.data;
    const narrow = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const document = 'subscription { jobEvents { topic job { title customer { organization } } } }';
    const [full, first, second] = [subscribe(tenant.token, document), subscribe(narrow.token, document), subscribe(narrow.token, document)];
    await Promise.all([full.ready(), first.ready(), second.ready()]);
    const job = await api.post('/jobs', { job: { customer_id: customer.id, site_id: site.id, title: 'Scoped job' } });
    expect(job.status, job.text).toBe(201);
    const [[seen], [hidden], [alsoHidden]] = await Promise.all([full.waitFor(1), first.waitFor(1), second.waitFor(1)]);
    expect(seen).toEqual({ data: { jobEvents: { topic: 'JOB_CREATED', job: { title: 'Scoped job', customer: { organization: 'Scoped Customer' } } } } });
    for (const result of [hidden, alsoHidden]) {
      expect(result.data, JSON.stringify(result)).toEqual({ jobEvents: { topic: 'JOB_CREATED', job: { title: 'Scoped job', customer: null } } });
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'auth.scope_missing' });
      expect(result.errors[0].path).toEqual(['jobEvents', 'job', 'customer']);
    }
    // One execution may serve both narrow subscribers; each error still names its own subscription's request.
    expect(hidden.errors[0].extensions.requestId).toEqual(expect.any(String));
    expect(alsoHidden.errors[0].extensions.requestId).toEqual(expect.any(String));
    expect(hidden.errors[0].extensions.requestId).not.toBe(alsoHidden.errors[0].extensions.requestId);
  });

  it('needs the resource read scope', async () => {
    const narrow = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const refused = subscribe(narrow.token, JOB_EVENTS, {});
    await refused.done;
    expect(refused.results[0]?.errors?.[0]?.extensions?.code, JSON.stringify(refused.results)).toBe('auth.scope_missing');
  });
});

describe('GET /events', () => {
  it('pages by seq with the list conventions and filters by topic, resource and created_at', async () => {
    const { api: own } = await t.newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await own.post('/customers', { customer: { organization: `Feed ${i}` } })).body.data.id);
    const first = await own.get('/events?limit=2');
    expect(first.status, first.text).toBe(200);
    expect(first.body.has_more).toBe(true);
    const second = await own.get(`/events?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect([...first.body.data, ...second.body.data].map((event: any) => event.data.object.id)).toEqual(ids);
    const after = await own.get(`/events?seq[gt]=${first.body.data[0].seq}&topic=customer.created`);
    expect(after.body.data.map((event: any) => event.data.object.id)).toEqual(ids.slice(1));
    expect((await own.get('/events?resource=job')).body.data).toEqual([]);
    expect((await own.get('/events?created_at[lt]=2000-01-01T00:00:00Z')).body.data).toEqual([]);
  });

  it('answers 400 filter.invalid for an unknown topic or parameter and 403 for a topic the key may not read; lists only readable topics', async () => {
    expect((await api.get('/events?topic=customer.exploded')).body.code).toBe('filter.invalid');
    expect((await api.get('/events?colour=red')).body.code).toBe('filter.invalid');
    const narrow = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const client = t.client(narrow.token);
    const refused = await client.get('/events?topic=customer.created');
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('auth.scope_missing');
    const listed = await client.get('/events?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.data.every((event: any) => event.type.startsWith('job.'))).toBe(true);
  });
});
