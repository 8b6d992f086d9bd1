import { Client, fetchExchange, gql as urqlGql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { relayPagination } from '@urql/exchange-graphcache/extras';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';

// Connections work with a real client's pagination helpers: urql's normalized cache with relayPagination()
// merges the pages a list is read in, by cursor, as Relay and Apollo's relayStylePagination do.

const t = useTestApp();
const { tenant, api } = useTenant(t);

const PAGE = urqlGql`
  query Customers($first: Int, $after: String, $filter: CustomerFilter, $sort: CustomerSort) {
    customers(first: $first, after: $after, filter: $filter, sort: $sort) {
      edges { cursor node { id organization } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`;

interface CustomerPage {
  edges: { cursor: string; node: { id: string; organization: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

function client(): Client {
  return new Client({
    url: `${t.url}/graphql`,
    exchanges: [cacheExchange({ resolvers: { Query: { customers: relayPagination() } } }), fetchExchange],
    fetchOptions: () => ({ headers: { authorization: `Bearer ${tenant.token}` } }),
    requestPolicy: 'cache-first',
  });
}

const names = ['Kilo Air', 'Lima Heat', 'Mike Pipes', 'November Power', 'Oscar Cooling', 'Romeo Boilers', 'Foxtrot Drains'];

beforeAll(async () => {
  for (const organization of names) await createCustomer(api, { organization });
});

describe('paging with a client library (urql graphcache, relayPagination)', () => {
  it('reads a list page by page with first/after and the cache merges the pages in order, ending with an empty page', async () => {
    const urql = client();
    const variables = { first: 2, filter: { q: 'o' }, sort: { field: 'ORGANIZATION' } };
    const seen: string[][] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const result = await urql.query<{ customers: CustomerPage }>(PAGE, { ...variables, after }).toPromise();
      expect(result.error).toBeUndefined();
      const connection: CustomerPage = result.data!.customers;
      seen.push(connection.edges.map((edge) => edge.node.organization));
      // The merged view starts at the beginning of the list.
      expect(connection.pageInfo.hasPreviousPage).toBe(false);
      if (!connection.pageInfo.hasNextPage) break;
      expect(connection.pageInfo.endCursor).toEqual(connection.edges.at(-1)!.cursor);
      after = connection.pageInfo.endCursor;
    }
    // Each result of the merged cache holds every page read so far, in order.
    const matching = names.filter((name) => name.toLowerCase().includes('o')).sort();
    expect(seen.at(-1)).toEqual(matching);
    expect(matching.length).toBeGreaterThan(2);
    expect(seen.map((page) => page.length)).toEqual([...Array.from({ length: Math.ceil(matching.length / 2) - 1 }, (_, i) => 2 * (i + 1)), matching.length]);

    // The last page's endCursor is set: reading after it answers an empty page with nothing after it.
    const last = await urql.query<{ customers: CustomerPage }>(PAGE, { ...variables, first: 5, after: null }, { requestPolicy: 'network-only' }).toPromise();
    const end = last.data!.customers.pageInfo.endCursor;
    expect(end).toEqual(expect.any(String));
    const fresh = new Client({ url: `${t.url}/graphql`, exchanges: [fetchExchange], fetchOptions: { headers: { authorization: `Bearer ${tenant.token}` } } });
    const beyond = await fresh.query<{ customers: CustomerPage }>(PAGE, { ...variables, first: 5, after: end }).toPromise();
    expect(beyond.data!.customers).toMatchObject({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null } });
  });
});
