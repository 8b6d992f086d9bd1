import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { currentTenantOrNull } from './context.ts';

// The one tenancy mechanism for Prisma access: every operation on a tenant-owned model is scoped to the
// account of the running request (AsyncLocalStorage, see context.ts). Reads and writes get
// `account_id = <tenant>` in their where clause, creates get it in their data. Without a tenant in
// context the operation is refused, so a forgotten scope fails closed instead of leaking.
// Raw list SQL is scoped by the kernel's list builder, which takes the account from the same context.

export const tenantModels = new Set<string>(
  Object.entries(getDatamodel().datamodel.models)
    .filter(([, model]) => model.fields.some((field) => field.name === 'account_id'))
    .map(([name]) => name),
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
