import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { buildApp, type App } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database } from '../../src/db/client.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import type { Bucket } from '../../src/kernel/rate-limit.ts';
import { freshDatabase } from './database.ts';
import { graphqlClient, type Gql } from './graphql.ts';
import { client, type Client } from './http.ts';

/** A clock tests can move forward, or pin to a moment (to make equal timestamps on purpose) and release again. */
export class TestClock implements Clock {
  private offsetMs = 0;
  private pinned: number | null = null;
  now(): Date {
    return new Date(this.pinned ?? Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  pin(at: Date | string): void {
    this.pinned = new Date(at).getTime();
  }
  release(): void {
    this.pinned = null;
  }
}

/** Rate limits no test reaches by accident (files that send many requests). */
export const highRateLimits = { read: 100_000, write: 100_000 } as const;

export interface Tenant {
  accountId: string;
  userId: number;
  keyId: string;
  token: string;
}

/** A tenant with clients of its key. */
export interface TenantClients {
  tenant: Tenant;
  /** REST, on /api/v2. */
  api: Client;
  gql: Gql;
}

export interface TestAppOptions {
  clock?: Clock;
  rateLimits?: Partial<Record<Bucket, number>>;
  env?: Record<string, string>;
  onQuery?: (sql: string) => void;
  /** A logger to receive the app's logs (tests that inspect log lines); default: LOG_LEVEL silent. */
  logger?: Logger;
  /** A database the test opened itself (and closes itself); default: a fresh one, closed with the app. */
  database?: Database;
  redis?: Redis;
}

export interface TestApp {
  url: string;
  app: App;
  database: Database;
  config: Config;
  /** A new account with an admin user and a key with every scope. */
  tenant(options?: { name?: string; sandbox?: boolean }): Promise<Tenant>;
  /** A new account (as tenant()) with REST and GraphQL clients of its key. */
  newTenant(options?: { name?: string; sandbox?: boolean }): Promise<TenantClients>;
  /** A REST client of /api/v2 sending this token (none: anonymous). */
  client(token?: string | null): Client;
  /** A GraphQL client sending this token (none: anonymous). */
  graphql(token?: string | null): Gql;
  /** Closes the app and its database; safe to call again, and after a test closed the database itself. */
  close(): Promise<void>;
}

/** Runs a close function once; later calls get the first call's promise. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

/** The real app over a fresh database, listening on an ephemeral port of 127.0.0.1. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const fresh = options.database ? null : await freshDatabase({ onQuery: options.onQuery, dropOnClose: false });
  const database: Database = options.database ?? { ...fresh!, close: once(() => fresh!.close()) };
  // Attachment files go to a directory of the app's own (removed with it) unless the test chooses the storage.
  const filesDir = options.env?.FILE_STORAGE || options.env?.FILES_DIR ? undefined : await mkdtemp(path.join(tmpdir(), 'fieldline-test-files-'));
  // The suite's apps run as NODE_ENV=test (not development: loopback webhook URLs are refused unless a test allows them).
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...(filesDir ? { FILES_DIR: filesDir } : {}), ...options.env });
  const app = buildApp({ database, config, clock: options.clock, rateLimits: options.rateLimits, logger: options.logger, redis: options.redis });
  const { port } = await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  let counter = 0;
  const testApp: TestApp = {
    url,
    app,
    database,
    config,
    async tenant(tenantOptions = {}) {
      counter += 1;
      const created = await app.domain.admin.createAccount({ name: tenantOptions.name ?? `Tenant ${counter}`, sandbox: tenantOptions.sandbox });
      return { accountId: created.account.id, userId: created.user.id, keyId: created.key.id, token: created.key.token };
    },
    async newTenant(tenantOptions) {
      const tenant = await testApp.tenant(tenantOptions);
      return { tenant, api: testApp.client(tenant.token), gql: testApp.graphql(tenant.token) };
    },
    client: (token) => client(`${url}/api/v2`, token ?? undefined),
    graphql: (token) => graphqlClient(url, token ?? undefined),
    close: once(async () => {
      await app.close();
      if (fresh) {
        await database.close();
        // Only now: a test may have closed the database under the running app, whose queue and listener still held
        // connections until app.close().
        fresh.drop();
      }
      if (filesDir) await rm(filesDir, { recursive: true, force: true });
    }),
  };
  return testApp;
}

/**
 * The app of a test file (or of a describe block): started in beforeAll, closed in afterAll. The handle can be
 * used as soon as the hooks have run (in later hooks and in tests), like the TestApp it stands for.
 */
export function useTestApp(options: TestAppOptions = {}): TestApp {
  let started: TestApp | undefined;
  beforeAll(async () => {
    started = await startTestApp(options);
  });
  afterAll(() => started?.close());
  const current = (): TestApp => {
    if (!started) throw new Error('useTestApp: the app starts in beforeAll; use it in hooks and tests');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get app() {
      return current().app;
    },
    get database() {
      return current().database;
    },
    get config() {
      return current().config;
    },
    tenant: (tenantOptions) => current().tenant(tenantOptions),
    newTenant: (tenantOptions) => current().newTenant(tenantOptions),
    client: (token) => current().client(token),
    graphql: (token) => current().graphql(token),
    close: () => current().close(),
  };
}

/**
 * A tenant of the suite's app for the file (or describe block), made in beforeAll, with REST and GraphQL clients
 * of its key. Like the useTestApp handle, what it returns can be used in later hooks and in tests.
 */
export function useTenant(t: TestApp, options?: { name?: string; sandbox?: boolean }): TenantClients {
  let made: TenantClients | undefined;
  beforeAll(async () => {
    made = await t.newTenant(options);
  });
  const current = (): TenantClients => {
    if (!made) throw new Error('useTenant: the tenant is made in beforeAll; use it in hooks and tests');
    return made;
  };
  const tenant: Tenant = {
    get accountId() {
      return current().tenant.accountId;
    },
    get userId() {
      return current().tenant.userId;
    },
    get keyId() {
      return current().tenant.keyId;
    },
    get token() {
      return current().tenant.token;
    },
  };
  const api: Client = {
    request: (method, path, requestOptions) => current().api.request(method, path, requestOptions),
    get: (path, requestOptions) => current().api.get(path, requestOptions),
    post: (path, body, requestOptions) => current().api.post(path, body, requestOptions),
    patch: (path, body, requestOptions) => current().api.patch(path, body, requestOptions),
    delete: (path, requestOptions) => current().api.delete(path, requestOptions),
  };
  const gql: Gql = (query, variables, gqlOptions) => current().gql(query, variables, gqlOptions);
  return { tenant, api, gql };
}
