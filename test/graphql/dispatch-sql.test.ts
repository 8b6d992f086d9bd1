import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, type Tenant, useTestApp } from '../helpers/app.ts';
import { codeOf, createMany, type Gql, ok } from '../helpers/graphql.ts';
import { graphqlStatements, StatementLog, verifyEveryRequest } from '../helpers/statements.ts';

// The dispatch board resolves without N+1: the SQL statements of a dispatchBoard request (startTestApp onQuery,
// less those of authenticating it, measured on `{ __typename }`) are a small constant, the same for 10 jobs
// and 100 jobs, with customer, site, contact (and its phone numbers), assignees and line items (with their
// item and tax rate) on every job.

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery, env: verifyEveryRequest, rateLimits: { ...highRateLimits, graphql: 10_000_000 } });

const WEEK_START = Date.parse('2031-03-03T00:00:00.000Z');

/** A tenant with `n` jobs in the week of WEEK_START (and one just outside it), each with its own customer, site and contact, two assignees and two lines. */
async function seed(n: number): Promise<{ tenant: Tenant; gql: Gql; jobIds: string[] }> {
  const { tenant, gql } = await t.newTenant();
  const tech = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: 'Tess Tech', email: `tess.${tenant.accountId.slice(-8)}@example.test`, role: 'technician' });
  const item = ok(await gql(`mutation { createItem(input: { name: "Filter", itemType: MATERIAL, unitPrice: "12.5" }) { item { id } } }`)).createItem.item.id;
  const taxRate = ok(await gql(`mutation { createTaxRate(input: { name: "State", rate: "8.25" }) { taxRate { id } } }`)).createTaxRate.taxRate.id;
  const many = (type: string, inputs: object[]) => createMany(gql, type, inputs);
  const customers = await many('Customer', Array.from({ length: n + 1 }, (_, i) => ({ organization: `Dispatch ${i}` })));
  const sites = await many('Site', customers.map((id, i) => ({ siteableId: id, siteableType: 'CUSTOMER', siteName: `Site ${i}`, street: `${i} Main St`, city: 'Springfield', state: 'IL' })));
  const contacts = await many('Contact', customers.map((id, i) => ({ linkableId: id, linkableType: 'CUSTOMER', firstName: `Person ${i}`, mobile: `+1 555 ${i}` })));
  const jobIds = await many(
    'Job',
    customers.map((id, i) => {
      // The last job starts exactly at the end of the window: outside it.
      const start = i === n ? WEEK_START + 7 * 86_400_000 : WEEK_START + Math.floor((i * 7 * 86_400_000) / n);
      return {
        customerId: id,
        siteId: sites[i],
        contactId: contacts[i],
        scheduledStart: new Date(start).toISOString(),
        scheduledEnd: new Date(start + 3_600_000).toISOString(),
        assignments: [{ userId: tenant.userId }, { userId: tech.id }],
        lineitems: [
          { itemId: item, quantity: '2', taxRateId: taxRate },
          { description: 'Labour', quantity: '1.5', unitPrice: '80' },
        ],
      };
    }),
  );
  return { tenant, gql, jobIds };
}

const BOARD = `{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00:00.000Z") { hasMore jobs { id scheduledStart customerId siteId contactId
  customer { id organization } site { id siteName } contact { id firstName phoneNumbers { nodes { number } } }
  assignees { nodes { id name role } } lineitems { nodes { id quantity lineTotal item { id name } taxRate { id rate } } } } } }`;

describe('dispatch board without N+1', () => {
  let small: Awaited<ReturnType<typeof seed>>;
  let large: Awaited<ReturnType<typeof seed>>;
  beforeAll(async () => {
    small = await seed(10);
    large = await seed(100);
  }, 180_000);

  it('serves 100 jobs with customer, site, contact, assignees and line items in a small constant number of SQL statements, the same as for 10 jobs', async () => {
    const ten = await graphqlStatements(statements, small.gql, BOARD);
    const hundred = await graphqlStatements(statements, large.gql, BOARD);
    expect(ten.data.dispatchBoard.jobs).toHaveLength(10);
    expect(hundred.data.dispatchBoard.jobs).toHaveLength(100);
    expect(hundred.data.dispatchBoard.hasMore).toBe(false);
    for (const job of hundred.data.dispatchBoard.jobs) {
      expect(job.customer.id).toBe(job.customerId);
      expect(job.site.id).toBe(job.siteId);
      expect(job.contact.id).toBe(job.contactId);
      expect(job.contact.phoneNumbers.nodes).toHaveLength(1);
      expect(job.assignees.nodes.map((a: { role: string }) => a.role)).toEqual(['ADMIN', 'TECHNICIAN']);
      expect(job.lineitems.nodes).toHaveLength(2);
      expect(job.lineitems.nodes[0].item.name).toBe('Filter');
      expect(job.lineitems.nodes[0].taxRate).not.toBeNull();
      expect(job.lineitems.nodes[1].item).toBeNull();
    }
    // jobs, lineitems, assignments, customers, sites, contacts, phone numbers, users, items, tax rates.
    expect(hundred.count, hundred.sql.join('\n')).toBeLessThanOrEqual(10);
    expect(hundred.count).toBe(ten.count);
  });

  it('lists the window [from, to) by scheduled start, and says hasMore when limit cuts it', async () => {
    const all = ok(await small.gql(`{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00:00.000Z") { jobs { id scheduledStart } hasMore } }`)).dispatchBoard;
    expect(all.jobs.map((j: { id: string }) => j.id)).toEqual(small.jobIds.slice(0, 10));
    const starts = all.jobs.map((j: { scheduledStart: string }) => j.scheduledStart);
    expect([...starts].sort()).toEqual(starts);
    const cut = ok(await small.gql(`{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00:00.000Z", limit: 3) { jobs { id } hasMore } }`)).dispatchBoard;
    expect(cut).toEqual({ jobs: small.jobIds.slice(0, 3).map((id) => ({ id })), hasMore: true });
    const other = ok(await large.gql(`{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00:00.000Z") { jobs { id } } }`)).dispatchBoard;
    expect(other.jobs.some((j: { id: string }) => small.jobIds.includes(j.id))).toBe(false);
  });

  it('refuses an empty window and a limit above the maximum', async () => {
    const empty = await small.gql(`{ dispatchBoard(from: "2031-03-10T00:00:00.000Z", to: "2031-03-03T00:00:00.000Z") { hasMore } }`);
    expect(codeOf(empty)).toBe('validation.failed');
    const tooMany = await small.gql(`{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00:00.000Z", limit: 5000) { hasMore } }`);
    expect(codeOf(tooMany)).toBe('pagination.limit_too_large');
    expect(tooMany.body.errors?.[0]?.extensions?.maxLimit).toBe(1000);
  });

  it('refuses a window bound that is not an ISO 8601 timestamp and a limit below 1 with validation.failed naming the argument', async () => {
    const badFrom = await small.gql(`{ dispatchBoard(from: "next monday", to: "2031-03-10T00:00:00.000Z") { hasMore } }`);
    expect(codeOf(badFrom)).toBe('validation.failed');
    expect(Object.keys(badFrom.body.errors![0].extensions!.errors)).toEqual(['from']);
    const noOffset = await small.gql(`{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00") { hasMore } }`);
    expect(Object.keys(noOffset.body.errors![0].extensions!.errors)).toEqual(['to']);
    const zero = await small.gql(`{ dispatchBoard(from: "2031-03-03T00:00:00.000Z", to: "2031-03-10T00:00:00.000Z", limit: 0) { hasMore } }`);
    expect(codeOf(zero)).toBe('validation.failed');
    expect(Object.keys(zero.body.errors![0].extensions!.errors)).toEqual(['limit']);
  });
});
