import type { PrismaClient } from '../generated/prisma/client.ts';
import { newId } from '../kernel/ids.ts';
import { defaultStatuses } from '../resources/catalog.ts';

// Default statuses of accounts made before a status-bearing resource existed. A new account gets the default
// statuses of every resource class (AdminService.createAccount); an account made earlier has none for a class
// added since, and every create of that resource would fail (status.transition_invalid: no status configured).
// So whenever the database is opened with migrations (server, CLI, tests), right after the migrations, each account
// gets the defaults of each class it has no status row for at all. An account that has rows for the class (live or
// deleted: statuses are the tenant's to configure) is left as it is.
//
// Idempotent, and safe when several processes start at once on PostgreSQL: a concurrent insert of the same live
// name meets the unique index statuses_live_name and is skipped (skipDuplicates: ON CONFLICT DO NOTHING).

/** Gives every account the default statuses of each class it has none of; answers how many statuses were added. */
export async function seedDefaultStatuses(prisma: PrismaClient, defaults: Readonly<Record<string, readonly string[]>> = defaultStatuses): Promise<number> {
  const classes = Object.keys(defaults);
  if (classes.length === 0) return 0;
  // Every account, across tenants: this runs at start, outside any request.
  const missing = await prisma.$queryRawUnsafe<{ account_id: string; related_name: string }[]>(
    `SELECT a.id::text AS account_id, c.related_name FROM accounts a CROSS JOIN unnest($1::text[]) AS c(related_name)
     WHERE NOT EXISTS (SELECT 1 FROM statuses s WHERE s.account_id = a.id AND s.related_name = c.related_name)`,
    classes,
  );
  if (missing.length === 0) return 0;
  const now = new Date();
  const data = missing.flatMap(({ account_id, related_name }) =>
    defaults[related_name]!.map((display_name, position) => ({ id: newId(), account_id, related_name, display_name, position, created_at: now, updated_at: now })),
  );
  return (await prisma.status.createMany({ data, skipDuplicates: true })).count;
}
