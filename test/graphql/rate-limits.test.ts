import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { client } from '../helpers/http.ts';
import { codeOf, graphqlClient } from './client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { read: 4, write: 2 } });
});
afterAll(() => t.close());

describe('GraphQL rate limits', () => {
  it('takes mutations from the write bucket and queries from the read bucket of the key', async () => {
    const tenant = await t.tenant();
    const gql = graphqlClient(t.url, tenant.token);
    const create = 'mutation { createCustomer(input: { organization: "Bucketed" }) { etag } }';
    const first = await gql(create);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    const query = await gql('{ me { apiVersion } }');
    expect(query.headers.get('ratelimit-limit')).toBe('4');
    expect(query.headers.get('ratelimit-remaining')).toBe('3');
  });

  it('shares the buckets with REST and answers HTTP 429 rate_limit.exceeded with Retry-After', async () => {
    const tenant = await t.tenant();
    const gql = graphqlClient(t.url, tenant.token);
    const rest = client(`${t.url}/api/v2`, tenant.token);
    expect((await rest.get('/me')).headers.get('ratelimit-remaining')).toBe('3');
    expect((await gql('{ me { apiVersion } }')).headers.get('ratelimit-remaining')).toBe('2');
    await gql('{ me { apiVersion } }');
    await rest.get('/me');
    const refused = await gql('{ me { apiVersion } }');
    expect(refused.status).toBe(429);
    expect(codeOf(refused)).toBe('rate_limit.exceeded');
    expect(refused.body.data).toBeUndefined();
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await rest.get('/me')).status).toBe(429);
    // The write bucket is separate.
    const write = await gql('mutation { createCustomer(input: { organization: "Still writable" }) { etag } }');
    expect(write.body.errors).toBeUndefined();
  });

  it('chooses the bucket of a long document without parsing more than it must: no "mutation" is a read, over 64 KiB with it a write', async () => {
    const tenant = await t.tenant();
    const gql = graphqlClient(t.url, tenant.token);
    const padding = (words: string) => `# ${words.repeat(Math.ceil(70_000 / words.length))}\n`;
    const longQuery = await gql(`${padding('a query about buckets ')}{ me { apiVersion } }`);
    expect(longQuery.body.errors, JSON.stringify(longQuery.body)).toBeUndefined();
    expect(longQuery.headers.get('ratelimit-limit')).toBe('4');
    // The word in a comment is enough to be counted as a write when the document is too long to parse first.
    const longMention = await gql(`${padding('no mutation here ')}{ me { apiVersion } }`);
    expect(longMention.body.errors, JSON.stringify(longMention.body)).toBeUndefined();
    expect(longMention.headers.get('ratelimit-limit')).toBe('2');
    // A short one is parsed: a query that mentions the word is a read.
    const shortMention = await gql('# not a mutation\n{ me { apiVersion } }');
    expect(shortMention.headers.get('ratelimit-limit')).toBe('4');
  });

  it('limits unauthenticated requests by source address', async () => {
    const anonymous = graphqlClient(t.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await anonymous('{ me { apiVersion } }')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});
