import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { ok } from '../helpers/graphql.ts';
import { graphqlStatements, StatementLog, verifyEveryRequest } from '../helpers/statements.ts';

// The collections below a record are connections too: first/after page through a customer's jobs (a relation)
// and a job's lines (a child collection), with cursors bound to the parent and the field, and a page reads only
// the records up to its end (one more to know whether another page follows).

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery, env: verifyEveryRequest });
const { api, gql } = useTenant(t);

let customerId: string;
let otherCustomerId: string;
let jobIds: string[] = [];
let lineJobId: string;

beforeAll(async () => {
  const { customer, site } = await createPlace(api);
  customerId = customer.id;
  jobIds = [];
  for (let i = 0; i < 5; i += 1) jobIds.push((await createJob(api, { site_id: site.id, title: `Visit ${i}` })).id);
  lineJobId = (await createJob(api, { site_id: site.id, lineitems: [1, 2, 3].map((n) => ({ description: `Line ${n}`, quantity: '1', unit_price: '10' })) })).id;
  otherCustomerId = (await createPlace(api)).customer.id;
});

interface JobsPage {
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

const JOBS = `query($id: ID!, $first: Int, $after: String) { customer(id: $id) { jobs(first: $first, after: $after) {
  edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

describe('collections below a record are connections', () => {
  it("counts a job's lines in totalCount on every page, and a list's connections have no totalCount (it would be a COUNT)", async () => {
    const LINES = `query($id: ID!, $after: String) { job(id: $id) { lineitems(first: 2, after: $after) { totalCount nodes { description } pageInfo { endCursor } } } }`;
    const first = ok(await gql(LINES, { id: lineJobId })).job.lineitems;
    expect(first.totalCount).toBe(3);
    expect(first.nodes).toHaveLength(2);
    const second = ok(await gql(LINES, { id: lineJobId, after: first.pageInfo.endCursor })).job.lineitems;
    expect(second).toMatchObject({ totalCount: 3, nodes: [{ description: 'Line 3' }] });
    const listed = await gql(`{ jobs(first: 1) { totalCount } }`);
    expect(listed.body.errors?.[0]?.message).toMatch(/Cannot query field "totalCount" on type "JobConnection"/);
  });

  it("pages through a customer's jobs oldest first with first/after, ending on an empty page", async () => {
    const seen: string[] = [];
    let after: string | null = null;
    const pages: { hasNextPage: boolean; hasPreviousPage: boolean }[] = [];
    for (let page = 0; page < 5; page += 1) {
      const jobs: JobsPage = ok(await gql(JOBS, { id: customerId, first: 2, after })).customer.jobs;
      seen.push(...jobs.edges.map((edge) => edge.node.id));
      pages.push({ hasNextPage: jobs.pageInfo.hasNextPage, hasPreviousPage: jobs.pageInfo.hasPreviousPage });
      expect(jobs.pageInfo.endCursor).toBe(jobs.edges.at(-1)!.cursor);
      after = jobs.pageInfo.endCursor;
      if (!jobs.pageInfo.hasNextPage) break;
    }
    expect(seen).toEqual([...jobIds, lineJobId]);
    expect(pages).toEqual([
      { hasNextPage: true, hasPreviousPage: false },
      { hasNextPage: true, hasPreviousPage: true },
      { hasNextPage: false, hasPreviousPage: true },
    ]);
    const beyond = ok(await gql(JOBS, { id: customerId, first: 2, after })).customer.jobs;
    expect(beyond).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null } });
  });

  it('reads only the records up to the end of the page, in one statement for every parent', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, `{ customers(first: 10) { nodes { jobs(first: 2) { nodes { id } } } } }`);
    const counts = data.customers.nodes.map((node: { jobs: { nodes: unknown[] } }) => node.jobs.nodes.length).sort();
    expect(counts).toEqual([0, 2]);
    const reads = sql.filter((statement) => /\bFROM jobs t\b/.test(statement));
    expect(reads, sql.join('\n')).toHaveLength(1);
    expect(reads[0]).toMatch(/sibling_rank <= \$3/);
  });

  it("pages through a job's lines, and refuses a cursor of another parent or another field", async () => {
    const LINES = `query($id: ID!, $after: String) { job(id: $id) { lineitems(first: 2, after: $after) { nodes { description } pageInfo { hasNextPage endCursor } } } }`;
    const first = ok(await gql(LINES, { id: lineJobId })).job.lineitems;
    expect(first).toMatchObject({ nodes: [{ description: 'Line 1' }, { description: 'Line 2' }], pageInfo: { hasNextPage: true } });
    const second = ok(await gql(LINES, { id: lineJobId, after: first.pageInfo.endCursor })).job.lineitems;
    expect(second).toMatchObject({ nodes: [{ description: 'Line 3' }], pageInfo: { hasNextPage: false } });

    const jobsCursor = ok(await gql(JOBS, { id: customerId, first: 1 })).customer.jobs.pageInfo.endCursor;
    const otherParent = await gql(JOBS, { id: otherCustomerId, first: 1, after: jobsCursor });
    expect(otherParent.body.errors![0].extensions).toMatchObject({ code: 'cursor.invalid_filters' });
    const otherField = await gql(LINES, { id: lineJobId, after: jobsCursor });
    expect(otherField.body.errors![0].extensions).toMatchObject({ code: 'cursor.invalid' });
  });
});
