import net from 'node:net';
import { createClient } from 'graphql-ws';
import pino from 'pino';
import WebSocket from 'ws';
import { describe, expect, it, vi } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';

// The log is JSON lines (src/http/request-log.ts): one line per HTTP request with its error code when it failed,
// the GraphQL operation's name, type and cost, and the WebSocket connections' open and close with the key id.
// Never a token, an Authorization header or a body.

const lines: Record<string, any>[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const t = useTestApp({ logger });
const { tenant, api, gql } = useTenant(t);

const SECRET_TEXT = 'do-not-log-this-body-text';

function lineOf(requestId: string) {
  return lines.find((line) => line.request_id === requestId && line.msg === 'request');
}

async function loggedLine(requestId: string) {
  await vi.waitFor(() => expect(lineOf(requestId)).toBeDefined());
  return lineOf(requestId)!;
}

describe('the request log', () => {
  it('gives every 4xx and 5xx line its error code: REST problems, unknown paths outside the API, GraphQL refusals', async () => {
    await api.post('/customers', { customer: { organization: '' , description: SECRET_TEXT } }, { headers: { 'x-request-id': 'log-422' } });
    await t.client(null).get('/customers', { headers: { 'x-request-id': 'log-401' } });
    await fetch(`${t.url}/no/such/page`, { headers: { 'x-request-id': 'log-404' } });
    await fetch(`${t.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': 'log-gql-401' }, body: '{"query":"{ me { apiVersion } }"}' });
    expect(await loggedLine('log-422')).toMatchObject({ status: 422, error_code: 'validation.failed', path: '/api/v2/customers', key_id: tenant.keyId });
    expect(await loggedLine('log-401')).toMatchObject({ status: 401, error_code: 'auth.missing_token' });
    expect(await loggedLine('log-404')).toMatchObject({ status: 404, error_code: 'route.not_found', path: '/no/such/page' });
    expect(await loggedLine('log-gql-401')).toMatchObject({ status: 401, error_code: 'auth.missing_token', path: '/graphql' });
    const ok = await api.get('/me', { headers: { 'x-request-id': 'log-200' } });
    expect(ok.status).toBe(200);
    expect((await loggedLine('log-200')).error_code).toBeUndefined();
  });

  it('answers an unknown path outside the API with the catalog 404 as problem+json', async () => {
    const res = await fetch(`${t.url}/no/such/page`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ code: 'route.not_found', instance: '/no/such/page' });
  });

  it('gives GraphQL lines the operation name, type and requested cost, and the first error code of a failed operation', async () => {
    const query = await gql('query WhoAmI { me { apiVersion } }', {}, { headers: { 'x-request-id': 'log-gql-query' } });
    expect(query.status).toBe(200);
    expect(await loggedLine('log-gql-query')).toMatchObject({ status: 200, operation_name: 'WhoAmI', operation_type: 'query', cost: query.cost.requestedQueryCost, key_id: tenant.keyId });
    const mutation = await gql(`mutation MakeOne($org: String!) { createCustomer(input: { organization: $org, description: "${SECRET_TEXT}" }) { customer { id } } }`, { org: 'Logged Co' }, { headers: { 'x-request-id': 'log-gql-mutation' } });
    expect(mutation.body.errors, JSON.stringify(mutation.body.errors)).toBeUndefined();
    expect(await loggedLine('log-gql-mutation')).toMatchObject({ operation_name: 'MakeOne', operation_type: 'mutation' });
    const invalid = await gql('query Broken { nope }', {}, { headers: { 'x-request-id': 'log-gql-invalid' } });
    expect(invalid.body.errors?.length).toBeGreaterThan(0);
    expect((await loggedLine('log-gql-invalid')).error_code).toBe(invalid.body.errors![0].extensions?.code);
  });

  it('logs WebSocket connect, each operation and close with the key id', async () => {
    const client = createClient({ url: `${t.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${tenant.token}` }, retryAttempts: 0, lazy: true });
    for await (const _ of client.iterate({ query: 'query OverSocket { me { apiVersion } }' })) void _;
    await client.dispose();
    await vi.waitFor(() => expect(lines.find((line) => line.msg === 'websocket closed' && line.key_id === tenant.keyId)).toBeDefined());
    const connected = lines.find((line) => line.msg === 'websocket connected' && line.key_id === tenant.keyId)!;
    expect(connected).toMatchObject({ account_id: tenant.accountId });
    const operation = lines.find((line) => line.msg === 'websocket operation' && line.operation_name === 'OverSocket')!;
    expect(operation).toMatchObject({ key_id: tenant.keyId, operation_type: 'query', connection_id: connected.connection_id });
    expect(operation.cost).toBeGreaterThan(0);
    const closed = lines.find((line) => line.msg === 'websocket closed' && line.key_id === tenant.keyId)!;
    expect(closed).toMatchObject({ connection_id: connected.connection_id, close_code: 1000 });
  });

  it('logs a request Node refuses before the app sees it, with its code', async () => {
    const { port } = new URL(t.url);
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GET /api/v2/me HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      socket.on('data', () => {});
      socket.on('close', () => resolve());
    });
    await vi.waitFor(() => expect(lines.find((line) => line.msg === 'request' && line.error_code === 'request.invalid')).toMatchObject({ status: 400 }));
  });

  it('never writes a token, an Authorization header or a request body', () => {
    const all = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(8);
    expect(all).not.toContain(tenant.token.slice(4));
    expect(all.toLowerCase()).not.toContain('bearer');
    expect(all.toLowerCase()).not.toContain('authorization');
    expect(all).not.toContain(SECRET_TEXT);
  });
});
