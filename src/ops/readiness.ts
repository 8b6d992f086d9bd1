import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { appliedMigrationNames, pingDatabase } from '../db/readiness-queries.ts';
import { loadMigrationsList } from '../db/migrate.ts';
import { TIMED_OUT, withTimeout, type WorkerRegistry } from './workers.ts';

// GET /readyz: can this process serve requests now? Three checks, each with a short timeout:
// - database: `SELECT 1` answers;
// - migrations: every migration folder of this build has a row in Prisma's `_prisma_migrations` that finished
//   and was not rolled back (rows of migrations this build does not know, a newer build's, are fine);
// - workers: every registered background worker says it is running (workers.ts).
// The failures are described in words an operator can act on; the driver's errors (SQL, host names) go to the log.

export type CheckState = 'ok' | 'failed' | 'skipped';

export interface ReadinessReport {
  ready: boolean;
  checks: { database: CheckState; migrations: CheckState; workers: CheckState };
  /** One sentence fragment per failed check ("the database is unreachable"). */
  failures: string[];
}

export interface ReadinessOptions {
  database: Database;
  workers: WorkerRegistry;
  logger: Logger;
  /** Each check's time limit (default 1000 ms); a check that takes longer fails. */
  timeoutMs?: number;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export class Readiness {
  private readonly timeoutMs: number;
  /** Migration folder names of this build, read once (they do not change while the process runs). */
  private expected: string[] | null = null;
  /** The probe under way: concurrent /readyz requests share it, so a burst of them costs one probe. */
  private running: Promise<ReadinessReport> | null = null;
  private lastReady: boolean | null = null;

  constructor(private readonly options: ReadinessOptions) {
    this.timeoutMs = options.timeoutMs ?? 1000;
  }

  check(): Promise<ReadinessReport> {
    return (this.running ??= this.probe().finally(() => {
      this.running = null;
    }));
  }

  private async probe(): Promise<ReadinessReport> {
    const [database, stopped] = await Promise.all([this.databaseChecks(), this.options.workers.stopped(this.timeoutMs)]);
    const failures = [...database.failures, ...stopped.map((name) => `worker ${name} is not running`)];
    const report: ReadinessReport = {
      ready: failures.length === 0,
      checks: { database: database.database, migrations: database.migrations, workers: stopped.length === 0 ? 'ok' : 'failed' },
      failures,
    };
    this.logChange(report, { ...database.log, stopped_workers: stopped.length > 0 ? stopped : undefined });
    return report;
  }

  private async databaseChecks(): Promise<{
    database: CheckState;
    migrations: CheckState;
    failures: string[];
    log: Record<string, unknown>;
  }> {
    const { database } = this.options;
    const seconds = `${this.timeoutMs / 1000} s`;
    try {
      if ((await withTimeout(pingDatabase(database), this.timeoutMs)) === TIMED_OUT) {
        return { database: 'failed', migrations: 'skipped', failures: [`the database did not answer within ${seconds}`], log: { database_error: 'timeout' } };
      }
    } catch (error) {
      const e = error as { name?: string; code?: string };
      return { database: 'failed', migrations: 'skipped', failures: ['the database is unreachable'], log: { database_error: e?.code ?? e?.name } };
    }
    try {
      const applied = await withTimeout(appliedMigrationNames(database), this.timeoutMs);
      if (applied === TIMED_OUT) {
        return { database: 'ok', migrations: 'failed', failures: [`the migration history could not be read within ${seconds}`], log: { migrations_error: 'timeout' } };
      }
      this.expected ??= loadMigrationsList().migrationDirectories.map((directory) => directory.path);
      const pending = this.expected.filter((name) => !applied.has(name));
      if (pending.length > 0) {
        return {
          database: 'ok',
          migrations: 'failed',
          failures: [`${plural(pending.length, 'database migration is', 'database migrations are')} not applied (migrations are applied when the server starts)`],
          log: { pending_migrations: pending },
        };
      }
      return { database: 'ok', migrations: 'ok', failures: [], log: {} };
    } catch (error) {
      const e = error as { name?: string; code?: string };
      return { database: 'ok', migrations: 'failed', failures: ['the migration history could not be read'], log: { migrations_error: e?.code ?? e?.name } };
    }
  }

  /** One log line when readiness changes (not one per probe): what failed, with the details /readyz keeps back. */
  private logChange(report: ReadinessReport, details: Record<string, unknown>): void {
    if (report.ready === this.lastReady) return;
    const first = this.lastReady === null;
    this.lastReady = report.ready;
    if (!report.ready) this.options.logger.warn({ checks: report.checks, ...details }, 'not ready');
    else if (!first) this.options.logger.info({ checks: report.checks }, 'ready again');
  }
}
