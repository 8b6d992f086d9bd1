import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { graphqlStatements, StatementLog } from '../helpers/statements.ts';

// A record's child collections (a job's lines and assignments, a contact's phone numbers) are read only when the
// query selects them: the SQL statements a request issues are recorded (startTestApp onQuery).

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery });
const { tenant, api, gql } = useTenant(t);

const childTables = /\b(lineitems|job_assignments|phone_numbers)\b/;
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
    const related = /\b(FROM|JOIN) ("public"\.)?"?(sites|contacts|contact_linkages|jobs|estimates|lineitems|job_assignments|phone_numbers)\b/;
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
