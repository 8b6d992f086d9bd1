import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { limits } from '../../src/graphql/schema/cost.ts';
import { type TestApp, useTenant, useTestApp } from '../helpers/app.ts';
import { USER_ERRORS, withoutCost } from '../helpers/graphql.ts';

// GraphQL over WebSocket (graphql-ws) is admitted like HTTP: connection_init takes limits.requestPoints from the
// graphql points bucket of the key (of the source IP when the key is refused), and so does every operation,
// which then takes its cost; execution results carry extensions.cost. An exhausted bucket closes the socket
// at connection_init with 4429 and reason rate_limit.exceeded.

/** What connection_init, and each operation, takes from the graphql bucket. */
const P = limits.requestPoints;
/** The graphql bucket's default size. */
const GRAPHQL_DEFAULT = 100_000;

const t = useTestApp();
const { tenant } = useTenant(t);

const wsUrl = (app: TestApp = t) => `${app.url.replace(/^http/, 'ws')}/graphql`;

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
function connect(payload: Record<string, unknown>, app: TestApp = t) {
  const socket = new WebSocket(wsUrl(app), 'graphql-transport-ws');
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
  it('runs a me query on a connection authenticated by connectionParams, reporting its cost: connection_init and the operation take requestPoints each, plus the cost', async () => {
    const results = await run({ authorization: `Bearer ${tenant.token}` }, '{ me { account { id } apiVersion } }');
    expect(results).toEqual([
      {
        data: { me: { account: { id: tenant.accountId }, apiVersion: '2026-04-30' } },
        extensions: {
          cost: {
            requestedQueryCost: 2,
            actualQueryCost: 2,
            throttleStatus: {
              maximumAvailable: GRAPHQL_DEFAULT,
              currentlyAvailable: GRAPHQL_DEFAULT - 2 * P - 2,
              restoreRate: Math.round(GRAPHQL_DEFAULT / 60),
              resetSeconds: expect.any(Number),
            },
          },
        },
      },
    ]);
  });

  it('runs mutations and reports service input errors in the payload\'s userErrors, each result with its cost', async () => {
    const params = { authorization: `Bearer ${tenant.token}` };
    const [createdResult] = await run(params, 'mutation { createCustomer(input: { organization: "Socket Co" }) { customer { id organization } } }');
    const created = withoutCost(createdResult);
    expect(created.body.data.createCustomer.customer.organization).toBe('Socket Co');
    expect(created.cost.requestedQueryCost).toBeGreaterThan(limits.mutationPoints);
    const [duplicateResult] = await run(params, `mutation { createCustomer(input: { organization: "socket co" }) { etag ${USER_ERRORS} } }`);
    const duplicate = withoutCost(duplicateResult);
    expect(duplicate.body).toEqual({
      data: { createCustomer: { etag: null, userErrors: [{ field: ['input', 'organization'], message: 'organization has already been taken', code: 'validation.failed' }] } },
    });
    // The payload (1) and its userErrors, a list that is not a connection (1 plus 10 assumed objects of scalars).
    expect(duplicate.cost.requestedQueryCost).toBe(1 + 11 + limits.mutationPoints);
    // The second connection and its operation took their points and the operation's cost from the same bucket.
    expect(duplicate.cost.throttleStatus!.currentlyAvailable).toBe(created.cost.throttleStatus!.currentlyAvailable - 2 * P - duplicate.cost.requestedQueryCost!);
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
    await t.close();
    expect(await open.closing).toEqual({ code: 1001, reason: 'Server shutting down' });
  });
});

describe('connection_init and the graphql bucket', () => {
  // Three requests' points a minute; the key cache is on. A key pays from its own bucket, a token that is no key
  // from its address's.
  const small = useTestApp({ rateLimits: { graphql: 3 * P }, env: { AUTH_CACHE_TTL_MS: '5000' } });

  it("closes connection_init with 4429 rate_limit.exceeded once the key's bucket is spent", async () => {
    const { token } = await small.tenant();
    for (let i = 0; i < 3; i += 1) {
      const open = connect({ authorization: `Bearer ${token}` }, small);
      await open.acked;
      open.socket.close(1000);
      await open.closing;
    }
    expect(await connect({ authorization: `Bearer ${token}` }, small).closing).toEqual({ code: 4429, reason: 'rate_limit.exceeded' });
  });

  it("closes connection_init with random tokens from one address 4401, then 4429 rate_limit.exceeded once the address's bucket is spent, and still admits a valid key from it", async () => {
    const randomToken = () => `svc_${crypto.randomUUID().replace(/^(.{14})./, '$17')}`;
    // The address has its 3P: the key above paid from its own bucket.
    const codes: { code: number; reason: string }[] = [];
    for (let i = 0; i < 5; i += 1) codes.push(await connect({ authorization: `Bearer ${randomToken()}` }, small).closing);
    expect(codes).toEqual([
      { code: 4401, reason: 'auth.invalid_token' },
      { code: 4401, reason: 'auth.invalid_token' },
      { code: 4401, reason: 'auth.invalid_token' },
      { code: 4429, reason: 'rate_limit.exceeded' },
      { code: 4429, reason: 'rate_limit.exceeded' },
    ]);
    // A valid key new to the process is still admitted from that address (its own bucket pays); anonymous HTTP waits.
    const { token } = await small.tenant();
    const keyed = connect({ authorization: `Bearer ${token}` }, small);
    await keyed.acked;
    keyed.socket.close(1000);
    await keyed.closing;
    const http = await fetch(`${small.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ me { apiVersion } }' }) });
    expect(http.status).toBe(429);
  });
});
