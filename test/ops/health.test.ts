import { beforeAll, describe, expect, it } from 'vitest';
import { loadMigrationsList } from '../../src/db/migrate.ts';
import { useTestApp } from '../helpers/app.ts';
import type { ApiResponse } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';

// /healthz (liveness: the process answers) and /readyz (readiness: database reachable, every migration applied,
// every registered background worker running), outside /api/v2 and without a key (docs/operations.md).

async function get(url: string): Promise<ApiResponse> {
  const res = await fetch(url);
  const text = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body, text, url };
}

/** A 503 service.not_ready whose detail is exactly `detail`, and that tells nothing of the internals. */
function expectNotReady(res: ApiResponse, detail: string): void {
  const body = expectProblem(res, { status: 503, code: 'service.not_ready', instance: '/readyz' });
  expect(body.detail).toBe(detail);
  expect(body.detail).not.toMatch(/select|_prisma_migrations|postgres(ql)?:|127\.0\.0\.1|pglite|\bat \w|error/i);
}

const migrations = loadMigrationsList().migrationDirectories.map((directory) => directory.path);

// Every app runs background work from its first listen(): the outbox dispatcher (src/events/queue.ts) takes the
// outbox cursor and reads new events on connect and every few seconds, whatever the requests do. The database
// client does not report that work to onQuery (asBackground in src/db/background.ts), and pg-boss's own polling never
// reaches it (its own pool on PostgreSQL, the PGlite instance directly), so what is counted here is the requests'.

describe('GET /healthz', () => {
  const statements: string[] = [];
  const t = useTestApp({ onQuery: (sql) => statements.push(sql) });

  it('answers 200 {"status":"ok"} without a key, not cached, and without a database statement', async () => {
    statements.length = 0;
    const res = await get(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ status: 'ok' });
    expect(statements).toEqual([]);
    // The statements are seen: /readyz's are.
    await get(`${t.url}/readyz`);
    expect(statements.length).toBeGreaterThan(0);
    // ... and the dispatcher's background steps (on connect, every 5 s) are not among them.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(statements.filter((sql) => /event_cursors/.test(sql))).toEqual([]);
  });
});

describe('with the database closed', () => {
  const t = useTestApp();
  beforeAll(() => t.database.close());

  it('/readyz answers 503 service.not_ready: the database is unreachable, with no driver message', async () => {
    expectNotReady(await get(`${t.url}/readyz`), 'Not ready: the database is unreachable.');
  });

  it('/healthz still answers 200 (liveness is not readiness)', async () => {
    expect((await get(`${t.url}/healthz`)).status).toBe(200);
  });
});

describe('GET /readyz', () => {
  const t = useTestApp();

  it('answers 200 with every check ok on a healthy app, without a key, not cached', async () => {
    // The app registers its own worker: the job queue (webhook deliveries and the outbox dispatcher), running
    // since listen().
    expect(t.app.ops.workers.names()).toEqual(['webhooks']);
    const res = await get(`${t.url}/readyz`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', workers: 'ok' } });
  });

  it('answers 503 service.not_ready naming the worker while a registered worker reports it is not running, 200 again once it runs', async () => {
    let running = true;
    const unregister = t.app.ops.workers.register('reports', () => running);
    try {
      expect(t.app.ops.workers.names()).toEqual(['webhooks', 'reports']);
      expect((await get(`${t.url}/readyz`)).status).toBe(200);
      running = false;
      // Only the stopped worker is named: the app's webhooks worker still runs.
      expectNotReady(await get(`${t.url}/readyz`), 'Not ready: worker reports is not running.');
      running = true;
      expect((await get(`${t.url}/readyz`)).status).toBe(200);
    } finally {
      unregister();
    }
  });

  it('counts a worker whose check throws, rejects or does not answer within the time limit as not running', async () => {
    const stops = [
      t.app.ops.workers.register('throws', () => {
        throw new Error('connection refused to redis://secret@10.0.0.1');
      }),
      t.app.ops.workers.register('rejects', async () => Promise.reject(new Error('boom'))),
      t.app.ops.workers.register('hangs', () => new Promise<boolean>(() => {})),
      t.app.ops.workers.register('async-ok', async () => true),
    ];
    try {
      const started = Date.now();
      const res = await get(`${t.url}/readyz`);
      expect(Date.now() - started).toBeLessThan(5000);
      expectNotReady(res, 'Not ready: worker throws is not running; worker rejects is not running; worker hangs is not running.');
      expect(res.text).not.toContain('secret');
    } finally {
      for (const stop of stops) stop();
    }
    expect((await get(`${t.url}/readyz`)).status).toBe(200);
  });

  it('refuses a second worker of the same name and a name that is not a plain word', () => {
    // The app's own worker is taken.
    expect(() => t.app.ops.workers.register('webhooks', () => true)).toThrow(/worker webhooks is already registered/);
    const stop = t.app.ops.workers.register('reports', () => true);
    try {
      expect(() => t.app.ops.workers.register('reports', () => true)).toThrow(/worker reports is already registered/);
      expect(() => t.app.ops.workers.register('Bad Name!', () => true)).toThrow(/worker name/);
      expect(t.app.ops.workers.names()).toEqual(['webhooks', 'reports']);
    } finally {
      stop();
    }
    // Unregistering one worker leaves the others, the app's among them.
    expect(t.app.ops.workers.names()).toEqual(['webhooks']);
  });

  describe('migrations', () => {
    const sql = (statement: string, ...values: unknown[]) => t.database.prisma.$executeRawUnsafe(statement, ...values);
    const last = migrations[migrations.length - 1];

    it('answers 503 while a migration row is unfinished, rolled back or missing, and 200 once it is applied', async () => {
      expect(migrations.length).toBeGreaterThan(1);
      const [row] = await t.database.prisma.$queryRawUnsafe<{ id: string; finished_at: Date }[]>('SELECT id, finished_at FROM _prisma_migrations WHERE migration_name = $1', last);
      expect(row, `a _prisma_migrations row for ${last}`).toBeTruthy();
      const pending = 'Not ready: 1 database migration is not applied (migrations are applied when the server starts).';

      await sql('UPDATE _prisma_migrations SET finished_at = NULL WHERE id = $1', row.id);
      expectNotReady(await get(`${t.url}/readyz`), pending);

      await sql('UPDATE _prisma_migrations SET finished_at = $2, rolled_back_at = now() WHERE id = $1', row.id, row.finished_at);
      expectNotReady(await get(`${t.url}/readyz`), pending);

      await sql('UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE id = $1', row.id);
      expect((await get(`${t.url}/readyz`)).status).toBe(200);

      const columns = 'id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count';
      const saved = await t.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT ${columns} FROM _prisma_migrations WHERE migration_name IN ($1, $2)`, migrations[0], last);
      expect(saved).toHaveLength(2);
      await sql('DELETE FROM _prisma_migrations WHERE migration_name IN ($1, $2)', migrations[0], last);
      expectNotReady(await get(`${t.url}/readyz`), 'Not ready: 2 database migrations are not applied (migrations are applied when the server starts).');

      const insert = `INSERT INTO _prisma_migrations (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;
      for (const r of saved) await sql(insert, r.id, r.checksum, r.finished_at, r.migration_name, r.logs, r.rolled_back_at, r.started_at, r.applied_steps_count);
      // A row of a migration this build does not know (a newer build applied it) does not matter.
      await sql(insert, crypto.randomUUID(), 'x'.repeat(64), new Date(), '99991231000000_from_a_newer_build', null, null, new Date(), 1);
      expect((await get(`${t.url}/readyz`)).status).toBe(200);
    });
  });
});
