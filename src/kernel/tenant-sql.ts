import { currentTenant } from './context.ts';

// The one way code in src/ runs raw SQL on tenant data (Prisma's typed calls are scoped by tenancy.ts). The
// caller's account id is always bound as $1, from the request's tenant context, never passed by the caller; the
// statement's own parameters follow as $2, $3 ... A statement that never reads $1 is a programming error and
// throws before it is sent: every raw statement is filtered (or written) by the caller's account.
// test/security/raw-sql.test.ts fails when a file of src/ calls $queryRawUnsafe or $executeRawUnsafe itself.

/** Anything that runs a raw statement: a transaction, the tenant client, or the listing's raw pool. */
export interface RawRunner {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

const readsTenant = /\$1(?!\d)/;

function checked(sql: string): string {
  if (!readsTenant.test(sql)) throw new Error(`raw SQL without the tenant parameter $1: ${sql.slice(0, 120)}`);
  return sql;
}

/** Rows of a statement scoped to the caller's account: `$1` is the account id, `params` are `$2` onwards. */
export function tenantQuery<Row>(db: RawRunner, sql: string, ...params: unknown[]): Promise<Row[]> {
  return db.$queryRawUnsafe<Row[]>(checked(sql), currentTenant(), ...params);
}
