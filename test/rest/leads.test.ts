import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, type Tenant, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createContact, linkagesOf } from '../helpers/factories/contacts.ts';
import { createCustomer, uniqueOrganization } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { type Created, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { createSite } from '../helpers/factories/sites.ts';
import type { Client } from '../helpers/http.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Leads over REST: the five endpoints with the number, status, labels and custom_fields conventions, the
// organization-or-name rule, default status New, filters, sorts and q, and POST /leads/{id}/convert (creates the
// customer, moves the lead's sites and contact linkages in one transaction, marks the lead Converted).

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

describe('POST /leads', () => {
  it('creates a lead with every field, status New, and answers 201 with Location, ETag and {data}', async () => {
    const own = await t.newTenant();
    await t.app.domain.admin.addLookup('label', { accountId: own.tenant.accountId, relatedName: 'Lead', name: 'Hot' });
    const budget = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Lead', name: 'Budget', type: 'number' })).id;
    const fields = {
      organization: 'Prospect Ltd',
      first_name: 'Alan',
      last_name: 'Turing',
      email: 'alan@prospect.test',
      phone: '+44 20 7946 0000',
      source: 'Web form',
      description: 'Wants a quote',
      assignee_id: own.tenant.userId,
      number: 'L-100',
      labels: ['Hot'],
      custom_fields: { [budget]: 5000 },
    };
    const res = await own.api.post('/leads', { lead: fields });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toMatchObject({ ...fields, status: 'New', converted_customer_id: null, converted_at: null });
    expect(res.body.data.id).toMatch(uuidV7);
    expect(res.headers.get('location')).toBe(`/api/v2/leads/${res.body.data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await own.api.get(`/leads/${res.body.data.id}`);
    expect(read.body).toEqual({ data: res.body.data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('requires organization or a first or last name (422 naming organization otherwise)', async () => {
    for (const lead of [{}, { email: 'x@example.test', source: 'Fair' }, { organization: '', first_name: ' ', last_name: null }]) {
      expectProblem(await api.post('/leads', { lead }), { status: 422, code: 'validation.failed', errors: { organization: true }, onlyErrors: true });
    }
    for (const lead of [{ organization: 'Only Org' }, { first_name: 'Only' }, { last_name: 'Lastname' }]) {
      const res = await api.post('/leads', { lead });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('offers the default statuses New, Contacted, Qualified, Converted, Lost and starts at New', async () => {
    const statuses = await api.get('/statuses?related_name=Lead');
    expect(statuses.body.data.map((s: { display_name: string }) => s.display_name)).toEqual(['New', 'Contacted', 'Qualified', 'Converted', 'Lost']);
    expect((await createLead(api)).record.status).toBe('New');
  });

  it('refuses status on create, unknown fields, a bad email and wrongly typed values with 422 naming each', async () => {
    expectProblem(await api.post('/leads', { lead: { organization: unique('Org'), status: 'Qualified', budget: 3, email: 'nope', source: 7 } }), {
      status: 422,
      code: 'validation.failed',
      errors: { status: true, budget: true, email: true, source: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/leads', { lead: 'x' }), { status: 422, code: 'validation.failed', errors: { lead: ['must be an object'] }, onlyErrors: true });
    expectProblem(await api.post('/leads', {}), { status: 422, code: 'validation.failed', errors: { lead: ['is missing'] }, onlyErrors: true });
  });

  it("refuses another tenant's user as assignee_id with 422 naming assignee_id", async () => {
    const other = await t.newTenant();
    expectProblem(await api.post('/leads', { lead: { organization: unique('Org'), assignee_id: other.tenant.userId } }), {
      status: 422,
      code: 'validation.failed',
      errors: { assignee_id: true },
      onlyErrors: true,
    });
  });
});

describe('lead conventions', () => {
  it('numbers leads from 1 per account, independently of customers; keeps a client number; refuses duplicates', async () => {
    const own = await t.newTenant();
    await createCustomer(own.api);
    await createCustomer(own.api);
    expect((await createLead(own.api)).record.number).toBe('1');
    expect((await createLead(own.api)).record.number).toBe('2');
    expect((await createLead(own.api, { number: 'LEAD-7' })).record.number).toBe('LEAD-7');
    expectProblem(await own.api.post('/leads', { lead: { organization: unique('Org'), number: 'LEAD-7' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { number: ['has already been taken'] },
      onlyErrors: true,
    });
    expect((await createLead(own.api)).record.number).toBe('3');
  });

  it('keeps number immutable: a different value answers 422 number.immutable, the same one is a no-op', async () => {
    const lead = await createLead(api);
    expectProblem(await api.patch(`/leads/${lead.id}`, { lead: { number: `${lead.record.number}-x` } }, ifMatch(lead.etag)), { status: 422, code: 'number.immutable' });
    const same = await updateRecord(api, 'leads', 'lead', lead, { number: lead.record.number, source: 'Referral' });
    expect(same.record).toMatchObject({ number: lead.record.number, source: 'Referral' });
  });

  it('moves to any configured Lead status and refuses others with 422 status.transition_invalid', async () => {
    const lead = await createLead(api);
    const qualified = await updateRecord(api, 'leads', 'lead', lead, { status: 'Qualified' });
    expect(qualified.record.status).toBe('Qualified');
    const lost = await updateRecord(api, 'leads', 'lead', qualified, { status: 'Lost' });
    expect(lost.record.status).toBe('Lost');
    for (const status of ['Active', 'qualified', 'Won']) {
      expectProblem(await api.patch(`/leads/${lead.id}`, { lead: { status } }, ifMatch(lost.etag)), { status: 422, code: 'status.transition_invalid', detail: status });
    }
  });

  it('accepts Lead labels only, replaces them on update and clears them with []', async () => {
    const own = await t.newTenant();
    for (const name of ['Hot', 'Cold']) await t.app.domain.admin.addLookup('label', { accountId: own.tenant.accountId, relatedName: 'Lead', name });
    await t.app.domain.admin.addLookup('label', { accountId: own.tenant.accountId, relatedName: 'Customer', name: 'VIP' });
    const lead = await createLead(own.api, { labels: ['Hot'] });
    expect(lead.record.labels).toEqual(['Hot']);
    const replaced = await updateRecord(own.api, 'leads', 'lead', lead, { labels: ['Cold'] });
    expect(replaced.record.labels).toEqual(['Cold']);
    const kept = await updateRecord(own.api, 'leads', 'lead', replaced, { source: 'x' });
    expect(kept.record.labels).toEqual(['Cold']);
    const cleared = await updateRecord(own.api, 'leads', 'lead', kept, { labels: [] });
    expect(cleared.record.labels).toEqual([]);
    for (const label of ['VIP', 'Warm', 'hot']) {
      expectProblem(await own.api.post('/leads', { lead: { organization: unique('Org'), labels: [label] } }), {
        status: 422,
        code: 'validation.failed',
        errors: { labels: true },
        onlyErrors: true,
      });
    }
  });

  it('merges custom_fields by Lead definition ids and refuses a Customer definition', async () => {
    const own = await t.newTenant();
    const a = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Lead', name: 'Budget', type: 'number' })).id;
    const b = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Lead', name: 'Channel', type: 'select', options: ['Ads', 'Referral'] })).id;
    const c = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Customer', name: 'Region', type: 'text' })).id;
    const lead = await createLead(own.api, { custom_fields: { [a]: 10 } });
    const merged = await updateRecord(own.api, 'leads', 'lead', lead, { custom_fields: { [b]: 'Ads' } });
    expect(merged.record.custom_fields).toEqual({ [a]: 10, [b]: 'Ads' });
    const cleared = await updateRecord(own.api, 'leads', 'lead', merged, { custom_fields: { [a]: null } });
    expect(cleared.record.custom_fields).toEqual({ [b]: 'Ads' });
    for (const [key, value] of [[c, 'North'], [b, 'TV'], [a, 'ten']] as const) {
      expectProblem(await own.api.post('/leads', { lead: { organization: unique('Org'), custom_fields: { [key]: value } } }), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${key}`]: true },
        onlyErrors: true,
      });
    }
  });
});

describe('GET, PATCH and DELETE /leads/{id}', () => {
  it('PATCH changes every updatable field, keeps the others and gives a new ETag', async () => {
    const lead = await createLead(api, { first_name: 'A', last_name: 'B', email: 'a@example.test', phone: '1', source: 's', description: 'd' });
    const changes = { organization: 'New Org', first_name: 'C', last_name: 'D', email: 'c@example.test', phone: '2', source: 't', description: 'e', assignee_id: tenant.userId };
    const updated = await updateRecord(api, 'leads', 'lead', lead, changes);
    expect(updated.record).toMatchObject({ ...changes, number: lead.record.number, status: 'New' });
    expect(updated.etag).not.toBe(lead.etag);
    const cleared = await updateRecord(api, 'leads', 'lead', updated, { email: null, phone: null, source: null, description: null, assignee_id: null });
    expect(cleared.record).toMatchObject({ email: null, phone: null, source: null, description: null, assignee_id: null, organization: 'New Org' });
  });

  it('PATCH keeps the organization-or-name rule: clearing the last name is refused, clearing one of two is fine', async () => {
    const lead = await createLead(api, { organization: unique('Org'), first_name: 'Kept' });
    const noOrg = await updateRecord(api, 'leads', 'lead', lead, { organization: null });
    expect(noOrg.record).toMatchObject({ organization: null, first_name: 'Kept' });
    expectProblem(await api.patch(`/leads/${lead.id}`, { lead: { first_name: null } }, ifMatch(noOrg.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { organization: true },
      onlyErrors: true,
    });
    expectProblem(await api.patch(`/leads/${lead.id}`, { lead: { first_name: '' } }, ifMatch(noOrg.etag)), { status: 422, code: 'validation.failed', errors: { organization: true } });
    const other = await updateRecord(api, 'leads', 'lead', noOrg, { source: 'untouched names' });
    expect(other.record.first_name).toBe('Kept');
  });

  it('requires If-Match on PATCH and DELETE (428, 412) and answers 404 for unknown ids', async () => {
    const lead = await createLead(api);
    expectProblem(await api.patch(`/leads/${lead.id}`, { lead: { source: 'x' } }), { status: 428, code: 'precondition.required' });
    expectProblem(await api.delete(`/leads/${lead.id}`), { status: 428, code: 'precondition.required' });
    await updateRecord(api, 'leads', 'lead', lead, { source: 'y' });
    expectProblem(await api.patch(`/leads/${lead.id}`, { lead: { source: 'z' } }, ifMatch(lead.etag)), { status: 412, code: 'precondition.failed' });
    expectProblem(await api.delete(`/leads/${lead.id}`, ifMatch(lead.etag)), { status: 412, code: 'precondition.failed' });
    expectProblem(await api.get(`/leads/${randomUUID()}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get('/leads/L-1'), { status: 404, code: 'resource.not_found' });
  });

  it('DELETE soft-deletes (204, then 404 and absent from lists)', async () => {
    const lead = await createLead(api, { organization: unique('Gone') });
    const res = await api.delete(`/leads/${lead.id}`, ifMatch(lead.etag));
    expect(res.status).toBe(204);
    expectProblem(await api.get(`/leads/${lead.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/leads?q=${encodeURIComponent(lead.record.organization)}`))).toEqual([]);
    expect((await t.database.prisma.lead.findUnique({ where: { id: lead.id } }))?.deleted_at).toBeInstanceOf(Date);
  });
});

describe('GET /leads', () => {
  let own: { tenant: Tenant; api: Client };
  const token = unique('lq');
  const made: Record<string, Created> = {};
  beforeAll(async () => {
    own = await t.newTenant();
    made.org = await createLead(own.api, { organization: `Org${token}` });
    clock.advance(1000);
    made.first = await createLead(own.api, { first_name: `First${token}` });
    clock.advance(1000);
    made.last = await createLead(own.api, { last_name: `Last${token}`, email: `mail${token}@example.test` });
    clock.advance(1000);
    made.phone = await createLead(own.api, { organization: 'Plain', phone: `555${token}`, number: `NUM${token}` });
    clock.advance(1000);
    made.first = await updateRecord(own.api, 'leads', 'lead', made.first, { status: 'Qualified' });
    made.last = await updateRecord(own.api, 'leads', 'lead', made.last, { status: 'Lost' });
  });

  it('q covers organization, first and last name, email, phone, number and status', async () => {
    const expectations: [string, string[]][] = [
      [`Org${token}`, [made.org.id]],
      [`first${token}`, [made.first.id]],
      [`LAST${token}`, [made.last.id]],
      [`mail${token}`, [made.last.id]],
      [`555${token}`, [made.phone.id]],
      [`NUM${token}`, [made.phone.id]],
      [`Qualified ${token}`, [made.first.id]],
    ];
    for (const [q, ids] of expectations) expect(idsOf(await own.api.get(`/leads?q=${encodeURIComponent(q)}`)), q).toEqual(ids);
  });

  it('filters status by equality and [in], and created_at/updated_at by range', async () => {
    expect(idsOf(await own.api.get('/leads?status=Qualified'))).toEqual([made.first.id]);
    expect(idsOf(await own.api.get('/leads?status[in]=Qualified,Lost&sort=created_at'))).toEqual([made.first.id, made.last.id]);
    expect(idsOf(await own.api.get('/leads?status=New&sort=created_at'))).toEqual([made.org.id, made.phone.id]);
    const boundary = made.last.record.created_at;
    expect(idsOf(await own.api.get(`/leads?created_at[gte]=${boundary}&sort=created_at`))).toEqual([made.last.id, made.phone.id]);
    expect(idsOf(await own.api.get(`/leads?created_at[lt]=${boundary}&sort=created_at`))).toEqual([made.org.id, made.first.id]);
    expect(idsOf(await own.api.get(`/leads?updated_at[gte]=${made.first.record.updated_at}&sort=updated_at`))).toEqual([made.first.id, made.last.id]);
    for (const query of ['status[gt]=New', 'organization=Plain', `customer_id=${randomUUID()}`, 'created_at[gte]=later']) {
      expectProblem(await own.api.get(`/leads?${query}`), { status: 400, code: 'filter.invalid' });
    }
  });

  it('sorts by created_at (default descending), updated_at, number and status', async () => {
    const order = [made.org.id, made.first.id, made.last.id, made.phone.id];
    expect(idsOf(await own.api.get('/leads'))).toEqual([...order].reverse());
    expect(idsOf(await own.api.get('/leads?sort=created_at'))).toEqual(order);
    expect(idsOf(await own.api.get('/leads?sort=-updated_at')).slice(0, 2)).toEqual([made.last.id, made.first.id]);
    expect(idsOf(await own.api.get('/leads?sort=status')).at(-1)).toBe(made.first.id); // Lost < New < Qualified
    expect(idsOf(await own.api.get('/leads?sort=-number'))).toEqual([made.phone.id, made.last.id, made.first.id, made.org.id]);
    for (const sort of ['organization', 'email', 'number,status']) expectProblem(await own.api.get(`/leads?sort=${sort}`), { status: 400, code: 'sort.invalid' });
  });
});

describe('POST /leads/{id}/convert', () => {
  it('creates a customer from the lead and marks the lead Converted with converted_customer_id (201 {data: {lead, customer}})', async () => {
    const lead = await createLead(api, { organization: uniqueOrganization('Convertible'), description: 'From the fair', phone: '+1 555 0142', assignee_id: tenant.userId });
    const res = await api.post(`/leads/${lead.id}/convert`);
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data).sort()).toEqual(['customer', 'lead']);
    const { lead: converted, customer } = res.body.data;
    expect(customer).toMatchObject({
      id: expect.stringMatching(uuidV7),
      organization: lead.record.organization,
      description: 'From the fair',
      main_phone: '+1 555 0142',
      assignee_id: tenant.userId,
      status: 'Active',
    });
    expect(customer.number).toMatch(/^\d+$/);
    expect(res.headers.get('location')).toBe(`/api/v2/customers/${customer.id}`);
    expect(converted).toMatchObject({ id: lead.id, status: 'Converted', converted_customer_id: customer.id, converted_at: expect.any(String) });
    expect(new Date(converted.updated_at).getTime()).toBeGreaterThan(new Date(lead.record.updated_at).getTime());
    const readLead = await api.get(`/leads/${lead.id}`);
    expect(readLead.body.data).toEqual(converted);
    expect(readLead.headers.get('etag')).not.toBe(lead.etag);
    expect((await api.get(`/customers/${customer.id}`)).body.data).toEqual(customer);
    expect(idsOf(await api.get('/leads?status=Converted'))).toContain(lead.id);
  });

  it("names the customer after the lead's person when it has no organization", async () => {
    const both = await createLead(api, { organization: null, first_name: 'Marie', last_name: unique('Curie') });
    const res = await api.post(`/leads/${both.id}/convert`);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.customer.organization).toBe(`Marie ${both.record.last_name}`);
    const lastOnly = await createLead(api, { organization: null, last_name: unique('Solo') });
    const solo = await api.post(`/leads/${lastOnly.id}/convert`, {});
    expect(solo.status, solo.text).toBe(201);
    expect(solo.body.data.customer.organization).toBe(lastOnly.record.last_name);
  });

  it('takes customer fields from the optional {"customer": {...}} body, overriding the lead', async () => {
    const lead = await createLead(api, { organization: uniqueOrganization('Lead Name'), description: 'lead description' });
    const organization = uniqueOrganization('Chosen Name');
    const res = await api.post(`/leads/${lead.id}/convert`, { customer: { organization, reference: 'ERP-9', description: 'override', number: `C-${unique()}` } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.customer).toMatchObject({ organization, reference: 'ERP-9', description: 'override' });
    expect(res.body.data.customer.number).toMatch(/^C-/);
  });

  it('refuses invalid overrides with 422 naming the field, and converts nothing', async () => {
    const lead = await createLead(api);
    const site = await createSite(api, { type: 'Lead', id: lead.id });
    const taken = await createCustomer(api);
    const customersBefore = await t.database.prisma.customer.count({ where: { account_id: tenant.accountId } });
    const cases: [unknown, string][] = [
      [{ customer: { organization: '' } }, 'organization'],
      [{ customer: { organization: taken.record.organization.toUpperCase() } }, 'organization'],
      [{ customer: { colour: 'red' } }, 'colour'],
      [{ customer: { status: 'Active' } }, 'status'],
      [{ customer: 'x' }, 'customer'],
      [{ customer: null }, 'customer'],
      [{ custmer: { organization: uniqueOrganization() } }, 'custmer'],
      [{ customer: { organization: uniqueOrganization() }, lead: { status: 'Won' } }, 'lead'],
    ];
    for (const [body, field] of cases) {
      expectProblem(await api.post(`/leads/${lead.id}/convert`, body), { status: 422, code: 'validation.failed', errors: { [field]: true }, onlyErrors: true });
    }
    expect(await t.database.prisma.customer.count({ where: { account_id: tenant.accountId } })).toBe(customersBefore);
    const readLead = await api.get(`/leads/${lead.id}`);
    expect(readLead.body.data).toMatchObject({ status: 'New', converted_customer_id: null });
    expect(readLead.headers.get('etag')).toBe(lead.etag);
    expect((await api.get(`/sites/${site.id}`)).body.data).toMatchObject({ siteable_type: 'Lead', siteable_id: lead.id });
  });

  it("refuses a lead whose organization is already a customer's (422 organization) until an override names it differently", async () => {
    const existing = await createCustomer(api);
    const lead = await createLead(api, { organization: existing.record.organization });
    expectProblem(await api.post(`/leads/${lead.id}/convert`), { status: 422, code: 'validation.failed', errors: { organization: ['has already been taken'] } });
    const res = await api.post(`/leads/${lead.id}/convert`, { customer: { organization: uniqueOrganization('Distinct') } });
    expect(res.status, res.text).toBe(201);
  });

  it("moves the lead's sites to the customer (siteable_type Customer, found by customer_id, positions kept)", async () => {
    const lead = await createLead(api);
    const street = unique('Convstreet');
    const first = await createSite(api, { type: 'Lead', id: lead.id }, { street });
    const second = await createSite(api, { type: 'Lead', id: lead.id });
    const res = await api.post(`/leads/${lead.id}/convert`);
    expect(res.status, res.text).toBe(201);
    const customerId = res.body.data.customer.id;
    for (const [site, position] of [[first, 0], [second, 1]] as const) {
      const read = await api.get(`/sites/${site.id}`);
      expect(read.body.data).toMatchObject({ siteable_type: 'Customer', siteable_id: customerId, position });
      expect(read.headers.get('etag')).not.toBe(site.etag);
    }
    expect(idsOf(await api.get(`/sites?customer_id=${customerId}&sort=position`))).toEqual([first.id, second.id]);
    expect(idsOf(await api.get(`/sites?lead_id=${lead.id}`))).toEqual([]);
    // Search follows the move: the customer is found by its primary site's address, the sites by its organization.
    expect(idsOf(await api.get(`/customers?q=${street}`))).toEqual([customerId]);
    const orgWord = res.body.data.customer.organization.split(' ').at(-1);
    expect(idsOf(await api.get(`/sites?q=${encodeURIComponent(orgWord)}&sort=position`))).toEqual([first.id, second.id]);
    // A new site of the customer continues after the moved ones.
    expect((await createSite(api, { type: 'Customer', id: customerId })).record.position).toBe(2);
  });

  it("moves the lead's contact linkages to the customer, keeping the primary, and leaves its site linkages alone", async () => {
    const lead = await createLead(api);
    const site = await createSite(api, { type: 'Lead', id: lead.id });
    const primary = await createContact(api, { linkable_id: lead.id, linkable_type: 'Lead' });
    const other = await createContact(api, { linkable_id: lead.id, linkable_type: 'Lead' });
    const siteContact = await createContact(api, { linkable_id: site.id, linkable_type: 'Site' });
    const [primaryLink] = await linkagesOf(api, primary.id);
    const [otherLink] = await linkagesOf(api, other.id);
    const [siteLink] = await linkagesOf(api, siteContact.id);
    const res = await api.post(`/leads/${lead.id}/convert`);
    expect(res.status, res.text).toBe(201);
    const customerId = res.body.data.customer.id;
    expect(await linkagesOf(api, primary.id)).toEqual([
      { ...primaryLink, linkable_type: 'Customer', linkable_id: customerId, updated_at: expect.any(String) },
    ]);
    expect(await linkagesOf(api, other.id)).toEqual([{ ...otherLink, linkable_type: 'Customer', linkable_id: customerId, updated_at: expect.any(String) }]);
    expect(await linkagesOf(api, siteContact.id)).toEqual([siteLink]);
    expect((await api.get(`/contacts/${primary.id}`)).body.data).toMatchObject({ linkable_type: 'Customer', linkable_id: customerId });
    const rows = await t.database.prisma.contactLinkage.findMany({ where: { linkable_id: customerId } });
    expect(rows.map((r) => [r.contact_id, r.is_primary]).sort()).toEqual([[other.id, false], [primary.id, true]].sort());
    expect(await t.database.prisma.contactLinkage.count({ where: { linkable_type: 'Lead', linkable_id: lead.id } })).toBe(0);
    // The customer's primary contact stays the primary: a new contact does not take it.
    const newcomer = await createContact(api, { linkable_id: customerId, linkable_type: 'Customer' });
    expect((await linkagesOf(api, newcomer.id))[0].primary).toBe(false);
  });

  it('answers 409 lead.already_converted to a second conversion, creating no second customer', async () => {
    const lead = await createLead(api);
    const first = await api.post(`/leads/${lead.id}/convert`);
    expect(first.status, first.text).toBe(201);
    const customers = await t.database.prisma.customer.count({ where: { account_id: tenant.accountId } });
    const problem = expectProblem(await api.post(`/leads/${lead.id}/convert`, { customer: { organization: uniqueOrganization() } }), {
      status: 409,
      code: 'lead.already_converted',
    });
    expect(problem.detail).toContain(first.body.data.customer.id);
    expect(await t.database.prisma.customer.count({ where: { account_id: tenant.accountId } })).toBe(customers);
  });

  it('converts a lead once under concurrent requests', async () => {
    const lead = await createLead(api);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => api.post(`/leads/${lead.id}/convert`, { customer: { organization: uniqueOrganization(`Race ${i}`) } })));
    const won = results.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 201)) expectProblem(res, { status: 409, code: 'lead.already_converted' });
    expect((await api.get(`/leads/${lead.id}`)).body.data.converted_customer_id).toBe(won[0].body.data.customer.id);
  });

  it("answers 404 resource.not_found for a deleted, unknown, malformed or other tenant's lead", async () => {
    const gone = await createLead(api);
    await deleteRecord(api, 'leads', gone.id);
    const theirs = await t.newTenant();
    const theirLead = await createLead(theirs.api);
    for (const id of [gone.id, randomUUID(), 'not-a-uuid', theirLead.id]) {
      expectProblem(await api.post(`/leads/${id}/convert`), { status: 404, code: 'resource.not_found' });
      // Existence is checked before the body.
      expectProblem(await api.post(`/leads/${id}/convert`, { customer: 'x', extra: 1 }), { status: 404, code: 'resource.not_found' });
    }
    expect((await theirs.api.get(`/leads/${theirLead.id}`)).body.data).toMatchObject({ status: 'New', converted_customer_id: null });
  });

  it('requires both leads:write and customers:write (403 auth.scope_missing naming the missing one)', async () => {
    const lead = await createLead(api);
    const key = async (scopes: string[]) => t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes })).token);
    const cases: [string[], string][] = [
      [['leads:write'], 'customers:write'],
      [['leads:write', 'customers:read'], 'customers:write'],
      [['customers:write'], 'leads:write'],
      [['customers:write', 'leads:read'], 'leads:write'],
      [[], 'leads:write'],
    ];
    for (const [scopes, missing] of cases) {
      const problem = expectProblem(await (await key(scopes)).post(`/leads/${lead.id}/convert`), { status: 403, code: 'auth.scope_missing' });
      expect(problem.required_scope).toBe(missing);
    }
    expect((await api.get(`/leads/${lead.id}`)).body.data.converted_customer_id).toBeNull();
    const res = await (await key(['leads:write', 'customers:write'])).post(`/leads/${lead.id}/convert`);
    expect(res.status, res.text).toBe(201);
  });

  it('keeps the lead status when the tenant removed the Converted status, but still records the conversion', async () => {
    const own = await t.newTenant();
    await t.app.domain.admin.removeLookup('status', { accountId: own.tenant.accountId, relatedName: 'Lead', name: 'Converted' });
    const lead = await createLead(own.api);
    const res = await own.api.post(`/leads/${lead.id}/convert`);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.lead).toMatchObject({ status: 'New', converted_customer_id: res.body.data.customer.id });
  });
});

describe('tenancy and scopes', () => {
  it("answers 404 to GET, PATCH and DELETE of another tenant's lead and never lists it", async () => {
    const lead = await createLead(api, { organization: unique('Private') });
    const theirs = await t.newTenant();
    expectProblem(await theirs.api.get(`/leads/${lead.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.api.patch(`/leads/${lead.id}`, { lead: { source: 'x' } }, ifMatch(lead.etag)), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.api.delete(`/leads/${lead.id}`, ifMatch(lead.etag)), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await theirs.api.get(`/leads?q=${encodeURIComponent(lead.record.organization)}`))).toEqual([]);
    expect((await api.get(`/leads/${lead.id}`)).headers.get('etag')).toBe(lead.etag);
  });

  it('needs leads:read to read and leads:write to write', async () => {
    const lead = await createLead(api);
    const reader = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['leads:read'] })).token);
    const stranger = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:write'] })).token);
    expect((await reader.get(`/leads/${lead.id}`)).status).toBe(200);
    expect(expectProblem(await stranger.get('/leads'), { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('leads:read');
    for (const res of [
      await reader.post('/leads', { lead: { organization: 'x' } }),
      await reader.patch(`/leads/${lead.id}`, { lead: { source: 'x' } }, ifMatch(lead.etag)),
      await reader.delete(`/leads/${lead.id}`, ifMatch(lead.etag)),
    ]) {
      expect(expectProblem(res, { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('leads:write');
    }
  });
});

describe('POST /leads/{id}/convert writes the moved sites like any update', () => {
  it("moves each site's and the lead's updated_at forward even when the clock is behind their last write, and records the written sites", async () => {
    const lead = await createLead(api);
    const sites = [await createSite(api, { type: 'Lead', id: lead.id }), await createSite(api, { type: 'Lead', id: lead.id })];
    // Another process's clock, an hour behind the one that wrote the lead and its sites.
    clock.advance(-3_600_000);
    try {
      const res = await api.post(`/leads/${lead.id}/convert`);
      expect(res.status, res.text).toBe(201);
      expect(Date.parse(res.body.data.lead.updated_at)).toBeGreaterThan(Date.parse(lead.record.updated_at));
      for (const site of sites) {
        const read = await api.get(`/sites/${site.id}`);
        expect(Date.parse(read.body.data.updated_at), site.id).toBeGreaterThan(Date.parse(site.record.updated_at));
        expect(read.headers.get('etag')).not.toBe(site.etag);
        const events = await t.database.prisma.event.findMany({ where: { record_id: site.id }, orderBy: { seq: 'asc' } });
        expect(events.map((e) => e.topic)).toEqual(['site.created', 'site.updated']);
        expect(events[1].payload).toEqual(read.body.data);
      }
    } finally {
      clock.advance(3_600_000);
    }
  });
});
