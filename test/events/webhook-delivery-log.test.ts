import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { expectError, ok } from '../helpers/graphql.ts';
import { expectProblem } from '../helpers/problem.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';
import { callError, callOk, mcpClient } from '../mcp/helpers.ts';

// The delivery log of a webhook endpoint (GET /webhooks/endpoints/{id}/deliveries, GraphQL
// webhookEndpointDeliveries, MCP list_webhook_endpoint_deliveries) and its `limit` parameter: a GET action's query
// parameter (ActionQuery, src/kernel/action.ts), declared once and served by every API with the same rules.

const t = useTestApp({ rateLimits: { ...highRateLimits, webhook_ingest: 100_000 }, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_VERIFY_TIMEOUT_MS: '2000', WEBHOOK_TIMEOUT_MS: '2000' } });
const { tenant, api, gql } = useTenant(t);
let receiver: Receiver;
let agent: Client;
/** An endpoint with two attempts in its log: two test deliveries, the second the latest. */
let endpointId: string;
let latestAttempt: string;

beforeAll(async () => {
  receiver = await startReceiver({ kind: 'echo' });
  agent = await mcpClient(t, tenant.token);
  const created = await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: ['customer.created'] } });
  expect(created.status, created.text).toBe(201);
  endpointId = created.body.data.id;
  for (let sent = 0; sent < 2; sent += 1) {
    const test = await api.post(`/webhooks/endpoints/${endpointId}/test`, {});
    expect(test.status, test.text).toBe(200);
    latestAttempt = test.body.data.id;
  }
});
afterAll(async () => {
  await agent?.close();
  await receiver?.close();
});

const deliveries = (query = '') => api.get(`/webhooks/endpoints/${endpointId}/deliveries${query}`);

describe('GET /webhooks/endpoints/{id}/deliveries takes limit', () => {
  it('answers every attempt, newest first, without limit', async () => {
    const res = await deliveries();
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.data[0].id).toBe(latestAttempt);
    expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('?limit=1 answers the latest attempt only', async () => {
    const res = await deliveries('?limit=1');
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((attempt: { id: string }) => attempt.id)).toEqual([latestAttempt]);
  });

  it('?limit=100 (the most) is accepted', async () => {
    expect((await deliveries('?limit=100')).body.data).toHaveLength(2);
  });

  it('refuses a limit out of 1..100, not an integer or given twice with 422 validation.failed naming limit', async () => {
    const refusals: [string, string][] = [
      ['?limit=0', 'must be at least 1'],
      ['?limit=-3', 'must be at least 1'],
      ['?limit=101', 'must be at most 100'],
      ['?limit=abc', 'must be an integer'],
      ['?limit=1.5', 'must be an integer'],
      ['?limit=', 'must be an integer'],
      ['?limit=1&limit=2', 'is given more than once'],
    ];
    for (const [query, message] of refusals) {
      const body = expectProblem(await deliveries(query), { status: 422, code: 'validation.failed', errors: { limit: [message] }, onlyErrors: true });
      expect(body.detail, query).toContain('limit');
    }
  });

  it('refuses a parameter it does not take with 422 validation.failed naming it, as an unknown body member', async () => {
    expectProblem(await deliveries('?foo=1'), { status: 422, code: 'validation.failed', errors: { foo: ['is not a permitted field'] }, onlyErrors: true });
    expectProblem(await deliveries('?limit=1&cursor=x'), { status: 422, code: 'validation.failed', errors: { cursor: ['is not a permitted field'] }, onlyErrors: true });
  });

  it('answers 404 for an unknown endpoint before it reads the parameters', async () => {
    expectProblem(await api.get('/webhooks/endpoints/01900000-0000-7000-8000-000000000001/deliveries?limit=0&foo=1'), { status: 404, code: 'resource.not_found' });
  });

  it('documents limit as an optional integer query parameter 1..100 with its description, and no request body', async () => {
    const document = await (await fetch(`${t.url}/api/v2/openapi.json`)).json();
    const operation = document.paths['/webhooks/endpoints/{id}/deliveries'].get;
    expect(operation.requestBody).toBeUndefined();
    const limit = operation.parameters.find((parameter: { name: string }) => parameter.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } });
    expect(limit.description).toContain('1 to 100');
    expect(Object.keys(operation.responses)).toContain('422');
  });
});

describe('GraphQL webhookEndpointDeliveries takes limit', () => {
  const query = 'query($id: ID!, $limit: Int) { webhookEndpointDeliveries(id: $id, limit: $limit) { id attempt } }';

  it('limit: 1 answers the latest attempt only; without it every attempt', async () => {
    expect(ok(await gql(query, { id: endpointId, limit: 1 })).webhookEndpointDeliveries.map((attempt: { id: string }) => attempt.id)).toEqual([latestAttempt]);
    expect(ok(await gql(query, { id: endpointId })).webhookEndpointDeliveries).toHaveLength(2);
    expect(ok(await gql(query, { id: endpointId, limit: null })).webhookEndpointDeliveries).toHaveLength(2);
  });

  it('refuses limit out of 1..100 with validation.failed naming limit, as REST does', async () => {
    expectError(await gql(query, { id: endpointId, limit: 0 }), 'validation.failed', 422, { limit: ['must be at least 1'] });
    expectError(await gql(query, { id: endpointId, limit: 101 }), 'validation.failed', 422, { limit: ['must be at most 100'] });
  });
});

describe('MCP list_webhook_endpoint_deliveries takes limit', () => {
  it('has limit in its input schema, as the OpenAPI document describes it', async () => {
    const { tools } = await agent.listTools();
    const tool = tools.find((candidate) => candidate.name === 'list_webhook_endpoint_deliveries')!;
    expect(tool.inputSchema).toMatchObject({ required: ['id'], properties: { limit: { type: 'integer', minimum: 1, maximum: 100 } } });
  });

  it('limit: 1 answers the latest attempt only; limit out of range is validation.failed naming limit', async () => {
    const answer = await callOk(agent, 'list_webhook_endpoint_deliveries', { id: endpointId, limit: 1 });
    expect(answer.data.map((attempt: { id: string }) => attempt.id)).toEqual([latestAttempt]);
    expect((await callOk(agent, 'list_webhook_endpoint_deliveries', { id: endpointId })).data).toHaveLength(2);
    expect(await callError(agent, 'list_webhook_endpoint_deliveries', { id: endpointId, limit: 101 })).toMatchObject({ code: 'validation.failed', status: 422, errors: { limit: ['must be at most 100'] } });
    expect(await callError(agent, 'list_webhook_endpoint_deliveries', { id: endpointId, limit: '1' })).toMatchObject({ code: 'validation.failed', errors: { limit: ['must be an integer'] } });
    expect(await callError(agent, 'list_webhook_endpoint_deliveries', { id: endpointId, foo: 1 })).toMatchObject({ code: 'validation.failed', errors: { foo: ['is not a permitted field'] } });
  });
});
