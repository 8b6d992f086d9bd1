import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, startTestApp, TestClock, useTenant, useTestApp, type TestApp } from '../helpers/app.ts';
import { ifMatch } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';
import { closedPortUrl, startHttpsReceiver, startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// Webhook endpoints (docs/webhooks.md): registration with the verification handshake, topic rules, outbound
// safety, signed deliveries from the outbox, retries, the circuit breaker, disabling, replay and secret rotation.
// Receivers are real HTTP(S) servers on 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets the app reach them).

const env = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_VERIFY_TIMEOUT_MS: '400',
  WEBHOOK_TIMEOUT_MS: '400',
  WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0',
  WEBHOOK_PAUSE_AFTER_FAILURES: '3',
};
const t = useTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env });
const { tenant, api } = useTenant(t);
const receivers: Receiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

async function receiver(behaviour: Parameters<typeof startReceiver>[0] = { kind: 'echo' }): Promise<Receiver> {
  const started = await startReceiver(behaviour);
  receivers.push(started);
  return started;
}

function register(url: string, topics: unknown = ['customer.created', 'customer.updated'], extra: Record<string, unknown> = {}) {
  return api.post('/webhooks/endpoints', { endpoint: { url, topics, ...extra } });
}

async function endpointsCount(): Promise<number> {
  return (await api.get('/webhooks/endpoints?limit=100')).body.data.length;
}

/** The deliveries the receiver got, parsed: the ones of this topic. */
function bodies(requests: { body: string }[], topic?: string) {
  return requests.map((request) => JSON.parse(request.body)).filter((body) => topic === undefined || body.type === topic);
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('registering an endpoint runs the verification handshake', () => {
  it('an endpoint that echoes the challenge is created verified, with its secret shown once', async () => {
    const echo = await receiver();
    const res = await register(echo.url, ['customer.created'], { description: 'ERP sync' });
    expect(res.status, res.text).toBe(201);
    const endpoint = res.body.data;
    expect(endpoint).toMatchObject({ url: echo.url, topics: ['customer.created'], status: 'verified', description: 'ERP sync', consecutive_failures: 0, paused_until: null });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(res.headers.get('location')).toBe(`/api/v2/webhooks/endpoints/${endpoint.id}`);
    const [challenge] = bodies(echo.requests);
    expect(challenge.type).toBe('webhook_endpoint.verification');
    expect(challenge.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const read = await api.get(`/webhooks/endpoints/${endpoint.id}`);
    expect(read.body.data.status).toBe('verified');
    expect(read.body.data).not.toHaveProperty('secret');
    expect(JSON.stringify((await api.get('/webhooks/endpoints')).body)).not.toContain(endpoint.secret);
  });

  it('a JSON {"challenge": ...} echo is accepted too', async () => {
    const res = await register((await receiver({ kind: 'echo-json' })).url);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.status).toBe('verified');
  });

  const failures = [
    { cause: 'a 2xx answer without the challenge', code: 'verification.echo_mismatch', url: () => receiver({ kind: 'status', status: 200, body: 'hello' }).then((r) => r.url) },
    { cause: 'no answer within the verification timeout', code: 'verification.timeout', url: () => receiver({ kind: 'hang' }).then((r) => r.url) },
    { cause: 'a self-signed certificate', code: 'verification.ssl_error', url: () => startHttpsReceiver({ kind: 'echo' }).then((r) => (receivers.push(r), r.url)) },
    { cause: 'a closed port', code: 'verification.network_unreachable', url: () => closedPortUrl() },
    { cause: 'a 500 answer', code: 'verification.unknown_error', url: () => receiver({ kind: 'status', status: 500, body: 'database down' }).then((r) => r.url) },
  ] as const;
  for (const failure of failures) {
    it(`${failure.cause} answers 422 ${failure.code} with the endpoint id; the endpoint stays stored unverified`, async () => {
      const res = await register(await failure.url());
      const problem = expectProblem(res, { status: 422, code: failure.code });
      expect(problem.endpoint_id).toMatch(/^[0-9a-f-]{36}$/);
      const stored = await api.get(`/webhooks/endpoints/${problem.endpoint_id}`);
      expect(stored.status).toBe(200);
      expect(stored.body.data.status).toBe('unverified');
      if (failure.code === 'verification.unknown_error') expect(problem.detail).toContain('HTTP 500: database down');
    });
  }

  it('POST .../verify retries the handshake: once the endpoint echoes, it is verified', async () => {
    const flaky = await receiver({ kind: 'status', status: 200, body: 'not yet' });
    const problem = expectProblem(await register(flaky.url), { status: 422, code: 'verification.echo_mismatch' });
    flaky.setBehaviour({ kind: 'echo' });
    const res = await api.post(`/webhooks/endpoints/${problem.endpoint_id}/verify`, {});
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.webhook_endpoint.status).toBe('verified');
    const verified = await t.database.prisma.event.findMany({ where: { record_id: problem.endpoint_id, topic: 'webhook_endpoint.verified' } });
    expect(verified).toHaveLength(1);
  });
});

describe('topics', () => {
  it('an empty or all-blank topics list is 422 validation.no_topics and nothing is stored', async () => {
    const echo = await receiver();
    const before = await endpointsCount();
    expectProblem(await register(echo.url, []), { status: 422, code: 'validation.no_topics' });
    expectProblem(await register(echo.url, ['  ', '']), { status: 422, code: 'validation.no_topics' });
    expect(await endpointsCount()).toBe(before);
    expect(echo.requests).toHaveLength(0);
  });

  it('an unknown topic is 422 validation.failed naming topics', async () => {
    const before = await endpointsCount();
    expectProblem(await register((await receiver()).url, ['customer.created', 'customer.exploded']), { status: 422, code: 'validation.failed', errors: { topics: true } });
    expect(await endpointsCount()).toBe(before);
  });

  it('a registered topic that is not available is 422 topic.not_available: a module that is off', async () => {
    const before = await endpointsCount();
    await t.app.domain.admin.updateAccount(tenant.accountId, { modules: { System: 'off' } });
    const off = expectProblem(await register((await receiver()).url, ['system.created']), { status: 422, code: 'topic.not_available', detail: 'System module is off' });
    expect(off.topics).toEqual(['system.created']);
    expect(await endpointsCount()).toBe(before);
    const available = (await api.get('/webhooks/available_topics')).body.data.map((topic: { name: string }) => topic.name);
    expect(available).not.toContain('system.created');
    await t.app.domain.admin.updateAccount(tenant.accountId, { modules: { System: 'on' } });
    const after = (await api.get('/webhooks/available_topics')).body.data.map((topic: { name: string }) => topic.name);
    expect(after).toContain('system.created');
  });

  it('GET /webhooks/available_topics lists every subscribable topic with its description and resource', async () => {
    const res = await api.get('/webhooks/available_topics');
    expect(res.status).toBe(200);
    const byName = new Map(res.body.data.map((topic: { name: string }) => [topic.name, topic]));
    for (const name of ['customer.created', 'job.status_changed', 'contact_linkage.updated', 'estimate.converted', 'lead.converted', 'webhook_endpoint.paused', 'stock_level.updated']) {
      expect(byName.get(name), name).toMatchObject({ name, resource: expect.any(String), description: expect.any(String) });
    }
    expect(byName.get('job.updated')).toMatchObject({ resource: 'Job' });
    expect(byName.get('recurring_job.created')).toMatchObject({ resource: 'RecurringJob' });
    for (const name of byName.keys()) expect(name).toMatch(/^[a-z_]+\.[a-z_]+$/);
  });
});

describe('outbound safety', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 } });
  });
  afterAll(() => strict.close());

  it('without WEBHOOK_ALLOW_PRIVATE_NETWORKS a URL on a loopback or private address is refused on url, and nothing is sent', async () => {
    const { api: strictApi } = await strict.newTenant();
    const echo = await receiver();
    for (const url of [echo.url, 'http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://[::1]/x']) {
      const res = await strictApi.post('/webhooks/endpoints', { endpoint: { url, topics: ['customer.created'] } });
      const problem = expectProblem(res, { status: 422, code: 'validation.failed', errors: { url: true } });
      // The refusal names the setting that would allow the address, except for cloud metadata, which nothing allows.
      const message = JSON.stringify(problem.errors);
      if (url.includes('169.254.169.254')) expect(message).not.toMatch(/WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
      else expect(message).toMatch(/(loopback|private) address \([^)]+\); a server allows such addresses only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
    }
    expect(echo.requests).toHaveLength(0);
  });

  it('in development (NODE_ENV unset or development) a loopback URL works by default, while private networks stay refused; WEBHOOK_ALLOW_PRIVATE_NETWORKS=false refuses loopback too', async () => {
    for (const NODE_ENV of ['', 'development']) {
      const development = await startTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env: { NODE_ENV } });
      try {
        const { api: devApi } = await development.newTenant();
        const echo = await receiver();
        const created = await devApi.post('/webhooks/endpoints', { endpoint: { url: echo.url, topics: ['customer.created'] } });
        expect(created.status, `${NODE_ENV}: ${created.text}`).toBe(201);
        expect(created.body.data.status).toBe('verified');
        const message = JSON.stringify(expectProblem(await devApi.post('/webhooks/endpoints', { endpoint: { url: 'http://10.1.2.3/hook', topics: ['customer.created'] } }), { status: 422, code: 'validation.failed', errors: { url: true } }).errors);
        expect(message).toMatch(/private address \(10\.1\.2\.3\); a server allows such addresses only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/);
      } finally {
        await development.close();
      }
    }
    const refusing = await startTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env: { NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });
    try {
      const { api: refusingApi } = await refusing.newTenant();
      const echo = await receiver();
      const refused = expectProblem(await refusingApi.post('/webhooks/endpoints', { endpoint: { url: echo.url, topics: ['customer.created'] } }), { status: 422, code: 'validation.failed', errors: { url: true } });
      expect(JSON.stringify(refused.errors)).toMatch(/loopback address .*loopback is allowed by default in development/);
      expect(echo.requests).toHaveLength(0);
    } finally {
      await refusing.close();
    }
  });
});

describe('cloud credential addresses', () => {
  it('are refused on url even with WEBHOOK_ALLOW_PRIVATE_NETWORKS: instance metadata and container credentials', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://169.254.170.2/v2/credentials', 'http://100.100.100.200/latest', 'http://168.63.129.16/machine', 'http://[fd00:ec2::254]/latest']) {
      const res = await register(url);
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { url: true } });
    }
  });
});

describe('deliveries', () => {
  it('a committed write is delivered signed (Standard Webhooks), with the record as REST serves it; an update names its changed fields', async () => {
    const echo = await receiver();
    const created = await register(echo.url, ['customer.created', 'customer.updated']);
    const secret = created.body.data.secret as string;
    const customer = await api.post('/customers', { customer: { organization: 'Webhook Heating' } });
    expect(customer.status).toBe(201);
    const patched = await api.patch(`/customers/${customer.body.data.id}`, { customer: { organization: 'Webhook Heating & Air' } }, ifMatch(customer.headers.get("etag")!));
    expect(patched.status).toBe(200);
    const requests = await echo.waitFor(3);
    const deliveries = requests.slice(1);
    const receiverSide = new Webhook(secret);
    for (const delivery of deliveries) {
      expect(() => receiverSide.verify(delivery.body, delivery.headers)).not.toThrow();
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    }
    const [createdEvent, updatedEvent] = bodies(deliveries);
    expect(createdEvent).toMatchObject({ type: 'customer.created', api_version: expect.any(String), data: { object: { id: customer.body.data.id, organization: 'Webhook Heating' } } });
    expect(createdEvent.id).toBe(deliveries[0]!.headers['webhook-id']);
    expect(updatedEvent).toMatchObject({ type: 'customer.updated', data: { object: { organization: 'Webhook Heating & Air' }, changed_fields: ['organization'] } });
    const stored = await t.database.prisma.event.findUnique({ where: { id: createdEvent.id } });
    expect(stored?.topic).toBe('customer.created');
  });

  it('a delivery that fails is retried with the same webhook-id until it succeeds; every attempt is in the delivery log', async () => {
    const flaky = await receiver();
    const created = await register(flaky.url, ['lead.created']);
    flaky.setBehaviour({ kind: 'fail-then-recover', failures: 2 });
    const lead = await api.post('/leads', { lead: { organization: 'Retry Plumbing' } });
    expect(lead.status, lead.text).toBe(201);
    const requests = await flaky.waitFor(4);
    const attempts = requests.slice(1);
    expect(new Set(attempts.map((request) => request.headers['webhook-id'])).size).toBe(1);
    const log = await eventually(
      () => api.get(`/webhooks/endpoints/${created.body.data.id}/deliveries`),
      (res) => res.body.data.length >= 3,
    );
    expect(log.body.data.map((entry: { attempt: number }) => entry.attempt)).toEqual([3, 2, 1]);
    expect(log.body.data[0]).toMatchObject({ status_code: 204, error: null, topic: 'lead.created' });
    expect(log.body.data[2]).toMatchObject({ status_code: 500, error: expect.stringContaining('HTTP 500') });
    const endpoint = await api.get(`/webhooks/endpoints/${created.body.data.id}`);
    expect(endpoint.body.data).toMatchObject({ consecutive_failures: 0, last_delivery_status: 204, last_error: null });
  });

  it('after consecutive failures the endpoint is paused: lifecycle actions answer 409 endpoint.paused; a successful test clears the pause', async () => {
    const failing = await receiver();
    const created = await register(failing.url, ['item.created']);
    const id = created.body.data.id as string;
    failing.setBehaviour({ kind: 'status', status: 503 });
    expect((await api.post('/items', { item: { name: 'Filter 16x25', item_type: 'material', unit_price: '12.50' } })).status).toBe(201);
    const paused = await eventually(
      () => api.get(`/webhooks/endpoints/${id}`),
      (res) => res.body.data.paused_until !== null,
    );
    expect(paused.body.data.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect(new Date(paused.body.data.paused_until).getTime()).toBeGreaterThan(Date.now());
    expectProblem(await api.post(`/webhooks/endpoints/${id}/verify`, {}), { status: 409, code: 'endpoint.paused' });
    expectProblem(await api.post(`/webhooks/endpoints/${id}/rotate_secret`, {}), { status: 409, code: 'endpoint.paused' });
    expectProblem(await api.post(`/webhooks/endpoints/${id}/replay`, { replay: { since: new Date(Date.now() - 60_000).toISOString() } }), { status: 409, code: 'endpoint.paused' });
    expect(await t.database.prisma.event.count({ where: { record_id: id, topic: 'webhook_endpoint.paused' } })).toBe(1);
    failing.setBehaviour({ kind: 'echo' });
    const test = await api.post(`/webhooks/endpoints/${id}/test`, {});
    expect(test.status, test.text).toBe(200);
    expect(test.body.data).toMatchObject({ topic: 'webhook_endpoint.test', status_code: 204, error: null });
    const cleared = await api.get(`/webhooks/endpoints/${id}`);
    expect(cleared.body.data).toMatchObject({ paused_until: null, consecutive_failures: 0 });
  });

  it('a 410 answer disables the endpoint: test and replay answer 409 endpoint.disabled; PATCH with status verified re-enables it', async () => {
    const gone = await receiver();
    const created = await register(gone.url, ['tax_rate.created']);
    const id = created.body.data.id as string;
    gone.setBehaviour({ kind: 'status', status: 410 });
    const tax = await api.post('/tax_rates', { tax_rate: { name: 'Gone tax', rate: '5.00' } });
    expect(tax.status, tax.text).toBe(201);
    const disabled = await eventually(() => api.get(`/webhooks/endpoints/${id}`), (res) => res.body.data.status === 'disabled');
    expect(disabled.body.data.status).toBe('disabled');
    expectProblem(await api.post(`/webhooks/endpoints/${id}/test`, {}), { status: 409, code: 'endpoint.disabled' });
    expectProblem(await api.post(`/webhooks/endpoints/${id}/replay`, { replay: { since: new Date(Date.now() - 60_000).toISOString() } }), { status: 409, code: 'endpoint.disabled' });
    gone.setBehaviour({ kind: 'echo' });
    const enabled = await api.patch(`/webhooks/endpoints/${id}`, { endpoint: { status: 'verified' } }, ifMatch(disabled.headers.get("etag")!));
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.data.status).toBe('verified');
  });

  it('replay re-sends past events with their original ids; rotate_secret signs with both secrets for a day', async () => {
    const echo = await receiver();
    const created = await register(echo.url, ['customer.created']);
    const id = created.body.data.id as string;
    const oldSecret = created.body.data.secret as string;
    const customer = await api.post('/customers', { customer: { organization: 'Replay Electric' } });
    const [first] = bodies((await echo.waitFor(2)).slice(1));
    expect(first.data.object.id).toBe(customer.body.data.id);
    const rotated = await api.post(`/webhooks/endpoints/${id}/rotate_secret`, {});
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.data.secret as string;
    expect(newSecret).not.toBe(oldSecret);
    const replay = await api.post(`/webhooks/endpoints/${id}/replay`, { replay: { event_ids: [first.id] } });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body.data).toMatchObject({ queued: 1, event_ids: [first.id] });
    const [, , again] = await echo.waitFor(3);
    expect(again!.headers['webhook-id']).toBe(first.id);
    expect(() => new Webhook(newSecret).verify(again!.body, again!.headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(again!.body, again!.headers)).not.toThrow();
  });

  it('replay refuses a malformed request with 422 naming the field, and queues nothing', async () => {
    const echo = await receiver();
    const id = (await register(echo.url, ['customer.created'])).body.data.id as string;
    const cases: [unknown, string][] = [
      [{}, 'replay'],
      [{ replay: [] }, 'replay'],
      [{ replay: {} }, 'since'],
      [{ replay: { event_ids: [] } }, 'event_ids'],
      [{ replay: { event_ids: ['not-an-id'] } }, 'event_ids.0'],
      [{ replay: { event_ids: 'x' } }, 'event_ids'],
      [{ replay: { event_ids: [crypto.randomUUID()], since: new Date().toISOString() } }, 'event_ids'],
      [{ replay: { since: 'yesterday' } }, 'since'],
      [{ replay: { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' } }, 'until'],
      [{ replay: { since: '2026-01-01T00:00:00Z', from: 'x' } }, 'from'],
    ];
    for (const [body, field] of cases) {
      const answer = await api.post(`/webhooks/endpoints/${id}/replay`, body);
      expectProblem(answer, { status: 422, code: 'validation.failed' });
      expect(Object.keys(answer.body.errors), JSON.stringify(body)).toContain(field);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(echo.requests).toHaveLength(1);
    // The endpoint is looked up first (the documented order 404 -> 422): a malformed replay of none is 404.
    expectProblem(await api.post(`/webhooks/endpoints/${crypto.randomUUID()}/replay`, { replay: { since: 'yesterday' } }), { status: 404, code: 'resource.not_found' });
  });

  it('a rolled-back write is never delivered', async () => {
    const echo = await receiver();
    await register(echo.url, ['customer.created']);
    const refused = await api.post('/customers', { customer: { organization: '' } });
    expect(refused.status).toBe(422);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(echo.requests).toHaveLength(1);
  });
});

describe('webhook management counts in the webhook_ingest bucket', () => {
  const limited = useTestApp({ rateLimits: { webhook_ingest: 2 }, env });
  it('the third request in a minute is 429 while other endpoints still answer', async () => {
    const { api: limitedApi } = await limited.newTenant();
    expect((await limitedApi.get('/webhooks/endpoints')).status).toBe(200);
    expect((await limitedApi.get('/webhooks/available_topics')).status).toBe(200);
    expectProblem(await limitedApi.get('/webhooks/endpoints'), { status: 429, code: 'rate_limit.exceeded' });
    expect((await limitedApi.get('/customers')).status).toBe(200);
  });
});

describe('an endpoint failing continuously for WEBHOOK_DISABLE_AFTER_DAYS', () => {
  const clock = new TestClock();
  const timed = useTestApp({ clock, rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env: { ...env, WEBHOOK_PAUSE_AFTER_FAILURES: '1000', WEBHOOK_RETRY_SCHEDULE: '3600' } });
  it('is disabled, with its lifecycle event', async () => {
    const { api: timedApi } = await timed.newTenant();
    const failing = await receiver();
    const created = await timedApi.post('/webhooks/endpoints', { endpoint: { url: failing.url, topics: ['customer.created'] } });
    const id = created.body.data.id as string;
    failing.setBehaviour({ kind: 'status', status: 500 });
    await timedApi.post('/customers', { customer: { organization: 'Day one' } });
    const failingSince = await eventually(() => timedApi.get(`/webhooks/endpoints/${id}`), (res) => res.body.data.failing_since !== null);
    expect(failingSince.body.data).toMatchObject({ status: 'verified', consecutive_failures: 1 });
    clock.advance(5 * 86_400_000 + 60_000);
    await timedApi.post('/customers', { customer: { organization: 'Day six' } });
    const disabled = await eventually(() => timedApi.get(`/webhooks/endpoints/${id}`), (res) => res.body.data.status === 'disabled');
    expect(disabled.body.data.status).toBe('disabled');
    expect(await timed.database.prisma.event.count({ where: { record_id: id, topic: 'webhook_endpoint.disabled' } })).toBe(1);
  });
});
