import { createClient } from 'graphql-ws';
import { register as globalRegistry } from 'prom-client';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { limits } from '../../src/graphql/schema/cost.ts';
import { startTestApp, useTenant, useTestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';
import { scrape } from './prometheus.ts';

// GET /metrics: Prometheus text on a registry of the app's own, with request durations by route template,
// rate-limit refusals by bucket, the database pool, process metrics and GraphQL operations; no tenant data in
// any label; behind METRICS_TOKEN when it is set (docs/operations.md).

const DURATION = 'fieldline_http_request_duration_seconds';

describe('GET /metrics', () => {
  const t = useTestApp();
  const { tenant, api, gql } = useTenant(t);

  it('answers Prometheus text without a key when METRICS_TOKEN is unset, with the process metrics of prom-client', async () => {
    const { value, find } = await scrape(t);
    expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(find('nodejs_eventloop_lag_seconds')).toHaveLength(1);
  });

  it('times REST requests by method, route template and status, with unmatched paths under one label and no raw id', async () => {
    const created = await api.post('/customers', { customer: { organization: 'Metrics Co' } });
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    expect((await api.get(`/customers/${id}`)).status).toBe(200);
    expect((await api.get(`/customers/${id}`)).status).toBe(200);
    const missing = crypto.randomUUID();
    expect((await api.get(`/customers/${missing}`)).status).toBe(404);
    expect((await api.get(`/no-such-thing-${missing}`)).status).toBe(404);
    expect((await fetch(`${t.url}/elsewhere/${missing}`)).status).toBe(404);
    expect((await gql('{ me { apiVersion } }')).status).toBe(200);

    const { text, value } = await scrape(t);
    /** How many requests the histogram counted with exactly these labels. */
    const requests = (labels: Record<string, string>) => value(`${DURATION}_count`, labels);
    expect(requests({ method: 'POST', route: '/api/v2/customers', status_code: '201' })).toBe(1);
    expect(requests({ method: 'GET', route: '/api/v2/customers/:id', status_code: '200' })).toBe(2);
    expect(requests({ method: 'GET', route: '/api/v2/customers/:id', status_code: '404' })).toBe(1);
    expect(requests({ method: 'GET', route: 'unmatched', status_code: '404' })).toBe(2);
    expect(requests({ method: 'POST', route: '/graphql', status_code: '200' })).toBe(1);
    expect(value(`${DURATION}_bucket`, { method: 'GET', route: '/api/v2/customers/:id', status_code: '200', le: '+Inf' })).toBe(2);
    expect(value(`${DURATION}_sum`, { method: 'GET', route: '/api/v2/customers/:id', status_code: '200' })).toBeGreaterThan(0);
    // The previous scrape was timed too.
    expect(requests({ method: 'GET', route: '/metrics', status_code: '200' })).toBeGreaterThanOrEqual(1);
    for (const secret of [id, missing, tenant.accountId, tenant.keyId, tenant.token, 'no-such-thing', 'elsewhere']) expect(text).not.toContain(secret);
  });

  it('reports the database pool: connections in use, idle, the maximum and the requests waiting', async () => {
    const { value } = await scrape(t);
    const max = value('fieldline_db_pool_connections_max');
    const inUse = value('fieldline_db_pool_connections_in_use');
    const idle = value('fieldline_db_pool_connections_idle');
    const waiting = value('fieldline_db_pool_waiting');
    // The embedded database has one connection; the PostgreSQL pool of the tests has 5 (test/helpers/database.ts).
    expect(max).toBe(t.database.kind === 'pglite' ? 1 : 5);
    for (const gauge of [inUse, idle, waiting]) expect(gauge).toBeGreaterThanOrEqual(0);
    expect(inUse! + idle!).toBeLessThanOrEqual(max!);
    expect(inUse! + idle!).toBeGreaterThan(0); // the app has used the database: a connection is open
  });

  it('counts the connections held as in use and the statements queued behind them as waiting', async () => {
    const stats = () => t.database.poolStats();
    const { max } = stats();
    // Every connection held by an open transaction, then three more statements, which must wait.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let opened = 0;
    const transactions = Array.from({ length: max }, () =>
      t.database.prisma.$transaction(
        async (tx) => {
          await tx.$queryRawUnsafe('SELECT 1');
          opened += 1;
          await gate;
        },
        { maxWait: 10_000, timeout: 20_000 },
      ),
    );
    const until = async (condition: () => boolean) => {
      for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(condition()).toBe(true);
    };
    await until(() => opened === max);
    // Promise.resolve() sends them now (a Prisma promise runs when first awaited).
    const queued = Array.from({ length: 3 }, () => Promise.resolve(t.database.prisma.$queryRawUnsafe('SELECT 1')));
    await until(() => stats().waiting === 3);
    const { value } = await scrape(t);
    expect(value('fieldline_db_pool_connections_in_use')).toBe(max);
    expect(value('fieldline_db_pool_connections_idle')).toBe(0);
    expect(value('fieldline_db_pool_waiting')).toBe(3);
    release();
    await Promise.all([...transactions, ...queued]);
    await until(() => stats().inUse === 0 && stats().waiting === 0);
  });

  it('counts GraphQL operations by name and type with their cost, over HTTP and WebSocket, anonymous ones as `anonymous`', async () => {
    const board = { operation_name: 'MetricsBoard', operation_type: 'query' };
    const first = await gql('query MetricsBoard { customers(first: 5) { nodes { id } } }');
    const second = await gql('query MetricsBoard { customers(first: 50) { nodes { id organization } } }');
    const anonymous = await gql('mutation { createCustomer(input: { organization: "Metered Co" }) { customer { id } } }');
    expect([first.status, second.status, anonymous.status]).toEqual([200, 200, 200]);
    const socket = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${tenant.token}` }, retryAttempts: 0, lazy: true });
    for await (const _ of socket.iterate({ query: 'query MetricsBoard { me { apiVersion } }' })) void _;
    await socket.dispose();
    const { value } = await scrape(t);
    expect(value('fieldline_graphql_operations_total', board)).toBe(3);
    expect(value('fieldline_graphql_operation_cost_count', board)).toBe(3);
    expect(value('fieldline_graphql_operation_cost_sum', board)).toBeGreaterThanOrEqual(first.cost.requestedQueryCost! + second.cost.requestedQueryCost!);
    expect(value('fieldline_graphql_operation_cost_bucket', { ...board, le: '65536' })).toBe(3);
    const mutation = { operation_name: 'anonymous', operation_type: 'mutation' };
    expect(value('fieldline_graphql_operations_total', mutation)).toBe(1);
    expect(value('fieldline_graphql_operation_cost_sum', mutation)).toBe(anonymous.cost.requestedQueryCost);
  });

  it('counts an operation that never ran (a validation error) without a type or a cost', async () => {
    const broken = await gql('query Broken { nope }');
    expect(broken.body.errors?.length).toBeGreaterThan(0);
    const { value } = await scrape(t);
    expect(value('fieldline_graphql_operations_total', { operation_name: 'anonymous', operation_type: 'unknown' })).toBeGreaterThanOrEqual(1);
    expect(value('fieldline_graphql_operation_cost_count', { operation_name: 'anonymous', operation_type: 'unknown' })).toBeUndefined();
  });

  it('bounds the operation-name label: the first 100 distinct names, then `other`', async () => {
    for (let i = 0; i < 150; i++) expect((await gql(`query Generated${i} { me { apiVersion } }`)).status).toBe(200);
    const { find, text } = await scrape(t);
    const names = new Set(find('fieldline_graphql_operations_total').map((sample) => sample.labels.operation_name));
    names.delete('anonymous');
    names.delete('other');
    expect(names.size).toBe(100);
    expect(find('fieldline_graphql_operations_total', { operation_name: 'other' }).reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThanOrEqual(51);
    expect(text).not.toContain('Generated149');
    // A name seen before the bound keeps its label.
    await gql('query MetricsBoard { me { apiVersion } }');
    expect((await scrape(t)).value('fieldline_graphql_operations_total', { operation_name: 'MetricsBoard', operation_type: 'query' })).toBe(4);
  });

  it('uses a registry of its own: the app registers nothing on prom-client\'s global registry', async () => {
    expect(globalRegistry.getSingleMetric(DURATION)).toBeUndefined();
    expect(globalRegistry.getSingleMetric('process_cpu_user_seconds_total')).toBeUndefined();
    expect(t.app.ops.metrics.registry).not.toBe(globalRegistry);
  });
});

describe('rate-limit refusals', () => {
  const t = useTestApp({ rateLimits: { read: 2, graphql: limits.requestPoints + 50 } });
  const { api, gql } = useTenant(t);
  const refusals = (bucket: string, s: Awaited<ReturnType<typeof scrape>>) => s.value('fieldline_rate_limit_refusals_total', { bucket });

  it('starts every bucket\'s refusal counter at 0', async () => {
    const s = await scrape(t);
    for (const bucket of ['read', 'write', 'webhook_ingest', 'graphql']) expect(refusals(bucket, s), bucket).toBe(0);
  });

  it('counts a REST 429 rate_limit.exceeded under its bucket (read), and its request under route `unmatched`', async () => {
    expect((await api.get('/me')).status).toBe(200);
    expect((await api.get('/me')).status).toBe(200);
    expectProblem(await api.get('/customers'), { status: 429, code: 'rate_limit.exceeded', instance: '/api/v2/customers' });
    const s = await scrape(t);
    expect(refusals('read', s)).toBe(1);
    expect(refusals('write', s)).toBe(0);
    // The bucket refuses before the router matches a route.
    expect(s.value(`${DURATION}_count`, { method: 'GET', route: 'unmatched', status_code: '429' })).toBe(1);
  });

  it('counts a GraphQL 429 under the graphql bucket', async () => {
    expect((await gql('{ me { apiVersion } }')).status).toBe(200);
    expect((await gql('{ me { apiVersion } }')).status).toBe(429);
    const s = await scrape(t);
    expect(refusals('graphql', s)).toBe(1);
    expect(refusals('read', s)).toBe(1);
  });
});

describe('with METRICS_TOKEN set', () => {
  const token = 'metrics-token-0123456789abcdef';
  const t = useTestApp({ env: { METRICS_TOKEN: token } });

  it('answers 401 auth.missing_token without a bearer token', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` }, { authorization: token }]) {
      const res = await fetch(`${t.url}/metrics`, { headers });
      const text = await res.text();
      const body = expectProblem({ status: res.status, headers: res.headers, body: JSON.parse(text), text }, { status: 401, code: 'auth.missing_token', instance: '/metrics' });
      expect(body.detail).toContain('METRICS_TOKEN');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(text).not.toContain('fieldline_');
    }
  });

  it('answers 401 auth.invalid_token with a wrong token (longer, shorter, one character off)', async () => {
    for (const wrong of [`${token}x`, token.slice(0, -1), `${token.slice(0, -1)}g`, 'an-api-key-perhaps']) {
      const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${wrong}` } });
      const text = await res.text();
      expectProblem({ status: res.status, headers: res.headers, body: JSON.parse(text), text }, { status: 401, code: 'auth.invalid_token', instance: '/metrics' });
      expect(text).not.toContain(token);
    }
  });

  it('answers 200 with the token', async () => {
    const { value } = await scrape(t, token);
    expect(value('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });

  it('leaves /healthz and /readyz open', async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  });

  it('keeps each app\'s metrics apart: requests of another app in the process are not counted here', async () => {
    const other = await startTestApp();
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${other.url}/healthz`)).status).toBe(200);
      const mine = await scrape(t, token);
      const theirs = await scrape(other);
      expect(theirs.value(`${DURATION}_count`, { method: 'GET', route: '/healthz', status_code: '200' })).toBe(3);
      expect(mine.value(`${DURATION}_count`, { method: 'GET', route: '/healthz', status_code: '200' })).toBe(1);
    } finally {
      await other.close();
    }
  });
});
