import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type Tenant, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let tenant: Tenant;
let closed = false;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant();
});
afterAll(async () => {
  if (!closed) await t.close();
});

const wsUrl = () => `${t.url.replace(/^http/, 'ws')}/graphql`;

/** Runs one operation over graphql-ws and returns its single result. */
async function run(connectionParams: Record<string, unknown>, query: string, variables?: Record<string, unknown>) {
  const wsClient = createClient({ url: wsUrl(), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true });
  try {
    const results: any[] = [];
    for await (const result of wsClient.iterate({ query, variables })) results.push(result);
    return results;
  } finally {
    await wsClient.dispose();
  }
}

/** Opens a raw socket speaking graphql-transport-ws and sends connection_init. */
function connect(payload: Record<string, unknown>) {
  const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
  const messages: any[] = [];
  const closing = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  const acked = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      messages.push(message);
      if (message.type === 'connection_ack') resolve();
    });
    socket.on('close', () => reject(new Error('closed before connection_ack')));
  });
  acked.catch(() => {});
  socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload })));
  return { socket, messages, closing, acked };
}

describe('GraphQL over WebSocket (graphql-ws)', () => {
  it('runs a me query on a connection authenticated by connectionParams', async () => {
    const results = await run({ authorization: `Bearer ${tenant.token}` }, '{ me { account { id } apiVersion } }');
    expect(results).toEqual([{ data: { me: { account: { id: tenant.accountId }, apiVersion: '2026-04-30' } } }]);
  });

  it('runs mutations and reports service errors with extensions.code', async () => {
    const params = { authorization: `Bearer ${tenant.token}` };
    const [created] = await run(params, 'mutation { createCustomer(input: { organization: "Socket Co" }) { customer { id organization } } }');
    expect(created.data.createCustomer.customer.organization).toBe('Socket Co');
    const [duplicate] = await run(params, 'mutation { createCustomer(input: { organization: "socket co" }) { etag } }');
    expect(duplicate.errors[0].extensions).toMatchObject({ code: 'validation.failed', errors: { organization: ['has already been taken'] } });
  });

  it('closes a connection without a valid key with 4401 and the error code as reason', async () => {
    const missing = connect({});
    expect(await missing.closing).toEqual({ code: 4401, reason: 'auth.missing_token' });
    const invalid = connect({ authorization: 'Bearer svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556' });
    expect(await invalid.closing).toEqual({ code: 4401, reason: 'auth.invalid_token' });
  });

  it('closes open sockets cleanly when the app closes', async () => {
    const open = connect({ authorization: `Bearer ${tenant.token}` });
    await open.acked;
    closed = true;
    await t.close();
    expect(await open.closing).toEqual({ code: 1001, reason: 'Server shutting down' });
  });
});
