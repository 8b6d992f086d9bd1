import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { graphqlTenant, ok, type Gql, type GraphqlResponse } from '../helpers/graphql.ts';

// Operations are compiled by graphql-jit from their second execution on (src/graphql/transport/jit.ts); the first runs on
// graphql-js. So the same document sent three times is answered by graphql-js, then twice by its compiled
// query: every answer must be the same, byte for byte (request ids aside), data, errors, status and cost alike.

const t = useTestApp({ rateLimits: { ...highRateLimits, graphql: 10_000_000 } });

/** The answer as compared: status, body with request ids blanked, and the two cost figures. */
function comparable(res: GraphqlResponse): string {
  const body = JSON.stringify(res.body).replace(/"requestId":"[^"]*"/g, '"requestId":"-"');
  return JSON.stringify([res.status, body, res.cost.requestedQueryCost, res.cost.actualQueryCost]);
}

async function sameThrice(gql: Gql, query: string, variables?: Record<string, unknown>, operationName?: string): Promise<GraphqlResponse> {
  const answers: GraphqlResponse[] = [];
  for (let i = 0; i < 3; i++) answers.push(await gql(query, variables, { operationName }));
  expect(comparable(answers[1])).toBe(comparable(answers[0]));
  expect(comparable(answers[2])).toBe(comparable(answers[0]));
  return answers[0];
}

const JOB = `id number status title scheduledStart scheduledEnd amount customerId labels customFields createdAt
  customer { id organization } site { id siteName street city } contact { id firstName phoneNumbers { nodes { number } } }
  assignees { nodes { id name role } } lineitems { nodes { id description quantity unitPrice discount discountAmount taxAmount lineTotal taxable item { id name } taxRate { id rate } } }`;

describe('compiled operations answer as graphql-js does', () => {
  let gql: Gql;
  let readOnlyJobs: Gql;
  let jobId: string;
  beforeAll(async () => {
    const { tenant, make } = await graphqlTenant(t);
    gql = t.graphql(tenant.token);
    const customer = await make.customer('Compiled Ltd');
    const site = await make.site(customer, 'CUSTOMER', 'Compiled depot');
    const item = ok(await gql(`mutation { createItem(input: { name: "Filter", itemType: MATERIAL, unitPrice: "12.5" }) { item { id } } }`)).createItem.item.id;
    const taxRate = ok(await gql(`mutation { createTaxRate(input: { name: "State", rate: "8.25" }) { taxRate { id } } }`)).createTaxRate.taxRate.id;
    for (let i = 0; i < 3; i++) {
      const created = ok(
        await gql(
          `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } } }`,
          {
            input: {
              siteId: site.id,
              title: `Visit ${i}`,
              scheduledStart: `2031-03-0${3 + i}T09:00:00.000Z`,
              scheduledEnd: `2031-03-0${3 + i}T11:00:00.000Z`,
              assignments: [{ userId: tenant.userId }],
              lineitems: [
                { itemId: item, quantity: '2', taxRateId: taxRate },
                { description: 'Labour', quantity: '1.5', unitPrice: '80', discount: '12.5' },
              ],
            },
          },
        ),
      );
      jobId = created.createJob.job.id;
    }
    readOnlyJobs = t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] })).token);
  }, 60_000);

  it('a board with relations, child collections and decimals', async () => {
    const res = await sameThrice(gql, `query($from: DateTime!, $to: DateTime!) { dispatchBoard(from: $from, to: $to, limit: 10) { hasMore jobs { ${JOB} } } }`, {
      from: '2031-03-01T00:00:00.000Z',
      to: '2031-03-10T00:00:00.000Z',
    });
    expect(res.body.data.dispatchBoard.jobs).toHaveLength(3);
    expect(res.body.errors).toBeUndefined();
  });

  it('fields refused for a missing scope (one error per path pattern), nulls and the rest of the result', async () => {
    const res = await sameThrice(readOnlyJobs, `{ jobs(first: 10) { nodes { ${JOB} } pageInfo { hasNextPage } } }`);
    expect(res.body.errors?.length).toBeGreaterThan(0);
    expect(res.body.data.jobs.nodes).toHaveLength(3);
  });

  it('a record that is not found, beside one that is', async () => {
    const res = await sameThrice(gql, `query($id: ID!) { a: job(id: $id) { id title } b: job(id: "00000000-0000-7000-8000-000000000000") { id } }`, { id: jobId });
    expect(res.body.data).toEqual({ a: { id: jobId, title: 'Visit 2' }, b: null });
  });

  it('abstract types: the Node interface and the Linkable union, through fragments', async () => {
    const res = await sameThrice(
      gql,
      `query($id: ID!) { node(id: $id) { __typename id ... on Job { title contact { linkages { nodes { linkable { __typename ... on Customer { organization } ... on Site { siteName } } } } } } } }`,
      { id: jobId },
    );
    expect(res.body.data.node).toMatchObject({ __typename: 'Job', id: jobId, title: 'Visit 2' });
  });

  it('variables that do not coerce: a request error with 400, each time', async () => {
    const res = await sameThrice(gql, 'query Page($n: Int) { customers(first: $n) { nodes { id } } }', { n: 'many' });
    expect(res.status).toBe(400);
  });

  it('the operation named by operationName, in a document of two', async () => {
    const document = 'query One { jobs(first: 1) { nodes { id } } } query Two { customers(first: 1) { nodes { organization } } }';
    const one = await sameThrice(gql, document, undefined, 'One');
    const two = await sameThrice(gql, document, undefined, 'Two');
    expect(Object.keys(one.body.data)).toEqual(['jobs']);
    expect(two.body.data).toEqual({ customers: { nodes: [{ organization: 'Compiled Ltd' }] } });
  });

  it('a mutation refused by validation changes nothing and answers the same, each time', async () => {
    await sameThrice(gql, `mutation { createJob(input: { title: "No site", lineitems: [{ quantity: "-1" }] }) { job { id } } }`);
    const jobs = ok(await gql('{ jobs(first: 100) { nodes { id } } }')).jobs.nodes;
    expect(jobs).toHaveLength(3);
  });
});
