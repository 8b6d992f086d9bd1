import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp, type Tenant } from '../helpers/app.ts';
import type { Client } from '../helpers/http.ts';
import { StatementLog } from '../helpers/statements.ts';

// Child collections (a contact's phone_numbers, a job's lineitems and assignments) are served inside their
// record, read by id or listed: in the order written, the same entries either way, and read in one statement
// per collection whatever the number of records (the statements are seen through the app's onQuery).

const statements = new StatementLog();
const t = useTestApp({ rateLimits: highRateLimits, onQuery: statements.onQuery });
let tenant: Tenant;
let api: Client;
beforeAll(async () => {
  ({ tenant, api } = await t.newTenant());
});

const childTables = ['phone_numbers', 'lineitems', 'job_assignments', 'job_assets'] as const;

/** The statements that read `table` while answering one GET, and its answer. */
async function reads(path: string) {
  const { res, sql } = await statements.during(() => api.get(path));
  expect(res.status, res.text).toBe(200);
  const of = (table: string) => sql.filter((statement) => new RegExp(`\\bfrom\\s+("public"\\.)?"?${table}"?\\b`, 'i').test(statement));
  return { res, of };
}

async function created(path: string, key: string, fields: Record<string, unknown>) {
  const res = await api.post(path, { [key]: fields });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id as string, record: res.body.data, etag: res.headers.get('etag')! };
}

const listed = (res: { body: { data: { id: string }[] } }, id: string) => res.body.data.find((record) => record.id === id);

describe('records with child collections', () => {
  it('serve their children in the order written, the same by id and in a list, and after a snapshot update', async () => {
    const contact = await created('/contacts', 'contact', {
      first_name: 'Ada',
      phone_numbers: [
        { number: '+1 555 0101', kind: 'office', extension: '7' },
        { number: '+1 555 0102', kind: 'mobile' },
        { number: '+1 555 0103', kind: 'home' },
      ],
    });
    const [first, second, third] = contact.record.phone_numbers as { id: string }[];
    expect(contact.record.phone_numbers).toEqual([
      { id: first.id, number: '+1 555 0101', kind: 'office', extension: '7' },
      { id: second.id, number: '+1 555 0102', kind: 'mobile', extension: null },
      { id: third.id, number: '+1 555 0103', kind: 'home', extension: null },
    ]);
    const byId = await api.get(`/contacts/${contact.id}`);
    expect(byId.body.data).toEqual(contact.record);
    expect(listed(await api.get('/contacts?limit=100'), contact.id)).toEqual(contact.record);

    // A snapshot keeps the third (moved first), drops the others and adds one.
    const updated = await api.patch(
      `/contacts/${contact.id}`,
      { contact: { phone_numbers: [{ id: third.id }, { number: '+1 555 0104', kind: 'other' }] } },
      { headers: { 'if-match': contact.etag } },
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data.phone_numbers).toEqual([
      { id: third.id, number: '+1 555 0103', kind: 'home', extension: null },
      { id: expect.any(String), number: '+1 555 0104', kind: 'other', extension: null },
    ]);
    expect((await api.get(`/contacts/${contact.id}`)).body.data).toEqual(updated.body.data);
    expect(listed(await api.get('/contacts?limit=100'), contact.id)).toEqual(updated.body.data);
  });

  it('serve decimal and integer children alike by id and in a list (a job with line items and assignments)', async () => {
    const customer = await created('/customers', 'customer', { organization: 'Child Reads Ltd' });
    const site = await created('/sites', 'site', { site_name: 'Depot', street: '1 Main St', city: 'Springfield', state: 'IL', siteable_id: customer.id, siteable_type: 'Customer' });
    const job = await created('/jobs', 'job', {
      site_id: site.id,
      lineitems: [
        { description: 'Filter', quantity: '3', unit_price: '12.5' },
        { description: 'Labour', quantity: 1.5, unit_price: '80' },
      ],
      assignments: [{ user_id: tenant.userId }],
    });
    expect(job.record.lineitems.map((line: { description: string }) => line.description)).toEqual(['Filter', 'Labour']);
    expect(job.record.lineitems[0]).toMatchObject({ quantity: '3.0000', unit_price: '12.5000', line_total: '37.50' });
    expect(job.record.assignments).toEqual([{ id: expect.any(String), user_id: tenant.userId }]);
    expect((await api.get(`/jobs/${job.id}`)).body.data).toEqual(job.record);
    expect(listed(await api.get('/jobs?limit=100'), job.id)).toEqual(job.record);
  });
});

describe('reading child collections', () => {
  it('costs one statement per collection for a record, and for a list page whatever its size', async () => {
    const contacts: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      contacts.push((await created('/contacts', 'contact', { first_name: `Reader ${i}`, phone_numbers: [{ number: `+1 555 02${i}0` }, { number: `+1 555 02${i}1` }] })).id);
    }
    const one = await reads(`/contacts/${contacts[0]}`);
    expect(one.res.body.data.phone_numbers).toHaveLength(2);
    expect(one.of('phone_numbers')).toHaveLength(1);
    for (const limit of [2, 6]) {
      const page = await reads(`/contacts?limit=${limit}`);
      expect(page.res.body.data).toHaveLength(limit);
      for (const contact of page.res.body.data) expect(contact.phone_numbers.length).toBeGreaterThan(0);
      expect(page.of('phone_numbers')).toHaveLength(1);
    }
    const jobs = await reads('/jobs?limit=100');
    expect(jobs.of('lineitems')).toHaveLength(1);
    expect(jobs.of('job_assignments')).toHaveLength(1);
    // A job's asset_ids are a child collection too: one batched statement for the whole page.
    expect(jobs.of('job_assets')).toHaveLength(1);
  });

  it('reads no child table for a resource without child collections', async () => {
    await created('/customers', 'customer', { organization: 'No children' });
    const page = await reads('/customers?limit=10');
    expect(page.res.body.data.length).toBeGreaterThan(0);
    for (const table of childTables) expect(page.of(table)).toEqual([]);
  });
});
