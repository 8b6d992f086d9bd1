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
 * The statements one GraphQL request issues, less those of authenticating it (measured on `{ __typename }`, sent
 * once before to warm the key cache, so that the baseline and the request authenticate alike); both requests must
 * answer without errors.
 */
export async function graphqlStatements(log: StatementLog, gql: Gql, query: string) {
  const run = async (document: string) => {
    const { res, sql } = await log.during(() => gql(document));
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return { res, sql };
  };
  await run('{ __typename }');
  const baseline = await run('{ __typename }');
  const measured = await run(query);
  return { data: measured.res.body.data, count: measured.sql.length - baseline.sql.length, sql: measured.sql };
}
