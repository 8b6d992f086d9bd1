import { AsyncLocalStorage } from 'node:async_hooks';

const background = new AsyncLocalStorage<true>();

/**
 * Runs background work (the job queue's outbox dispatcher) so that its statements are not reported to onQuery:
 * statement counts of a request stay the request's own while the queue works beside it.
 */
export function asBackground<T>(work: () => Promise<T>): Promise<T> {
  // Awaited inside: a Prisma query is sent when awaited, and must be sent in this context to be left unreported.
  return background.run(true, async () => await work());
}

/** `onQuery` for the statements sent outside asBackground only (DatabaseOptions.onQuery). */
export function reportedOnly(onQuery: (sql: string) => void): (sql: string) => void {
  return (sql) => {
    if (!background.getStore()) onQuery(sql);
  };
}
