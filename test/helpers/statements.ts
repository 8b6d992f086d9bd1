import { expect } from 'vitest';
import type { Gql } from './graphql.ts';

/**
 * Records the SQL statements the app issues while chosen requests run: give `onQuery` to useTestApp (or
 * startTestApp), then wrap a request in `during`. What the app does at other times is not recorded.
 */
export class StatementLog {
  private statements: string[] = [];
  private recording = false;

  readonly onQuery = (sql: string): void => {
    if (this.recording) this.statements.push(sql);
  };

  /** Runs `send` and returns its result with the statements issued meanwhile. */
  async during<T>(send: () => Promise<T>): Promise<{ res: T; sql: string[] }> {
    this.statements = [];
    this.recording = true;
    try {
      const res = await send();
      return { res, sql: [...this.statements] };
    } finally {
      this.recording = false;
    }
  }
}

/**
 * Settings for a test app whose statements are counted: the key is verified on every request (no verified-key
 * cache), so a request and its baseline authenticate alike however long either takes. With the cache on, a slow
 * request could outlive the cached row and count its re-verification as its own.
 */
export const verifyEveryRequest = { AUTH_CACHE_TTL_MS: '0' } as const;

/**
 * The statements one GraphQL request issues, less those of authenticating it: the statements of `{ __typename }`
 * sent just before (the app must verify every request, see verifyEveryRequest) are taken out of the request's, one
 * for one; both requests must answer without errors.
 */
export async function graphqlStatements(log: StatementLog, gql: Gql, query: string) {
  const run = async (document: string) => {
    const { res, sql } = await log.during(() => gql(document));
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return { res, sql };
  };
  const baseline = await run('{ __typename }');
  const measured = await run(query);
  const sql = [...measured.sql];
  for (const statement of baseline.sql) {
    const at = sql.indexOf(statement);
    expect(at, `the request authenticates as its baseline did: ${statement}`).toBeGreaterThanOrEqual(0);
    sql.splice(at, 1);
  }
  return { data: measured.res.body.data, count: sql.length, sql };
}
