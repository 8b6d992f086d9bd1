import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { graphqlStatements, StatementLog, verifyEveryRequest } from '../helpers/statements.ts';

// A read serves what the query selects and reads nothing else: a record's child collections (a job's lines and
// assignments, a contact's phone numbers) are read only when selected, and only the columns of the fields
// selected (and those a selected relation follows) are read. The SQL statements a request issues are recorded
// (startTestApp onQuery).

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery, env: verifyEveryRequest });
const { tenant, api, gql } = useTenant(t);

const childTables = /\b(lineitems|job_assignments|job_assets|phone_numbers)\b/;
const childReads = (sql: string[]) => sql.filter((statement) => childTables.test(statement));

let customerId: string;
beforeAll(async () => {
  const { customer, site } = await createPlace(api);
  customerId = customer.id;
  for (let i = 0; i < 3; i += 1) {
    await createJob(api, {
      site_id: site.id,
      title: `Visit ${i}`,
      assignments: [{ user_id: tenant.userId }],
      lineitems: [{ description: `Labour ${i}`, quantity: '1', unit_price: '80.00' }],
    });
  }
  await api.post('/contacts', { contact: { first_name: 'Pat', mobile: '+1 555 0100', linkable_id: customer.id, linkable_type: 'Customer' } });
});

describe('child collections are read only when selected', () => {
  it('customers { nodes { id } } reads the customers alone: no child table and no related table', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ customers(first: 10) { nodes { id organization } } }');
    expect(data.customers.nodes).toHaveLength(1);
    const related = /\b(FROM|JOIN) ("public"\.)?"?(sites|contacts|contact_linkages|jobs|estimates|lineitems|job_assignments|job_assets|phone_numbers)\b/;
    expect(sql.filter((statement) => related.test(statement)), sql.join('\n')).toEqual([]);
  });

  it('jobs { nodes { id title } } reads no line items and no assignments', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { id title } } }');
    expect(data.jobs.nodes).toHaveLength(3);
    expect(childReads(sql), sql.join('\n')).toEqual([]);
  });

  it('jobs { nodes { lineitems { nodes { description } } } } reads the line items and not the assignments', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { id lineitems { nodes { description } } } } }');
    expect(data.jobs.nodes.map((job: { lineitems: { nodes: unknown[] } }) => job.lineitems.nodes.length)).toEqual([1, 1, 1]);
    const reads = childReads(sql);
    expect(reads, sql.join('\n')).toHaveLength(1);
    expect(reads[0]).toMatch(/\blineitems\b/);
  });

  it('a fragment selecting assignments counts as selecting them', async () => {
    const query = '{ jobs(first: 10) { nodes { ...Crew } } } fragment Crew on Job { id assignments { nodes { userId } } }';
    const { data, sql } = await graphqlStatements(statements, gql, query);
    expect(data.jobs.nodes.map((job: { assignments: { nodes: unknown[] } }) => job.assignments.nodes.length)).toEqual([1, 1, 1]);
    const reads = childReads(sql);
    expect(reads, sql.join('\n')).toHaveLength(1);
    expect(reads[0]).toMatch(/\bjob_assignments\b/);
  });

  it('jobs { nodes { assetIds } } reads the job assets in one statement and no other child table', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { id assetIds } } }');
    expect(data.jobs.nodes.map((job: { assetIds: string[] }) => job.assetIds)).toEqual([[], [], []]);
    const reads = childReads(sql);
    expect(reads, sql.join('\n')).toHaveLength(1);
    expect(reads[0]).toMatch(/\bjob_assets\b/);
  });

  it('Job.assignees, which resolves from the assignments, reads them when selected without them', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { id assignees { nodes { id } } } } }');
    expect(data.jobs.nodes.map((job: { assignees: { nodes: { id: number }[] } }) => job.assignees.nodes.map((user) => user.id))).toEqual([[tenant.userId], [tenant.userId], [tenant.userId]]);
    expect(childReads(sql).filter((statement) => /\bjob_assignments\b/.test(statement)), sql.join('\n')).toHaveLength(1);
  });

  it('customer(id) { jobs { nodes { id } } contacts { nodes { id } } } reads no child table; job(id) { lineitems } reads its lines', async () => {
    const relations = await graphqlStatements(statements, gql, `{ customer(id: "${customerId}") { jobs { nodes { id } } contacts { nodes { id firstName } } } }`);
    expect(relations.data.customer.jobs.nodes).toHaveLength(3);
    expect(relations.data.customer.contacts.nodes).toHaveLength(1);
    expect(childReads(relations.sql), relations.sql.join('\n')).toEqual([]);
    const jobId = relations.data.customer.jobs.nodes[0].id;
    const single = await graphqlStatements(statements, gql, `{ job(id: "${jobId}") { id lineitems { nodes { description } } } }`);
    expect(single.data.job.lineitems.nodes).toHaveLength(1);
    expect(childReads(single.sql)).toHaveLength(1);
    const phones = await graphqlStatements(statements, gql, `{ customer(id: "${customerId}") { contacts { nodes { phoneNumbers { nodes { number } } } } } }`);
    expect(phones.data.customer.contacts.nodes[0].phoneNumbers.nodes).toHaveLength(1);
    expect(childReads(phones.sql)).toHaveLength(1);
  });
});

describe('only the columns of the selected fields are read', () => {
  const columnsRead = (sql: string[], table: string) => {
    const statement = sql.find((text) => new RegExp(`\\bFROM ${table}\\b`).test(text));
    expect(statement, sql.join('\n')).toBeDefined();
    return statement!.slice(0, statement!.indexOf(' FROM '));
  };

  it('jobs { nodes { id title } } reads the jobs\' id, title and ETag columns, not their other columns', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { id title etag } } }');
    expect(data.jobs.nodes.map((job: { title: string }) => job.title).sort()).toEqual(['Visit 0', 'Visit 1', 'Visit 2']);
    const columns = columnsRead(sql, 'jobs');
    expect(columns).toMatch(/\btitle\b/);
    for (const unread of ['scope_of_work', 'work_description', 'customer_notes', 'custom_fields', 'labels', 'site_id']) expect(columns).not.toMatch(new RegExp(`\\b${unread}\\b`));
  });

  it('a relation followed without its id field selected reads that id and resolves', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { title customer { organization } } } }');
    expect(data.jobs.nodes).toHaveLength(3);
    for (const job of data.jobs.nodes) expect(job.customer.organization).toEqual(expect.any(String));
    expect(columnsRead(sql, 'jobs')).toMatch(/\bcustomer_id\b/);
    expect(columnsRead(sql, 'customers')).not.toMatch(/\b(website|main_phone|customer_notes)\b/);
  });

  it('lineitems { nodes { description } } reads the lines\' description, not their amounts', async () => {
    const { data, sql } = await graphqlStatements(statements, gql, '{ jobs(first: 10) { nodes { lineitems { nodes { description } } } } }');
    expect(data.jobs.nodes.flatMap((job: { lineitems: { nodes: { description: string }[] } }) => job.lineitems.nodes.map((line) => line.description)).sort()).toEqual([
      'Labour 0',
      'Labour 1',
      'Labour 2',
    ]);
    const columns = columnsRead(sql, 'lineitems');
    expect(columns).toMatch(/\bdescription\b/);
    expect(columns).not.toMatch(/\b(unit_price|tax_amount|line_total)\b/);
  });

  it('a record read through a narrow selection serves the same values and ETag as the same record read whole', async () => {
    const whole = await gql(`{ job(id: "${(await api.get('/jobs')).body.data[0].id}") { id etag title amount scheduledStart customer { id etag organization status } lineitems { nodes { id description quantity lineTotal } } } }`);
    const job = whole.body.data.job;
    const narrow = await gql(`{ jobs(first: 10) { nodes { id etag title amount scheduledStart customer { id etag organization status } lineitems { nodes { id description quantity lineTotal } } } } }`);
    expect(narrow.body.data.jobs.nodes.find((node: { id: string }) => node.id === job.id)).toEqual(job);
    const rest = (await api.get(`/jobs/${job.id}`)).body.data;
    expect([job.title, job.amount, job.lineitems.nodes[0].lineTotal]).toEqual([rest.title, rest.amount, rest.lineitems[0].line_total]);
  });

  it('a page of a child collection that selects only its pageInfo still knows whether more entries follow', async () => {
    const { api: other, gql: otherGql } = await t.newTenant();
    const { site } = await createPlace(other);
    await createJob(other, { site_id: site.id, lineitems: [{ description: 'One', quantity: '1', unit_price: '1.00' }, { description: 'Two', quantity: '1', unit_price: '1.00' }] });
    const res = await otherGql('{ jobs(first: 1) { nodes { lineitems(first: 1) { pageInfo { hasNextPage endCursor } } } } }');
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.jobs.nodes[0].lineitems.pageInfo).toEqual({ hasNextPage: true, endCursor: expect.any(String) });
  });
});
