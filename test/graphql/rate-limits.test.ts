import { describe, expect, it } from 'vitest';
import { limits } from '../../src/graphql/schema/cost.ts';
import { type Tenant, useTestApp } from '../helpers/app.ts';
import { codeOf, type GraphqlResponse } from '../helpers/graphql.ts';
import { rateLimitHeaders } from '../helpers/http.ts';

// GraphQL is rate limited by cost, not by request count (docs/graphql-limits.md): each key (each source IP
// without a valid key) has a `graphql` bucket of points. Every HTTP request to /graphql takes
// limits.requestPoints from it; an operation then takes its computed cost (extensions.cost.requestedQueryCost)
// before it runs, and each mutation field also takes one request from the key's REST `write` bucket, shared with
// REST. Queries never touch REST's read bucket. A bucket lacking what is needed answers 429 rate_limit.exceeded
// with Retry-After, and nothing runs. RateLimit-* headers and extensions.cost.throttleStatus describe the graphql
// bucket after the operation's charge (the write bucket when a mutation is refused for lack of writes).

/** What every HTTP request to /graphql takes from the graphql bucket, whatever it asks. */
const P = limits.requestPoints;
/** What a mutation field costs beyond its selection. */
const M = limits.mutationPoints;

/** The RateLimit-* headers, which must agree with extensions.cost.throttleStatus when the body reports one. */
function bucketOf(res: GraphqlResponse) {
  const { limit, remaining, reset } = rateLimitHeaders(res);
  if (res.cost.throttleStatus) {
    expect(res.cost.throttleStatus).toEqual({ maximumAvailable: limit, currentlyAvailable: remaining, restoreRate: Math.round(limit / 60), resetSeconds: reset });
  }
  return { limit, remaining };
}

function expectRateLimited(res: GraphqlResponse) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(codeOf(res)).toBe('rate_limit.exceeded');
  expect(res.body.data).toBeUndefined();
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
}

/** A mutation of `n` aliased createCustomer fields, organizations `${prefix} 0` ... */
function creates(n: number, prefix: string): string {
  return `mutation { ${Array.from({ length: n }, (_, i) => `c${i}: createCustomer(input: { organization: "${prefix} ${i}" }) { etag }`).join(' ')} }`;
}

describe('the graphql points bucket of a key', () => {
  const GRAPHQL_LIMIT = 100 * P;
  // REST requests of a key that is not cached also take one from the address's REST bucket: room for them all.
  const READ_LIMIT = 20;
  const WRITE_LIMIT = 20;
  const t = useTestApp({ rateLimits: { graphql: GRAPHQL_LIMIT, read: READ_LIMIT, write: WRITE_LIMIT } });

  function clients(tenant: Tenant) {
    return { gql: t.graphql(tenant.token), rest: t.client(tenant.token) };
  }

  it('takes requestPoints plus the requestedQueryCost of each query, as RateLimit-Remaining and extensions.cost report, and leaves REST\'s read bucket alone', async () => {
    const tenant = await t.tenant();
    const { gql, rest } = clients(tenant);
    for (const organization of ['Costed A', 'Costed B']) expect((await rest.post('/customers', { customer: { organization } })).status).toBe(201);

    let expected = GRAPHQL_LIMIT;
    const me = await gql('{ me { apiVersion } }');
    expect(me.body.errors).toBeUndefined();
    expect(me.cost).toMatchObject({ requestedQueryCost: 1, actualQueryCost: 1 });
    expected -= P + 1;
    expect(bucketOf(me)).toEqual({ limit: GRAPHQL_LIMIT, remaining: expected });

    // A page of 100 is priced at 100 nodes before it runs; what it returned (a connection and 2 nodes) is reported apart.
    const list = await gql('{ customers(first: 100) { nodes { id organization } } }');
    expect(list.body.data.customers.nodes).toHaveLength(2);
    expect(list.cost).toMatchObject({ requestedQueryCost: 101, actualQueryCost: 3 });
    expected -= P + 101;
    expect(bucketOf(list)).toEqual({ limit: GRAPHQL_LIMIT, remaining: expected });

    // A validation error ran no operation: only the request's points were taken.
    const invalid = await gql('{ me { noSuchField } }');
    expect(invalid.body.errors).toHaveLength(1);
    expect(invalid.cost).toMatchObject({ requestedQueryCost: null, actualQueryCost: null });
    expected -= P;
    expect(bucketOf(invalid)).toEqual({ limit: GRAPHQL_LIMIT, remaining: expected });

    const read = await rest.get('/me');
    expect(read.headers.get('ratelimit-limit')).toBe(String(READ_LIMIT));
    expect(read.headers.get('ratelimit-remaining')).toBe(String(READ_LIMIT - 1));
  });

  it('takes one request from the REST write bucket of the key per mutation field, shared with REST both ways, and answers 429 once it is spent', async () => {
    const tenant = await t.tenant();
    const { gql, rest } = clients(tenant);
    const N = 3;
    expect((await rest.post('/customers', { customer: { organization: 'Shared 1' } })).headers.get('ratelimit-remaining')).toBe(String(WRITE_LIMIT - 1));

    const created = await gql(creates(N, 'Aliased'));
    expect(created.body.errors).toBeUndefined();
    expect(Object.keys(created.body.data)).toHaveLength(N);
    expect(created.cost.requestedQueryCost).toBe(N * (1 + M));
    // The headers describe the graphql bucket, which the mutation's cost came out of.
    expect(bucketOf(created)).toEqual({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P - N * (1 + M) });

    // REST sees the write bucket lowered by N.
    const after = await rest.post('/customers', { customer: { organization: 'Shared 2' } });
    expect(after.status).toBe(201);
    const left = WRITE_LIMIT - 1 - N - 1;
    expect(after.headers.get('ratelimit-remaining')).toBe(String(left));

    // GraphQL spends what is left of it: REST is refused, and so is the next mutation field.
    const spent = await gql(creates(left, 'Rest of'));
    expect(spent.body.errors).toBeUndefined();
    expect(Object.keys(spent.body.data)).toHaveLength(left);
    expect((await rest.post('/customers', { customer: { organization: 'Over the limit REST' } })).status).toBe(429);
    const refused = await gql(creates(1, 'Over the limit'));
    expectRateLimited(refused);
    expect(bucketOf(refused)).toEqual({ limit: WRITE_LIMIT, remaining: 0 });

    // Queries still run: they take nothing from REST's buckets.
    const listed = await gql('{ customers(first: 100) { nodes { organization } } }');
    expect(listed.body.errors).toBeUndefined();
    // What the bucket allowed, and none of what it refused.
    const organizations = listed.body.data.customers.nodes.map((c: { organization: string }) => c.organization);
    expect(organizations).toHaveLength(WRITE_LIMIT);
    expect(organizations.filter((o: string) => o.startsWith('Over the limit'))).toEqual([]);
    expect((await rest.get('/me')).headers.get('ratelimit-remaining')).toBe(String(READ_LIMIT - 1));
  });

  it('refuses whole, with 429 and creating nothing, a mutation with more fields than the write bucket holds, and takes nothing for it', async () => {
    const tenant = await t.tenant();
    const { gql, rest } = clients(tenant);
    const refused = await gql(creates(WRITE_LIMIT + 1, 'Whole'));
    expectRateLimited(refused);
    // The headers describe the bucket that refused it, left as it was.
    expect(bucketOf(refused)).toEqual({ limit: WRITE_LIMIT, remaining: WRITE_LIMIT });
    expect(refused.cost).toMatchObject({ requestedQueryCost: (WRITE_LIMIT + 1) * (1 + M), throttleStatus: { maximumAvailable: WRITE_LIMIT, currentlyAvailable: WRITE_LIMIT } });

    // Nothing was created, and the graphql bucket lost only the request's points, not the mutation's cost.
    const listed = await gql('{ customers { nodes { id } } }');
    expect(listed.body.data.customers.nodes).toEqual([]);
    expect(bucketOf(listed).remaining).toBe(GRAPHQL_LIMIT - P - P - listed.cost.requestedQueryCost!);
    // Nor a write.
    expect((await rest.post('/customers', { customer: { organization: 'After refusal' } })).headers.get('ratelimit-remaining')).toBe(String(WRITE_LIMIT - 1));

    // As many fields as the bucket still holds are accepted.
    const accepted = await gql(creates(WRITE_LIMIT - 1, 'Fits'));
    expect(accepted.body.errors).toBeUndefined();
    expect(Object.keys(accepted.body.data)).toHaveLength(WRITE_LIMIT - 1);
  });

  it('charges a long document by its cost, not by the word "mutation" in it', async () => {
    const tenant = await t.tenant();
    const { gql, rest } = clients(tenant);
    const padding = (words: string) => `# ${words.repeat(Math.ceil(70_000 / words.length))}\n`;

    const longQuery = await gql(`${padding('no mutation here ')}{ me { apiVersion } }`);
    expect(longQuery.body.errors, JSON.stringify(longQuery.body)).toBeUndefined();
    expect(longQuery.cost.requestedQueryCost).toBe(1);
    expect(bucketOf(longQuery)).toEqual({ limit: GRAPHQL_LIMIT, remaining: GRAPHQL_LIMIT - P - 1 });

    const shortMention = await gql('# not a mutation\n{ me { apiVersion } }');
    expect(shortMention.cost.requestedQueryCost).toBe(1);
    expect(bucketOf(shortMention).remaining).toBe(GRAPHQL_LIMIT - 2 * (P + 1));

    // Neither query took a write (nor a read).
    expect((await rest.post('/customers', { customer: { organization: 'Long probe 1' } })).headers.get('ratelimit-remaining')).toBe(String(WRITE_LIMIT - 1));
    expect((await rest.get('/me')).headers.get('ratelimit-remaining')).toBe(String(READ_LIMIT - 1));

    // A long mutation takes its fields' cost and one write per field, however long its comment.
    const longMutation = await gql(`${padding('a query about buckets ')}mutation { createCustomer(input: { organization: "Long" }) { etag } }`);
    expect(longMutation.body.errors, JSON.stringify(longMutation.body)).toBeUndefined();
    expect(longMutation.cost.requestedQueryCost).toBe(1 + M);
    expect(bucketOf(longMutation).remaining).toBe(GRAPHQL_LIMIT - 2 * (P + 1) - P - (1 + M));
    expect((await rest.post('/customers', { customer: { organization: 'Long probe 2' } })).headers.get('ratelimit-remaining')).toBe(String(WRITE_LIMIT - 3));
  });
});

describe('a graphql bucket with less left than an operation costs', () => {
  // Three requests' points, a first query of cost 1 and 100 more. The key cache is on: after its first request a
  // key is not looked up (no SQL, and nothing taken from the address's bucket).
  const GRAPHQL_LIMIT = 3 * P + 1 + 100;
  const WRITE_LIMIT = 50;
  const statements: string[] = [];
  let recording = false;
  const t = useTestApp({
      rateLimits: { graphql: GRAPHQL_LIMIT, write: WRITE_LIMIT },
      env: { AUTH_CACHE_TTL_MS: '5000' },
      onQuery: (sql) => recording && statements.push(sql),
    });

  /** The answer of a request and the SQL statements it issued. */
  async function recorded(send: () => Promise<GraphqlResponse>) {
    statements.length = 0;
    recording = true;
    const res = await send();
    recording = false;
    return { res, sql: [...statements] };
  }

  /** A key whose first request (cost 1) was answered: it is cached, and its bucket holds 2P + 100. */
  async function warmKey() {
    const { tenant, gql, api: rest } = await t.newTenant();
    const warm = await gql('{ me { apiVersion } }');
    expect(warm.body.errors).toBeUndefined();
    expect(warm.cost.requestedQueryCost).toBe(1);
    expect(bucketOf(warm)).toEqual({ limit: GRAPHQL_LIMIT, remaining: 2 * P + 100 });
    return { tenant, gql, rest };
  }

  it('answers 429 rate_limit.exceeded with Retry-After and runs nothing when the query costs more than is left; what fits still runs', async () => {
    const { gql } = await warmKey();
    // After this request's points, P + 100 are left: k pages of 100 (101 points each) cost more.
    const k = Math.floor((P + 100) / 101) + 1;
    const pages = `{ ${Array.from({ length: k }, (_, i) => `p${i}: customers(first: 100) { nodes { id } }`).join(' ')} }`;
    const { res: refused, sql } = await recorded(() => gql(pages));
    expectRateLimited(refused);
    expect(sql, 'a refused operation runs nothing').toEqual([]);
    expect(refused.cost).toMatchObject({ requestedQueryCost: 101 * k, actualQueryCost: 0 });
    // Its points stay available; only the request's were taken.
    expect(bucketOf(refused)).toEqual({ limit: GRAPHQL_LIMIT, remaining: P + 100 });

    // 100 are left after the next request's points: a page of 99 (100 points) runs, and empties the bucket.
    const fits = await gql('{ customers(first: 99) { nodes { id } } }');
    expect(fits.status).toBe(200);
    expect(fits.body.errors).toBeUndefined();
    expect(fits.cost.requestedQueryCost).toBe(100);
    expect(bucketOf(fits)).toEqual({ limit: GRAPHQL_LIMIT, remaining: 0 });

    // Now even the request's own points are lacking: refused before any operation is looked at.
    const { res: empty, sql: none } = await recorded(() => gql('{ me { apiVersion } }'));
    expectRateLimited(empty);
    expect(none).toEqual([]);
    expect(empty.cost.requestedQueryCost).toBeNull();
    expect(bucketOf(empty)).toEqual({ limit: GRAPHQL_LIMIT, remaining: 0 });
  });

  it('refuses a mutation that costs more than is left with 429, creating nothing and giving its writes back', async () => {
    const { gql, rest } = await warmKey();
    // After this request's points, P + 100 are left: m creates (1 + M points each) cost more.
    const m = Math.floor((P + 100) / (1 + M)) + 1;
    const { res: refused, sql } = await recorded(() => gql(creates(m, 'Too dear')));
    expectRateLimited(refused);
    expect(sql, 'a refused mutation runs nothing').toEqual([]);
    expect(refused.cost.requestedQueryCost).toBe(m * (1 + M));
    expect(bucketOf(refused)).toEqual({ limit: GRAPHQL_LIMIT, remaining: P + 100 });

    expect((await rest.get('/customers')).body.data).toEqual([]);
    // The write bucket is whole: the m writes taken before the points were refused were given back.
    expect((await rest.post('/customers', { customer: { organization: 'After' } })).headers.get('ratelimit-remaining')).toBe(String(WRITE_LIMIT - 1));
  });
});

describe('unauthenticated GraphQL requests', () => {
  const t = useTestApp({ rateLimits: { graphql: 4 * P } });

  it('are limited by source address in the graphql bucket, requestPoints each, random tokens included', async () => {
    const anonymous = t.graphql();
    const answers: GraphqlResponse[] = [];
    for (let i = 0; i < 4; i += 1) answers.push(await anonymous('{ me { apiVersion } }'));
    expect(answers.map((res) => res.status)).toEqual([401, 401, 401, 401]);
    expect(answers.map((res) => Number(res.headers.get('ratelimit-remaining')))).toEqual([3 * P, 2 * P, P, 0]);
    for (const res of answers) expect(res.headers.get('ratelimit-limit')).toBe(String(4 * P));

    const refused = await anonymous('{ me { apiVersion } }');
    expectRateLimited(refused);
    expect(bucketOf(refused)).toEqual({ limit: 4 * P, remaining: 0 });
    // A token that must be looked up is the address's too: refused without a lookup.
    const guessed = await t.graphql('svc_01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556')('{ me { apiVersion } }');
    expectRateLimited(guessed);
  });
});
