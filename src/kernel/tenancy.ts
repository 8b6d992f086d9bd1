import { Prisma, type PrismaClient } from '../generated/prisma/client.ts';
import { currentTenantOrNull } from './context.ts';
import { tenantQuery } from './tenant-sql.ts';

// The one tenancy mechanism for Prisma access: every operation on a tenant-owned model is scoped to the
// account of the running request (AsyncLocalStorage, see context.ts). Reads and writes get
// `account_id = <tenant>` in their where clause, creates get it in their data. Without a tenant in
// context the operation is refused, so a forgotten scope fails closed instead of leaking.
// Raw SQL is scoped by tenantQuery (tenant-sql.ts), which binds the account from the same context.

/** The models that have an account_id column (Prisma's <Model>ScalarFieldEnum lists every column of a model). */
export const tenantModels = new Set<string>(
  Object.values(Prisma.ModelName).filter((name) => 'account_id' in (Prisma as unknown as Record<string, Record<string, string>>)[`${name}ScalarFieldEnum`]!),
);

const whereOperations = new Set([
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy',
  'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany', 'upsert',
]);

type AnyArgs = Record<string, any>;

export function tenantScoped(prisma: PrismaClient) {
  return prisma.$extends({
    name: 'tenant-scope',
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          if (!tenantModels.has(model)) return query(args);
          const accountId = currentTenantOrNull();
          if (!accountId) throw new Error(`tenant-scoped ${model}.${operation} outside a tenant context`);
          const a = { ...(args as AnyArgs) };
          if (whereOperations.has(operation)) a.where = { ...(a.where ?? {}), account_id: accountId };
          if (operation === 'create') a.data = { ...a.data, account_id: accountId };
          if (operation === 'createMany' || operation === 'createManyAndReturn') {
            const rows = Array.isArray(a.data) ? a.data : [a.data];
            a.data = rows.map((row: AnyArgs) => ({ ...row, account_id: accountId }));
          }
          if (operation === 'upsert') a.create = { ...a.create, account_id: accountId };
          if ((operation === 'update' || operation === 'updateMany' || operation === 'upsert') && a.data?.account_id !== undefined) {
            throw new Error('account_id cannot be changed');
          }
          return query(a as typeof args);
        },
      },
    },
  });
}

export type TenantClient = ReturnType<typeof tenantScoped>;
export type TenantTx = Parameters<Parameters<TenantClient['$transaction']>[0]>[0];

/** How often a transaction that lost a deadlock or a serialization conflict is run again before failing. */
const TRANSACTION_ATTEMPTS = 3;

/** PostgreSQL's deadlock_detected (40P01) and serialization_failure (40001), as Prisma or the driver reports them. */
function isRetryableConflict(error: unknown): boolean {
  const e = error as { code?: string; meta?: unknown; message?: string; cause?: unknown };
  if (e?.code === 'P2034' || e?.code === '40P01' || e?.code === '40001') return true;
  const text = `${e?.message ?? ''} ${JSON.stringify(e?.meta ?? {})} ${String((e?.cause as { code?: string })?.code ?? '')}`;
  return /40P01|40001|deadlock detected|could not serialize access/i.test(text);
}

/**
 * The one way a service runs an interactive transaction on the tenant client. A transaction that PostgreSQL
 * aborted to break a deadlock or a serialization conflict changed nothing, so it is run again from the start
 * (at most TRANSACTION_ATTEMPTS times, after a short random pause) instead of answering internal.error: the
 * loser of two writes that lock the same rows in opposite orders (e.g. a customer's delete and an edit of its
 * site) then simply waits for the winner.
 */
export async function inTransaction<T>(db: TenantClient, fn: (tx: TenantTx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.$transaction(fn, { timeout: 15_000, maxWait: 10_000 });
    } catch (error) {
      if (attempt >= TRANSACTION_ATTEMPTS || !isRetryableConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
    }
  }
}

/**
 * Reads the caller's rows of `table` with the given ids (columns: SQL-safe names chosen by the code, never by a
 * client) and holds a FOR SHARE lock on them until the transaction ends. A write whose derived data copies
 * text from records it references (a job's search text: its customer's organization, its site's address ...)
 * takes this lock first, so a concurrent rename of such a record either commits before (and the write copies
 * the new text) or waits for the write (and its trigger then sees the written row).
 */
export async function readShared<Row>(tx: TenantTx, table: string, columns: string, ids: readonly string[], idType: 'uuid' | 'bigint' = 'uuid'): Promise<Row[]> {
  if (ids.length === 0) return [];
  return tenantQuery<Row>(tx, `SELECT ${columns} FROM "${table}" WHERE account_id = $1::uuid AND id = ANY($2::${idType}[]) ORDER BY id FOR SHARE`, [...ids]);
}
