import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { codeOf, CONTACT_FIELDS, expectError, failed, fieldsOf, type GraphqlResponse, graphqlTenant, ok, records, SITE_FIELDS, USER_ERRORS } from '../helpers/graphql.ts';

// The issue-3 rules the REST suites check, over GraphQL: leads (update, delete, list filters, q, numbers, the
// default status), sites (coordinate ranges, system options, custom fields, the lead filter, q over the parent's
// name), the customer q over the primary site's address, contacts (q, custom fields), ids of another account,
// the events outbox for GraphQL writes, and one primary per record under concurrent linkContact mutations.

const t = useTestApp({ rateLimits: highRateLimits });


/** The field paths of the userErrors of a mutation refused with validation.failed (sorted). */
function erroredFields(res: GraphqlResponse): (string[] | null)[] {
  return fieldsOf(failed(res, 'validation.failed'));
}

const LEAD_FIELDS = 'id number status organization firstName lastName email phone source description assigneeId labels customFields convertedCustomerId convertedAt createdAt updatedAt';
const GET_LEAD = `query($id: ID!) { lead(id: $id) { ${LEAD_FIELDS} etag } }`;
const CREATE_LEAD = `mutation($input: CreateLeadInput!) { createLead(input: $input) { etag lead { ${LEAD_FIELDS} } ${USER_ERRORS} } }`;
const UPDATE_LEAD = `mutation($id: ID!, $m: String, $input: UpdateLeadInput!) { updateLead(id: $id, ifMatch: $m, input: $input) { etag lead { ${LEAD_FIELDS} } ${USER_ERRORS} } }`;
const DELETE_LEAD = `mutation($id: ID!, $m: String) { deleteLead(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`;
const LIST_LEADS = `query($filter: LeadFilter, $sort: LeadSort) {
  leads(filter: $filter, sort: $sort, first: 100) { nodes { id } pageInfo { hasNextPage } } }`;

const GET_SITE = `query($id: ID!) { site(id: $id) { ${SITE_FIELDS} etag } }`;
const CREATE_SITE = `mutation($input: CreateSiteInput!) { createSite(input: $input) { etag site { ${SITE_FIELDS} } ${USER_ERRORS} } }`;
const UPDATE_SITE = `mutation($id: ID!, $m: String, $input: UpdateSiteInput!) { updateSite(id: $id, ifMatch: $m, input: $input) { etag site { ${SITE_FIELDS} } ${USER_ERRORS} } }`;
const DELETE_SITE = `mutation($id: ID!, $m: String) { deleteSite(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`;
const LIST_SITES = `query($filter: SiteFilter, $sort: SiteSort) {
  sites(filter: $filter, sort: $sort, first: 100) { nodes { id } } }`;

const GET_CONTACT = `query($id: ID!) { contact(id: $id) { ${CONTACT_FIELDS} etag } }`;
const UPDATE_CONTACT = `mutation($id: ID!, $m: String, $input: UpdateContactInput!) { updateContact(id: $id, ifMatch: $m, input: $input) { etag contact { ${CONTACT_FIELDS} } ${USER_ERRORS} } }`;
const DELETE_CONTACT = `mutation($id: ID!, $m: String) { deleteContact(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`;
const LIST_CONTACTS = `query($filter: ContactFilter) { contacts(filter: $filter, first: 100) { nodes { id } } }`;

const ids = (data: { nodes: { id: string }[] }) => data.nodes.map((node) => node.id);
const siteInput = (parent: { id: string }, type: 'CUSTOMER' | 'LEAD', extra: Record<string, unknown> = {}) => ({
  siteableId: parent.id,
  siteableType: type,
  siteName: 'Depot',
  street: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  ...extra,
});

describe('leads over GraphQL', () => {
  it('createLead starts at status New and numbers leads 1, 2 ... per account, keeping a number given', async () => {
    const { gql, make } = await graphqlTenant(t);
    const first = ok(await gql(CREATE_LEAD, { input: { organization: 'Alpha Prospects' } })).createLead;
    expect(first.lead).toMatchObject({ number: '1', status: 'New', labels: [], customFields: {}, convertedCustomerId: null, convertedAt: null });
    expect(first.etag).toMatch(/^W\/"\d+-0"$/);
    const second = ok(await gql(CREATE_LEAD, { input: { firstName: 'Bea', lastName: 'Solo' } })).createLead;
    expect(second.lead).toMatchObject({ number: '2', status: 'New', organization: null, firstName: 'Bea' });
    const given = ok(await gql(CREATE_LEAD, { input: { organization: 'Given', number: 'L-77' } })).createLead;
    expect(given.lead.number).toBe('L-77');
    expect((await make.lead({ organization: 'Next' })).id).toBeTruthy();
    expect(ok(await gql(LIST_LEADS, { filter: { q: 'Next' } })).leads.nodes).toHaveLength(1);
    const taken = await gql(CREATE_LEAD, { input: { organization: 'Dup', number: 'L-77' } });
    expectError(taken, 'validation.failed', [['input', 'number']]);
    // Neither a name nor an organization: the rule names organization.
    expectError(await gql(CREATE_LEAD, { input: { email: 'x@example.com' } }), 'validation.failed', [['input', 'organization']]);
  });

  it('updateLead changes fields and status with If-Match, keeps the number immutable, and deleteLead soft-deletes', async () => {
    const { gql } = await graphqlTenant(t);
    const created = ok(await gql(CREATE_LEAD, { input: { organization: 'Update Me', email: 'a@example.com', source: 'web' } })).createLead;
    const id = created.lead.id;

    const updated = ok(await gql(UPDATE_LEAD, { id, m: created.etag, input: { email: 'b@example.com', source: null, status: 'Qualified', number: created.lead.number } })).updateLead;
    expect(updated.lead).toMatchObject({ organization: 'Update Me', email: 'b@example.com', source: null, status: 'Qualified', number: created.lead.number });
    expect(updated.etag).not.toBe(created.etag);
    expect(ok(await gql(GET_LEAD, { id })).lead).toEqual({ ...updated.lead, etag: updated.etag });

    expectError(await gql(UPDATE_LEAD, { id, m: created.etag, input: { email: 'c@example.com' } }), 'precondition.failed', [['ifMatch']]);
    expectError(await gql(UPDATE_LEAD, { id, input: { email: 'c@example.com' } }), 'precondition.required', [['ifMatch']]);
    expectError(await gql(UPDATE_LEAD, { id, m: updated.etag, input: { number: '999' } }), 'number.immutable', [['input', 'number']]);
    expectError(await gql(UPDATE_LEAD, { id, m: updated.etag, input: { status: 'Dreaming' } }), 'status.transition_invalid', [['input', 'status']]);
    expectError(await gql(UPDATE_LEAD, { id, m: updated.etag, input: { organization: null } }), 'validation.failed', [['input', 'organization']]);

    expect(ok(await gql(DELETE_LEAD, { id, m: updated.etag }))).toEqual({ deleteLead: { deletedId: id, userErrors: [] } });
    const gone = await gql(GET_LEAD, { id });
    expect(gone.body.data).toEqual({ lead: null });
    expect(codeOf(gone)).toBe('resource.not_found');
    expect(ids(ok(await gql(LIST_LEADS, {})).leads)).not.toContain(id);
    // A soft delete: the row stays, marked deleted.
    expect(await t.database.prisma.lead.findUnique({ where: { id } })).toMatchObject({ deleted_at: expect.any(Date) });
  });

  it('leads filters by status and statusIn, searches q over organization, names, email, phone and number, and sorts', async () => {
    const { gql, make } = await graphqlTenant(t);
    const a = await make.lead({ organization: 'Orchard Works', email: 'buyer@orchard.test' });
    const b = await make.lead({ firstName: 'Quinn', lastName: 'Marlow', phone: '+1 555 0142' });
    const c = await make.lead({ organization: 'Copper Ltd' });
    ok(await gql(UPDATE_LEAD, { id: b.id, m: b.etag, input: { status: 'Contacted' } }));
    ok(await gql(UPDATE_LEAD, { id: c.id, m: c.etag, input: { status: 'Lost' } }));

    const list = async (filter: Record<string, unknown>, sort?: { field: string; direction?: 'ASC' | 'DESC' }) =>
      ids(ok(await gql(LIST_LEADS, { filter, sort })).leads);
    expect(await list({ status: 'New' })).toEqual([a.id]);
    expect(await list({ statusIn: ['Contacted', 'Lost'] }, { field: 'CREATED_AT' })).toEqual([b.id, c.id]);
    expect(await list({}, { field: 'CREATED_AT', direction: 'DESC' })).toEqual([c.id, b.id, a.id]);
    expect(await list({}, { field: 'NUMBER' })).toEqual([a.id, b.id, c.id]);
    expect(await list({ q: 'ORCHARD' })).toEqual([a.id]);
    expect(await list({ q: 'buyer@orchard' })).toEqual([a.id]);
    expect(await list({ q: 'quinn marlow' })).toEqual([b.id]);
    expect(await list({ q: '0142' })).toEqual([b.id]);
    expect(await list({ q: 'lost copper' })).toEqual([c.id]);
    expect(await list({ q: 'Orchard Copper' })).toEqual([]);
    // A field leads cannot be sorted by is not in LeadSortField: the schema refuses it before anything runs.
    const unsortable = await gql(LIST_LEADS, { sort: { field: 'EMAIL' } });
    expect(unsortable.status).toBe(400);
    expect(unsortable.body.data).toBeUndefined();
    expect(unsortable.body.errors![0].message).toContain('LeadSortField');
  });
});

describe('sites over GraphQL', () => {
  it('refuses latitude outside -90..90 and longitude outside -180..180 on create and update, naming the field', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Coordinates Ltd');
    const site = await make.site(customer, 'CUSTOMER', 'Here', { latitude: -90, longitude: 180 });
    expect(site.site).toMatchObject({ latitude: -90, longitude: 180 });
    const plain = await make.site(customer, 'CUSTOMER', 'Plain');
    expect(plain.site).toMatchObject({ latitude: null, longitude: null });
    for (const [field, value] of [['latitude', 90.5], ['latitude', -91], ['longitude', 180.01], ['longitude', -200]] as const) {
      const created = await gql(CREATE_SITE, { input: siteInput(customer, 'CUSTOMER', { [field]: value }) });
      expect(created.body.data).toEqual({ createSite: { etag: null, site: null, userErrors: [expect.objectContaining({ code: 'validation.failed' })] } });
      expect(erroredFields(created)).toEqual([['input', field]]);
      const updated = await gql(UPDATE_SITE, { id: site.id, m: site.etag, input: { [field]: value } });
      expect(erroredFields(updated)).toEqual([['input', field]]);
    }
    expect(ok(await gql(GET_SITE, { id: site.id })).site.etag).toBe(site.etag);
    const cleared = ok(await gql(UPDATE_SITE, { id: site.id, m: site.etag, input: { latitude: null, longitude: 0 } })).updateSite;
    expect(cleared.site).toMatchObject({ latitude: null, longitude: 0 });
  });

  it('accepts a systemOptionId of the catalog, clears it with null and refuses others naming systemOptionId', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Options Ltd');
    const catalog = '01900000-0000-7000-8000-000000000003';
    const site = await make.site(customer, 'CUSTOMER', 'Boiler room', { systemOptionId: catalog });
    expect(site.site.systemOptionId).toBe(catalog);
    const refused = await gql(UPDATE_SITE, { id: site.id, m: site.etag, input: { systemOptionId: customer.id } });
    expectError(refused, 'validation.failed', [['input', 'systemOptionId']]);
    expectError(await gql(CREATE_SITE, { input: siteInput(customer, 'CUSTOMER', { systemOptionId: 'HVAC' }) }), 'validation.failed', [['input', 'systemOptionId']]);
    const cleared = ok(await gql(UPDATE_SITE, { id: site.id, m: site.etag, input: { systemOptionId: null } })).updateSite;
    expect(cleared.site.systemOptionId).toBeNull();
  });

  it('merges customFields on updateSite (absent kept, null clears) and refuses a definition of another resource', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const add = async (relatedName: string, name: string, type: string) => (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName, name, type })).id;
    const gate = await add('Site', 'Gate code', 'text');
    const floors = await add('Site', 'Floors', 'number');
    const region = await add('Customer', 'Region', 'text');
    const customer = await make.customer('Custom Sites Ltd');
    const site = await make.site(customer, 'CUSTOMER', 'Custom', { customFields: { [gate]: '1234' } });
    expect(site.site.customFields).toEqual({ [gate]: '1234' });
    const merged = ok(await gql(UPDATE_SITE, { id: site.id, m: site.etag, input: { customFields: { [floors]: 3 } } })).updateSite;
    expect(merged.site.customFields).toEqual({ [gate]: '1234', [floors]: 3 });
    const kept = ok(await gql(UPDATE_SITE, { id: site.id, m: merged.etag, input: { description: 'no customFields' } })).updateSite;
    expect(kept.site.customFields).toEqual({ [gate]: '1234', [floors]: 3 });
    const cleared = ok(await gql(UPDATE_SITE, { id: site.id, m: kept.etag, input: { customFields: { [gate]: null } } })).updateSite;
    expect(cleared.site.customFields).toEqual({ [floors]: 3 });
    const foreign = await gql(UPDATE_SITE, { id: site.id, m: cleared.etag, input: { customFields: { [region]: 'North' } } });
    expect(erroredFields(foreign)).toEqual([['input', 'customFields', region]]);
  });

  it("sites filters by leadId and customerId, and q covers the site's fields and its parent's name", async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Zephyrine Holdings');
    const lead = await make.lead({ organization: 'Lead Parent Org' });
    const ofCustomer = await make.site(customer, 'CUSTOMER', 'Warehouse', { city: 'Quarrytown', zipCode: 'QT-1' });
    const ofLead = await make.site(lead, 'LEAD', 'Prospect office');
    const list = async (filter: Record<string, unknown>) => ids(ok(await gql(LIST_SITES, { filter })).sites);
    expect(await list({ leadId: lead.id })).toEqual([ofLead.id]);
    expect(await list({ customerId: customer.id })).toEqual([ofCustomer.id]);
    expect(await list({ leadId: customer.id })).toEqual([]);
    expect(await list({ q: 'zephyrine' })).toEqual([ofCustomer.id]);
    expect(await list({ q: 'ZEPHYRINE quarrytown' })).toEqual([ofCustomer.id]);
    expect(await list({ q: 'qt-1' })).toEqual([ofCustomer.id]);
    expect(await list({ q: 'warehouse', leadId: lead.id })).toEqual([]);
    expect(await list({ q: 'Lead Parent Org' })).toEqual([ofLead.id]);
    expectError(await gql(LIST_SITES, { filter: { leadId: 'nope' } }), 'filter.invalid', 400);
  });

  it("customers q matches the address of the customer's primary (first) site only", async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Address Search Ltd');
    const other = await make.customer('Other Address Ltd');
    const search = async (q: string) => ids(ok(await gql(`query($q: String) { customers(filter: { q: $q }) { nodes { id } } }`, { q })).customers);
    expect(await search('Lindenallee')).toEqual([]);
    await make.site(customer, 'CUSTOMER', 'Main', { street: '12 Lindenallee', city: 'Bremerhaven', zipCode: 'Z27568' });
    await make.site(customer, 'CUSTOMER', 'Second', { street: '9 Kastanienweg' });
    await make.site(other, 'CUSTOMER', 'Elsewhere', { street: '3 Birkenstrasse' });
    expect(await search('lindenallee')).toEqual([customer.id]);
    expect(await search('bremerhaven z27568')).toEqual([customer.id]);
    expect(await search('Kastanienweg')).toEqual([]);
    expect(await search('Birkenstrasse')).toEqual([other.id]);
  });
});

describe('contacts over GraphQL', () => {
  it('contacts q covers first name, last name, email and title, every term, case-insensitively', async () => {
    const { gql, make } = await graphqlTenant(t);
    const ada = await make.contact({ firstName: 'Adelheid', lastName: 'Brunnhuber', email: 'adel@kiln.test', title: 'Quartermaster' });
    const bob = await make.contact({ firstName: 'Bob', lastName: 'Kilnworth' });
    const search = async (q: string) => ids(ok(await gql(LIST_CONTACTS, { filter: { q } })).contacts);
    expect(await search('ADELHEID')).toEqual([ada.id]);
    expect(await search('brunnhuber')).toEqual([ada.id]);
    expect(await search('adel@kiln')).toEqual([ada.id]);
    expect(await search('quartermaster adelheid')).toEqual([ada.id]);
    expect((await search('kiln')).sort()).toEqual([ada.id, bob.id].sort());
    expect(await search('quartermaster bob')).toEqual([]);
  });

  it('merges customFields on updateContact (absent kept, null clears)', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const add = async (name: string, type: string) => (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Contact', name, type })).id;
    const birthday = await add('Birthday', 'date');
    const vip = await add('VIP', 'checkbox');
    const created = await make.contact({ firstName: 'Cara', customFields: { [birthday]: '1990-04-01' } });
    expect(created.contact.customFields).toEqual({ [birthday]: '1990-04-01' });
    const merged = ok(await gql(UPDATE_CONTACT, { id: created.id, m: created.etag, input: { customFields: { [vip]: true } } })).updateContact;
    expect(merged.contact.customFields).toEqual({ [birthday]: '1990-04-01', [vip]: true });
    const kept = ok(await gql(UPDATE_CONTACT, { id: created.id, m: merged.etag, input: { title: 'Owner' } })).updateContact;
    expect(kept.contact.customFields).toEqual({ [birthday]: '1990-04-01', [vip]: true });
    const cleared = ok(await gql(UPDATE_CONTACT, { id: created.id, m: kept.etag, input: { customFields: { [birthday]: null } } })).updateContact;
    expect(cleared.contact.customFields).toEqual({ [vip]: true });
    const wrong = await gql(UPDATE_CONTACT, { id: created.id, m: cleared.etag, input: { customFields: { [vip]: 'yes' } } });
    expect(erroredFields(wrong)).toEqual([['input', 'customFields', vip]]);
  });
});

describe("another account's ids", () => {
  it('are resource.not_found in site, contact and lead queries and their update and delete mutations, which change nothing', async () => {
    const mine = await graphqlTenant(t);
    const theirs = await graphqlTenant(t);
    const customer = await theirs.make.customer('Their Customer');
    const lead = await theirs.make.lead({ organization: 'Their Lead' });
    const site = await theirs.make.site(customer, 'CUSTOMER', 'Their Site');
    const contact = await theirs.make.contact({ firstName: 'Their' });

    const cases: { get: string; update: string; remove: string; id: string; etag: string; input: Record<string, unknown> }[] = [
      { get: GET_SITE, update: UPDATE_SITE, remove: DELETE_SITE, id: site.id, etag: site.etag, input: { city: 'Elsewhere' } },
      { get: GET_CONTACT, update: UPDATE_CONTACT, remove: DELETE_CONTACT, id: contact.id, etag: contact.etag, input: { title: 'Spy' } },
      { get: GET_LEAD, update: UPDATE_LEAD, remove: DELETE_LEAD, id: lead.id, etag: lead.etag, input: { source: 'stolen' } },
    ];
    for (const c of cases) {
      const read = await mine.gql(c.get, { id: c.id });
      expect(Object.values(read.body.data ?? {})).toEqual([null]);
      expectError(read, 'resource.not_found', 404);
      expectError(await mine.gql(c.update, { id: c.id, m: c.etag, input: c.input }), 'resource.not_found', [['id']]);
      expectError(await mine.gql(c.remove, { id: c.id, m: c.etag }), 'resource.not_found', [['id']]);
      // Still there, unchanged, for its owner.
      const own = ok(await theirs.gql(c.get, { id: c.id }));
      expect((Object.values(own)[0] as { etag: string }).etag).toBe(c.etag);
    }
    // Nor can it be a parent: a site under another account's lead, or the lead filter of another account's lead.
    const underTheirs = await mine.gql(CREATE_SITE, { input: siteInput(lead, 'LEAD') });
    expectError(underTheirs, 'validation.failed', [['input', 'siteableId']]);
    expect(ids(ok(await mine.gql(LIST_SITES, { filter: { customerId: customer.id } })).sites)).toEqual([]);
  });
});

describe('events for GraphQL writes', () => {
  it('appends the same outbox rows as REST: topic, resource, payload as served, details, actor and request id', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });
    const withId = (id: string) => ({ headers: { 'x-request-id': id } });

    const created = ok(await gql(CREATE_LEAD, { input: { organization: 'Evented Lead' } }, withId('gql-lead-1'))).createLead;
    const updated = ok(await gql(UPDATE_LEAD, { id: created.lead.id, m: created.etag, input: { status: 'Contacted' } }, withId('gql-lead-2'))).updateLead;
    const served = (await t.client(tenant.token).get(`/leads/${created.lead.id}`)).body.data;
    ok(await gql(DELETE_LEAD, { id: created.lead.id, m: updated.etag }, withId('gql-lead-3')));
    const leadEvents = await eventsOf(created.lead.id);
    // A status change is an update that also emits lead.status_changed, in the same request, right after it.
    expect(leadEvents.map((e) => [e.topic, e.resource, e.action, e.request_id])).toEqual([
      ['lead.created', 'Lead', 'created', 'gql-lead-1'],
      ['lead.updated', 'Lead', 'updated', 'gql-lead-2'],
      ['lead.status_changed', 'Lead', 'status_changed', 'gql-lead-2'],
      ['lead.deleted', 'Lead', 'deleted', 'gql-lead-3'],
    ]);
    expect(served).toMatchObject({ id: created.lead.id, status: 'Contacted', organization: 'Evented Lead' });
    for (const e of leadEvents.slice(1)) expect(e.payload).toEqual(served);
    // The update names the fields whose values moved (wire names, updated_at left out); status_changed gives the
    // previous and the new status; created and deleted carry no details.
    expect(leadEvents.map((e) => e.details)).toEqual([null, { changed_fields: ['status'] }, { previous_status: 'New', status: 'Contacted' }, null]);
    for (const e of leadEvents) expect(e).toMatchObject({ account_id: tenant.accountId, actor: { key_id: tenant.keyId, user_id: tenant.userId } });

    const customer = ok(await gql(`mutation { createCustomer(input: { organization: "Evented Customer" }) { customer { id } } }`)).createCustomer.customer;
    const site = ok(await gql(CREATE_SITE, { input: siteInput(customer, 'CUSTOMER') }, withId('gql-site-1'))).createSite;
    const siteEvents = await eventsOf(site.site.id);
    expect(siteEvents.map((e) => [e.topic, e.request_id])).toEqual([['site.created', 'gql-site-1']]);
    expect(siteEvents[0].payload).toMatchObject({ id: site.site.id, site_name: 'Depot', siteable_id: customer.id, siteable_type: 'Customer', position: 0 });

    const contact = ok(
      await gql(`mutation($input: CreateContactInput!) { createContact(input: $input) { contact { id } } }`, { input: { firstName: 'Eve', linkableId: site.site.id, linkableType: 'SITE' } }, withId('gql-contact-1')),
    ).createContact.contact;
    const linkage = ok(await gql(`query($id: ID!) { contactLinkages(contactId: $id) { id } }`, { id: contact.id })).contactLinkages[0];
    const made = await records(gql).linked(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER', relationshipType: 'BILLING' });
    expect((await eventsOf(contact.id)).map((e) => [e.topic, e.request_id])).toEqual([['contact.created', 'gql-contact-1']]);
    expect((await eventsOf(linkage.id)).map((e) => [e.topic, e.request_id])).toEqual([['contact_linkage.created', 'gql-contact-1']]);
    const linkEvents = await eventsOf(made.id);
    expect(linkEvents.map((e) => [e.topic, e.resource])).toEqual([['contact_linkage.created', 'ContactLinkage']]);
    expect(linkEvents[0].payload).toMatchObject({ id: made.id, contact_id: contact.id, linkable_id: customer.id, relationship_type: 'billing', primary: true });
  });
});

describe('concurrent linkContact', () => {
  it('20 concurrent linkContact(primary: true) for one record leave exactly one primary and all 20 linkages', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Contended Ltd');
    const contacts = await Promise.all(Array.from({ length: 20 }, (_, i) => make.contact({ firstName: `Racer ${i}` })));
    const results = await Promise.all(contacts.map((c) => make.link(c.id, { linkableId: customer.id, linkableType: 'CUSTOMER', primary: true })));
    for (const res of results) ok(res);
    const rows = await t.database.prisma.contactLinkage.findMany({ where: { linkable_type: 'Customer', linkable_id: customer.id } });
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((r) => r.contact_id))).toEqual(new Set(contacts.map((c) => c.id)));
    const primaries = rows.filter((r) => r.is_primary);
    expect(primaries).toHaveLength(1);
    // GraphQL agrees with the database.
    const read = ok(await gql(`query($id: ID!) { customer(id: $id) { primaryContact { id } contactLinkages(first: 100) { nodes { contactId primary } } } }`, { id: customer.id })).customer;
    expect(read.primaryContact).toEqual({ id: primaries[0].contact_id });
    expect(read.contactLinkages.nodes.filter((l: { primary: boolean }) => l.primary)).toEqual([{ contactId: primaries[0].contact_id, primary: true }]);
    expect(read.contactLinkages.nodes).toHaveLength(20);
  });
});
