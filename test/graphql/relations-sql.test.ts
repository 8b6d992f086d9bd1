import { beforeAll, describe, expect, it } from 'vitest';
import { type Tenant, useTestApp } from '../helpers/app.ts';
import { createMany, type Gql } from '../helpers/graphql.ts';
import { graphqlStatements, StatementLog, verifyEveryRequest } from '../helpers/statements.ts';

// Relations resolve without N+1: the SQL statements a request issues are recorded (startTestApp onQuery) and
// their number must not grow with the number of customers on the page.

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery, env: verifyEveryRequest });

/** A tenant with `n` customers, each with 2 sites and 2 contacts (with a phone number) linked to it. */
async function seed(n: number): Promise<{ tenant: Tenant; gql: Gql }> {
  const { tenant, gql } = await t.newTenant();
  const many = (type: string, inputs: object[]) => createMany(gql, type, inputs);
  const customers = await many('Customer', Array.from({ length: n }, (_, i) => ({ organization: `Customer ${i}` })));
  await many(
    'Site',
    customers.flatMap((id, i) => [1, 2].map((s) => ({ siteableId: id, siteableType: 'CUSTOMER', siteName: `Site ${i}.${s}`, street: `${s} Main St`, city: 'Springfield', state: 'IL' }))),
  );
  await many(
    'Contact',
    customers.flatMap((id, i) => [1, 2].map((c) => ({ linkableId: id, linkableType: 'CUSTOMER', firstName: `Person ${i}.${c}`, mobile: `+1 555 ${i}${c}` }))),
  );
  return { tenant, gql };
}

const PAGE = `{ customers(first: 50) { nodes { id organization
  sites { nodes { id siteName position siteableId } }
  contacts { nodes { id firstName linkableId phoneNumbers { nodes { number kind } } } } } } }`;

const DEEP = `{ customers(first: 50) { nodes { id
  primaryContact { id }
  sites { nodes { id customer { id } contacts { nodes { id } } } }
  contactLinkages { nodes { primary contact { id linkages { nodes { linkableType linkable { ... on Customer { id organization } } } } } } } } } }`;

describe('relations without N+1', () => {
  let small: Gql;
  let large: Gql;
  beforeAll(async () => {
    small = (await seed(5)).gql;
    large = (await seed(50)).gql;
  }, 120_000);

  it('a page of 50 customers with their sites and contacts costs a small constant number of SQL statements', async () => {
    const five = await graphqlStatements(statements, small, PAGE);
    const fifty = await graphqlStatements(statements, large, PAGE);
    expect(five.data.customers.nodes).toHaveLength(5);
    expect(fifty.data.customers.nodes).toHaveLength(50);
    for (const customer of fifty.data.customers.nodes) {
      expect(customer.sites.nodes).toHaveLength(2);
      expect(customer.sites.nodes.every((site: { siteableId: string }) => site.siteableId === customer.id)).toBe(true);
      expect(customer.contacts.nodes).toHaveLength(2);
      expect(customer.contacts.nodes.every((contact: { linkableId: string }) => contact.linkableId === customer.id)).toBe(true);
      expect(customer.contacts.nodes.map((contact: { phoneNumbers: { nodes: unknown[] } }) => contact.phoneNumbers.nodes.length)).toEqual([1, 1]);
    }
    // The list, the sites, the linkages, the contacts and their phone numbers: one statement each.
    expect(fifty.count, fifty.sql.join('\n')).toBeLessThanOrEqual(6);
    expect(fifty.count).toBe(five.count);
  });

  it('deeper relation trees cost one statement per level, whatever the page size', async () => {
    const five = await graphqlStatements(statements, small, DEEP);
    const fifty = await graphqlStatements(statements, large, DEEP);
    expect(fifty.data.customers.nodes).toHaveLength(50);
    const first = fifty.data.customers.nodes[0];
    expect(first.sites.nodes).toHaveLength(2);
    expect(first.sites.nodes.every((site: { customer: { id: string } }) => site.customer.id === first.id)).toBe(true);
    expect(first.contactLinkages.nodes[0].contact.linkages.nodes[0].linkable).toEqual({ id: first.id, organization: expect.any(String) });
    expect(fifty.count, fifty.sql.join('\n')).toBeLessThanOrEqual(10);
    expect(fifty.count).toBe(five.count);
  });
});
