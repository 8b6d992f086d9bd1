import { describe, expect, it } from 'vitest';
import { testRedisUrl, useRedisInstances } from '../helpers/redis.ts';

// Two API processes behind a load balancer must share rate-limit counters: with REDIS_URL the buckets live in
// Redis. Runs when TEST_REDIS_URL is set (.ci/run sets it to the machine's Redis).
describe.skipIf(!testRedisUrl)('rate limits shared through Redis', () => {
  const { apps } = useRedisInstances({ rateLimits: { read: 4, write: 2 } });

  it('counts requests of one key across two app instances and answers 429 once the shared bucket is empty', async () => {
    const created = await apps[0].app.domain.admin.createAccount({ name: 'Shared limits' });
    const a = apps[0].client(created.key.token);
    const b = apps[1].client(created.key.token);
    const remaining: number[] = [];
    for (const api of [a, b, a, b]) {
      const res = await api.get('/me');
      expect(res.status).toBe(200);
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    const limited = await b.get('/me');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limit.exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
