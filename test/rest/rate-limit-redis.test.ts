import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/database.ts';

// Two API processes behind a load balancer must share rate-limit counters: with REDIS_URL the buckets live in
// Redis. Runs when TEST_REDIS_URL is set (.ci/run sets it to the machine's Redis).
const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!redisUrl)('rate limits shared through Redis', () => {
  let database: Database;
  const apps: TestApp[] = [];
  const redises: Redis[] = [];

  beforeAll(async () => {
    database = await freshDatabase();
    // A key prefix of this run keeps parallel runs on the same Redis apart; both instances share it.
    const keyPrefix = `fl_test_${randomBytes(4).toString('hex')}_`;
    for (let i = 0; i < 2; i++) {
      const redis = new Redis(redisUrl!, { keyPrefix, maxRetriesPerRequest: 1 });
      redises.push(redis);
      apps.push(await startTestApp({ database, redis, rateLimits: { read: 4, write: 2 } }));
    }
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const redis of redises) redis.disconnect();
    await database.close();
  });

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
