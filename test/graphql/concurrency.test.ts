import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp, type TestApp } from '../helpers/app.ts';
import { codeOf, type Gql } from '../helpers/graphql.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// Issue 31 part 4: how many expensive GraphQL operations run at once (src/graphql/transport/concurrency.ts). An
// operation whose cost reaches GRAPHQL_EXPENSIVE_COST takes a slot of its key and one of the process; one that
// cannot have both within GRAPHQL_EXPENSIVE_WAIT_MS is refused with 429 rate_limit.exceeded and Retry-After.
//
// An operation holds its slots while it runs; to make operations overlap for certain, each one here waits on the
// network: testWebhookEndpoint delivers to a receiver that answers after 300 ms. The threshold is low, so that
// mutation (about 12 points) is expensive and `{ me }` (2 points) is not.

const TEST = 'mutation ($id: ID!) { testWebhookEndpoint(id: $id) { delivery { id } userErrors { code message } } }';
const rateLimits = { ...highRateLimits, graphql: 100_000_000, webhook_ingest: 100_000 };
const env = (perKey: number, perProcess: number, waitMs: number) => ({
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  GRAPHQL_EXPENSIVE_COST: '5',
  GRAPHQL_EXPENSIVE_PER_KEY: String(perKey),
  GRAPHQL_EXPENSIVE_PER_PROCESS: String(perProcess),
  GRAPHQL_EXPENSIVE_WAIT_MS: String(waitMs),
});

let receiver: Receiver;
// For the one test that needs all four of its operations to arrive while the first still runs: on a busy machine
// (CI's), four requests sent together were seen to take longer than 300 ms to be admitted, and a second one ran.
let slowReceiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver({ kind: 'echo', delayMs: 300 });
  slowReceiver = await startReceiver({ kind: 'echo', delayMs: 3_000 });
});
afterAll(async () => {
  await receiver.close();
  await slowReceiver.close();
});

/** Two tenants, each with a verified webhook endpoint at the slow receiver. */
async function tenantsWithEndpoints(t: TestApp, at: () => Receiver = () => receiver): Promise<{ gql: Gql; endpoint: string }[]> {
  return Promise.all(
    [0, 1].map(async () => {
      const { api, gql } = await t.newTenant();
      const res = await api.post('/webhooks/endpoints', { endpoint: { url: at().url, topics: ['customer.created'] } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.data.status).toBe('verified');
      return { gql, endpoint: res.body.data.id as string };
    }),
  );
}

describe('expensive operations of one key, refused after a short wait', () => {
  const t = useTestApp({ rateLimits, env: env(1, 100, 0) });
  let a: { gql: Gql; endpoint: string };
  let b: { gql: Gql; endpoint: string };
  beforeAll(async () => {
    [a, b] = await tenantsWithEndpoints(t);
  });

  it('runs one expensive operation of a key at a time: of six sent together, one is served and the others are refused with 429 rate_limit.exceeded and Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => a.gql(TEST, { id: a.endpoint })));
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200), statuses.join(' ')).toHaveLength(1);
    expect(statuses.filter((status) => status === 429), statuses.join(' ')).toHaveLength(5);
    const served = answers.find((res) => res.status === 200)!;
    expect(served.body.data.testWebhookEndpoint.userErrors).toEqual([]);
    for (const res of answers.filter((answer) => answer.status === 429)) {
      expect(codeOf(res)).toBe('rate_limit.exceeded');
      expect(res.body.data ?? null).toBeNull();
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.body.errors![0].message).toMatch(/^Too many expensive operations \(5 points or more\) are running: at most 1 of one key and 100 in all at once/);
    }
  });

  it("never holds back another key's expensive operation, nor a cheap one of the same key, and gives its slot back", async () => {
    const [heavyA, heavyB, cheapA] = await Promise.all([a.gql(TEST, { id: a.endpoint }), b.gql(TEST, { id: b.endpoint }), a.gql('{ me { apiVersion } }')]);
    expect([heavyA.status, heavyB.status, cheapA.status]).toEqual([200, 200, 200]);
    expect((await a.gql(TEST, { id: a.endpoint })).status).toBe(200);
  });
});

describe('expensive operations of one key, waiting their turn', () => {
  const t = useTestApp({ rateLimits, env: env(1, 100, 20_000) });
  let a: { gql: Gql; endpoint: string };
  beforeAll(async () => {
    [a] = await tenantsWithEndpoints(t);
  });

  it('serves four sent together one after the other when each may wait long enough', async () => {
    const before = receiver.requests.length;
    const answers = await Promise.all(Array.from({ length: 4 }, () => a.gql(TEST, { id: a.endpoint })));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(receiver.requests.length - before).toBe(4);
  });
});

describe('expensive operations of the whole process', () => {
  const t = useTestApp({ rateLimits, env: env(100, 1, 0) });
  let a: { gql: Gql; endpoint: string };
  let b: { gql: Gql; endpoint: string };
  beforeAll(async () => {
    [a, b] = await tenantsWithEndpoints(t, () => slowReceiver);
  }, 30_000);

  it('runs at most GRAPHQL_EXPENSIVE_PER_PROCESS at once, all keys together', async () => {
    const answers = await Promise.all([a.gql(TEST, { id: a.endpoint }), b.gql(TEST, { id: b.endpoint }), a.gql(TEST, { id: a.endpoint }), b.gql(TEST, { id: b.endpoint })]);
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((status) => status === 200), statuses.join(' ')).toHaveLength(1);
    expect(statuses.filter((status) => status === 429), statuses.join(' ')).toHaveLength(3);
  });
});
