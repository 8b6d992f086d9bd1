import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';
import { freshDatabase } from './database.ts';

/** The machine's Redis for tests that need one (.ci/run sets TEST_REDIS_URL when Redis answers); undefined: skip. */
export const testRedisUrl = process.env.TEST_REDIS_URL;

/**
 * Two app instances on one database and one Redis, as two API processes behind a load balancer, made in beforeAll
 * and closed in afterAll. A key prefix of this run keeps parallel runs on the same Redis apart; both instances
 * share it. Use inside `describe.skipIf(!testRedisUrl)`. `redises[i]` is the client of `apps[i]` (key prefix applied).
 */
export function useRedisInstances(options: Omit<TestAppOptions, 'database' | 'redis'> = {}): { apps: TestApp[]; redises: Redis[] } {
  let database: Database;
  const apps: TestApp[] = [];
  const redises: Redis[] = [];
  beforeAll(async () => {
    database = await freshDatabase();
    const keyPrefix = `fl_test_${randomBytes(4).toString('hex')}_`;
    for (let i = 0; i < 2; i++) {
      const redis = new Redis(testRedisUrl!, { keyPrefix, maxRetriesPerRequest: 1 });
      redises.push(redis);
      apps.push(await startTestApp({ ...options, database, redis }));
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const redis of redises) redis.disconnect();
    await database?.close();
  });
  return { apps, redises };
}
