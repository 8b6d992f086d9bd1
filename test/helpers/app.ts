import type { Logger } from 'pino';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import type { Bucket } from '../../src/kernel/rate-limit.ts';
import { freshDatabase } from './database.ts';

/** A clock tests can move. */
export class TestClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface Tenant {
  accountId: string;
  userId: number;
  keyId: string;
  token: string;
}

export interface TestApp {
  url: string;
  app: App;
  database: Database;
  config: Config;
  /** A new account with an admin user and a key with every scope. */
  tenant(options?: { name?: string; sandbox?: boolean }): Promise<Tenant>;
  close(): Promise<void>;
}

export async function startTestApp(
  options: {
    clock?: Clock;
    rateLimits?: Partial<Record<Bucket, number>>;
    env?: Record<string, string>;
    onQuery?: (sql: string) => void;
    /** A logger to receive the app's logs (tests that inspect log lines); default: LOG_LEVEL silent. */
    logger?: Logger;
  } = {},
): Promise<TestApp> {
  const database = await freshDatabase({ onQuery: options.onQuery });
  const config = loadConfig({ LOG_LEVEL: 'silent', AUTH_CACHE_TTL_MS: '0', ...options.env });
  const app = buildApp({ database, config, clock: options.clock, rateLimits: options.rateLimits, logger: options.logger });
  const { port } = await app.listen(0, '127.0.0.1');
  let counter = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    database,
    config,
    async tenant(tenantOptions = {}) {
      counter += 1;
      const created = await app.domain.admin.createAccount({ name: tenantOptions.name ?? `Tenant ${counter}`, sandbox: tenantOptions.sandbox });
      return { accountId: created.account.id, userId: created.user.id, keyId: created.key.id, token: created.key.token };
    },
    async close() {
      await app.close();
      await database.close();
    },
  };
}
