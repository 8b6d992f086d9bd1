import { describe, expect, it } from 'vitest';
import { seedDefaultStatuses } from '../../src/db/default-statuses.ts';
import { defaultStatuses } from '../../src/resources/catalog.ts';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Default statuses for accounts made before a status-bearing resource existed: opening the database (server, CLI,
// tests) runs seedDefaultStatuses right after the migrations. An account made before Customer had statuses is
// simulated by deleting its Customer statuses in SQL; the seeding path then gives it the declared defaults.

const t = useTestApp();
const older = useTenant(t, { name: 'Made before customers had statuses' });
const other = useTenant(t, { name: 'Untouched' });

const sql = (statement: string, ...values: unknown[]) => t.database.prisma.$executeRawUnsafe(statement, ...values);
const statusRows = (accountId: string, relatedName: string) =>
  t.database.prisma.status.findMany({ where: { account_id: accountId, related_name: relatedName }, orderBy: [{ position: 'asc' }] });

describe('default statuses of a resource added after the account', () => {
  it('an account without Customer statuses cannot create customers until the seeding path runs, then gets the defaults', async () => {
    const before = await statusRows(other.tenant.accountId, 'Customer');
    await sql(`DELETE FROM statuses WHERE account_id = $1::uuid AND related_name = 'Customer'`, older.tenant.accountId);
    expectProblem(await older.api.post('/customers', { customer: { organization: 'Too Early Co' } }), { status: 422, code: 'status.transition_invalid' });

    expect(await seedDefaultStatuses(t.database.prisma)).toBe(defaultStatuses.Customer.length);

    const created = await older.api.post('/customers', { customer: { organization: 'Seeded Co' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.status).toBe(defaultStatuses.Customer[0]);
    const listed = await older.api.get('/statuses?related_name=Customer');
    expect(listed.body.data.map((s: { display_name: string }) => s.display_name)).toEqual([...defaultStatuses.Customer]);
    for (const status of listed.body.data) expect(status.id).toMatch(uuidV7);
    // Other accounts keep their own rows.
    expect(await statusRows(other.tenant.accountId, 'Customer')).toEqual(before);
  });

  it('is idempotent and leaves an account that configured the class alone, even with no live status', async () => {
    expect(await seedDefaultStatuses(t.database.prisma)).toBe(0);
    // The tenant discarded every Lead status (soft delete): its choice, not a missing class.
    await sql(`UPDATE statuses SET deleted_at = now() WHERE account_id = $1::uuid AND related_name = 'Lead'`, other.tenant.accountId);
    expect(await seedDefaultStatuses(t.database.prisma)).toBe(0);
    expect((await statusRows(other.tenant.accountId, 'Lead')).every((row) => row.deleted_at !== null)).toBe(true);
  });

  it('seeds each missing class once when several processes start together', async () => {
    await sql(`DELETE FROM statuses WHERE account_id = $1::uuid AND related_name IN ('Job', 'Estimate')`, older.tenant.accountId);
    const added = await Promise.all([1, 2, 3, 4].map(() => seedDefaultStatuses(t.database.prisma)));
    expect(added.reduce((sum, n) => sum + n, 0)).toBe(defaultStatuses.Job.length + defaultStatuses.Estimate.length);
    for (const relatedName of ['Job', 'Estimate']) {
      expect((await statusRows(older.tenant.accountId, relatedName)).map((row) => [row.display_name, row.position])).toEqual(
        defaultStatuses[relatedName].map((name, position) => [name, position]),
      );
    }
  });
});
