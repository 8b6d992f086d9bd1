import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { camelRecord, codeOf, CONTACT_FIELDS, graphqlRecord, graphqlTenant, LINKAGE_FIELDS, ok, SITE_FIELDS, succeeded, USER_ERRORS } from '../helpers/graphql.ts';

// Relations between customers, leads, sites and contacts over GraphQL, in both directions: only live records of
// the caller's account, serialized exactly as the services serialize them, and each needing the read scope of
// the records it returns.

const t = useTestApp({ rateLimits: highRateLimits });


const CUSTOMER_TREE = `query($id: ID!) { customer(id: $id) { id organization
  sites { nodes { id siteName position siteableId customer { id } lead { id } } }
  contacts { nodes { id firstName } }
  primaryContact { id }
  contactLinkages { nodes { id contactId primary linkableType linkableId contact { id } linkable { __typename ... on Customer { id } } } } } }`;

describe('customer and site relations', () => {
  it("Customer.sites lists the customer's live sites by position, and Site.customer leads back", async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Sited Ltd');
    const other = await make.customer('Other Ltd');
    const first = await make.site(customer, 'CUSTOMER', 'First', { position: 5 });
    const second = await make.site(customer, 'CUSTOMER', 'Second');
    const third = await make.site(customer, 'CUSTOMER', 'Early', { position: 2 });
    await make.site(other, 'CUSTOMER', 'Not mine');
    succeeded(await gql(`mutation($id: ID!, $m: String) { deleteSite(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: second.id, m: second.etag }));

    const tree = ok(await gql(CUSTOMER_TREE, { id: customer.id })).customer;
    expect(second.site.position).toBe(6);
    expect(tree.sites.nodes.map((s: { siteName: string }) => s.siteName)).toEqual(['Early', 'First']);
    expect(tree.sites.nodes.map((s: { id: string }) => s.id)).toEqual([third.id, first.id]);
    for (const site of tree.sites.nodes) expect(site).toMatchObject({ siteableId: customer.id, customer: { id: customer.id }, lead: null });

    const fromSite = ok(await gql(`query($id: ID!) { site(id: $id) { customer { id organization sites { nodes { id } } } lead { id } } }`, { id: first.id })).site;
    expect(fromSite).toEqual({ customer: { id: customer.id, organization: 'Sited Ltd', sites: { nodes: [{ id: third.id }, { id: first.id }] } }, lead: null });
  });

  it('Customer.contacts, primaryContact and contactLinkages list the linked live contacts, oldest link first', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Staffed Ltd');
    const ann = await make.contact({ firstName: 'Ann', linkableId: customer.id, linkableType: 'CUSTOMER' });
    const bob = await make.contact({ firstName: 'Bob' });
    await make.contact({ firstName: 'Unlinked' });
    const bobLink = await make.linked(bob.id, { linkableId: customer.id, linkableType: 'CUSTOMER', relationshipType: 'BILLING' });

    const tree = ok(await gql(CUSTOMER_TREE, { id: customer.id })).customer;
    expect(tree.contacts.nodes).toEqual([{ id: ann.id, firstName: 'Ann' }, { id: bob.id, firstName: 'Bob' }]);
    expect(tree.primaryContact).toEqual({ id: ann.id });
    expect(tree.contactLinkages.nodes).toEqual([
      { id: expect.any(String), contactId: ann.id, primary: true, linkableType: 'CUSTOMER', linkableId: customer.id, contact: { id: ann.id }, linkable: { __typename: 'Customer', id: customer.id } },
      { id: bobLink.id, contactId: bob.id, primary: false, linkableType: 'CUSTOMER', linkableId: customer.id, contact: { id: bob.id }, linkable: { __typename: 'Customer', id: customer.id } },
    ]);

    // Unlinking takes the contact out of the customer's contacts; the contact itself stays.
    succeeded(await make.unlink(bob.id, bobLink.id));
    const after = ok(await gql(CUSTOMER_TREE, { id: customer.id })).customer;
    expect(after.contacts.nodes).toEqual([{ id: ann.id, firstName: 'Ann' }]);
    expect(ok(await gql(`query($id: ID!) { contact(id: $id) { id linkages { nodes { id } } } }`, { id: bob.id })).contact).toEqual({ id: bob.id, linkages: { nodes: [] } });
  });

  it('Contact.linkages reach customers, leads and sites through ContactLinkage.linkable', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Linked Ltd');
    const lead = await make.lead({ organization: 'Prospect Ltd' });
    const site = await make.site(customer, 'CUSTOMER', 'Depot');
    const contact = await make.contact({ firstName: 'Cleo', linkableId: customer.id, linkableType: 'CUSTOMER' });
    await make.linked(contact.id, { linkableId: lead.id, linkableType: 'LEAD' });
    await make.linked(contact.id, { linkableId: site.id, linkableType: 'SITE', relationshipType: 'TECHNICAL' });

    const read = ok(
      await gql(
        `query($id: ID!) { contact(id: $id) { linkages { nodes { linkableType relationshipType primary contact { id }
          linkable { __typename ... on Customer { id organization } ... on Lead { id leadOrganization: organization } ... on Site { id siteName customer { id } } } } } } }`,
        { id: contact.id },
      ),
    ).contact;
    expect(read.linkages.nodes).toEqual([
      { linkableType: 'CUSTOMER', relationshipType: 'ASSOCIATED', primary: true, contact: { id: contact.id }, linkable: { __typename: 'Customer', id: customer.id, organization: 'Linked Ltd' } },
      { linkableType: 'LEAD', relationshipType: 'ASSOCIATED', primary: true, contact: { id: contact.id }, linkable: { __typename: 'Lead', id: lead.id, leadOrganization: 'Prospect Ltd' } },
      { linkableType: 'SITE', relationshipType: 'TECHNICAL', primary: true, contact: { id: contact.id }, linkable: { __typename: 'Site', id: site.id, siteName: 'Depot', customer: { id: customer.id } } },
    ]);

    const siteSide = ok(await gql(`query($id: ID!) { site(id: $id) { contacts { nodes { id } } primaryContact { id } contactLinkages { nodes { relationshipType } } } }`, { id: site.id })).site;
    expect(siteSide).toEqual({ contacts: { nodes: [{ id: contact.id }] }, primaryContact: { id: contact.id }, contactLinkages: { nodes: [{ relationshipType: 'TECHNICAL' }] } });
  });

  it('a soft-deleted customer leaves its contacts without its linkage and its sites unreachable', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Doomed Ltd');
    const keep = await make.customer('Kept Ltd');
    const site = await make.site(customer, 'CUSTOMER', 'Doomed site');
    const contact = await make.contact({ firstName: 'Dee', linkableId: keep.id, linkableType: 'CUSTOMER' });
    await make.linked(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });
    const current = ok(await gql(`query($id: ID!) { customer(id: $id) { etag } }`, { id: customer.id })).customer;
    succeeded(await gql(`mutation($id: ID!, $m: String) { deleteCustomer(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: customer.id, m: current.etag }));

    const read = ok(await gql(`query($id: ID!) { contact(id: $id) { linkages { nodes { linkableId linkable { ... on Customer { id } } } } } }`, { id: contact.id })).contact;
    expect(read.linkages.nodes).toEqual([{ linkableId: keep.id, linkable: { id: keep.id } }]);
    const sites = ok(await gql(`{ sites(first: 100) { nodes { id } } }`)).sites.nodes;
    expect(sites.map((s: { id: string }) => s.id)).not.toContain(site.id);
  });
});

describe('lead relations', () => {
  it('Lead.sites, Lead.contacts and Site.lead; Lead.convertedCustomer after conversion', async () => {
    const { gql, make } = await graphqlTenant(t);
    const lead = await make.lead({ organization: 'Lead Co', firstName: 'Lou' });
    const site = await make.site(lead, 'LEAD', 'Lead HQ');
    const contact = await make.contact({ firstName: 'Lia', linkableId: lead.id, linkableType: 'LEAD' });

    const LEAD = `query($id: ID!) { lead(id: $id) { sites { nodes { id lead { id } customer { id } } } contacts { nodes { id } } primaryContact { id } convertedCustomer { id organization } } }`;
    expect(ok(await gql(LEAD, { id: lead.id })).lead).toEqual({
      sites: { nodes: [{ id: site.id, lead: { id: lead.id }, customer: null }] },
      contacts: { nodes: [{ id: contact.id }] },
      primaryContact: { id: contact.id },
      convertedCustomer: null,
    });

    const converted = ok(await gql(`mutation($id: ID!) { convertLead(id: $id) { customer { id } } }`, { id: lead.id })).convertLead;
    const customerId = converted.customer.id;
    expect(ok(await gql(LEAD, { id: lead.id })).lead).toEqual({ sites: { nodes: [] }, contacts: { nodes: [] }, primaryContact: null, convertedCustomer: { id: customerId, organization: 'Lead Co' } });
    expect(ok(await gql(`query($id: ID!) { site(id: $id) { lead { id } customer { id } } }`, { id: site.id })).site).toEqual({ lead: null, customer: { id: customerId } });
  });
});

describe('tenancy', () => {
  it("never shows another account's rows, even rows that point at the caller's records", async () => {
    const a = await graphqlTenant(t);
    const b = await graphqlTenant(t);
    const customer = await a.make.customer('Tenant A Ltd');
    const aSite = await a.make.site(customer, 'CUSTOMER', 'A site');
    const bCustomer = await b.make.customer('Tenant B Ltd');
    const bSite = await b.make.site(bCustomer, 'CUSTOMER', 'B site');
    const bContact = await b.make.contact({ firstName: 'Bea', linkableId: bCustomer.id, linkableType: 'CUSTOMER' });
    // Rows of account B forged to point at account A's customer (the API refuses to make such rows).
    const prisma = t.app.domain.prisma;
    await prisma.$executeRawUnsafe(`UPDATE sites SET customer_id = $1::uuid, siteable_id = $1::uuid WHERE id = $2::uuid`, customer.id, bSite.id);
    await prisma.$executeRawUnsafe(`UPDATE contact_linkages SET linkable_id = $1::uuid WHERE contact_id = $2::uuid`, customer.id, bContact.id);

    const tree = ok(await a.gql(CUSTOMER_TREE, { id: customer.id })).customer;
    expect(tree.sites.nodes.map((s: { id: string }) => s.id)).toEqual([aSite.id]);
    expect(tree.contacts.nodes).toEqual([]);
    expect(tree.contactLinkages.nodes).toEqual([]);
    expect(tree.primaryContact).toBeNull();

    // Seen from B, the forged rows lead nowhere.
    const fromB = ok(await b.gql(`query($id: ID!) { site(id: $id) { siteableId customer { id } } }`, { id: bSite.id })).site;
    expect(fromB).toEqual({ siteableId: customer.id, customer: null });
    const linkages = ok(await b.gql(`query($id: ID!) { contact(id: $id) { linkages { nodes { linkableId linkable { __typename } } } } }`, { id: bContact.id })).contact.linkages;
    expect(linkages.nodes).toEqual([{ linkableId: customer.id, linkable: null }]);
  });
});

describe('wire shapes', () => {
  it('a record created over REST reads the same over GraphQL, by id and through relations', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const rest = t.client(tenant.token);
    const customer = await rest.post('/customers', { customer: { organization: 'Rest Made Ltd' } });
    expect(customer.status, customer.text).toBe(201);
    const customerId = customer.body.data.id;
    const site = await rest.post('/sites', {
      site: { siteable_id: customerId, siteable_type: 'Customer', site_name: 'Plant', street: '9 Mill Rd', city: 'Leeds', state: 'WY', zip_code: 'LS1', latitude: 53.8, longitude: -1.55 },
    });
    expect(site.status, site.text).toBe(201);
    const contact = await rest.post('/contacts', {
      contact: { first_name: 'Rae', email: 'rae@example.com', linkable_id: customerId, linkable_type: 'Customer', phone_numbers: [{ number: '+44 113 0000', kind: 'office', extension: '12' }] },
    });
    expect(contact.status, contact.text).toBe(201);
    const linkages = await rest.get(`/contacts/${contact.body.data.id}/linkages`);

    const read = ok(
      await gql(
        `query($customer: ID!, $site: ID!, $contact: ID!) {
          site(id: $site) { ${SITE_FIELDS} etag }
          contact(id: $contact) { ${CONTACT_FIELDS} etag linkages { nodes { ${LINKAGE_FIELDS} } } }
          customer(id: $customer) { sites { nodes { ${SITE_FIELDS} } } contacts { nodes { ${CONTACT_FIELDS} } } contactLinkages { nodes { ${LINKAGE_FIELDS} } } } }`,
        { customer: customerId, site: site.body.data.id, contact: contact.body.data.id },
      ),
    );
    expect(read.site).toEqual({ ...(camelRecord(site.body.data) as object), etag: site.headers.get('etag') });
    const { linkages: contactLinkages, ...contactRecord } = read.contact;
    expect(contactRecord).toEqual({ ...(graphqlRecord(contact.body.data) as object), etag: contact.headers.get('etag') });
    expect(contactRecord.phoneNumbers.nodes).toHaveLength(1);
    expect(contactLinkages).toEqual({ nodes: camelRecord(linkages.body.data) });
    expect(read.customer.sites).toEqual({ nodes: [camelRecord(site.body.data)] });
    expect(read.customer.contacts).toEqual({ nodes: [graphqlRecord(contact.body.data)] });
    expect(read.customer.contactLinkages).toEqual({ nodes: camelRecord(linkages.body.data) });
  });
});

describe('relations derived from references', () => {
  it('every field that references a record is a relation to it: Customer.assignee, CustomerItemPrice.customer and .item', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const customer = ok(await gql(`mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { customer { id } } }`, { i: { organization: 'Priced Ltd', assigneeId: Number(tenant.userId) } })).createCustomer.customer;
    const item = ok(await gql(`mutation { createItem(input: { name: "Filter", itemType: MATERIAL, unitPrice: "12" }) { item { id } } }`)).createItem.item;
    const price = ok(
      await gql(`mutation($c: ID!, $i: ID!) { createCustomerItemPrice(input: { customerId: $c, itemId: $i, unitPrice: "9.5" }) { customerItemPrice { id } } }`, { c: customer.id, i: item.id }),
    ).createCustomerItemPrice.customerItemPrice;

    const read = ok(await gql(`query($id: ID!) { customerItemPrice(id: $id) { unitPrice customer { id organization assignee { id role } } item { id name } } }`, { id: price.id }));
    expect(read.customerItemPrice).toEqual({
      unitPrice: '9.5000',
      customer: { id: customer.id, organization: 'Priced Ltd', assignee: { id: Number(tenant.userId), role: 'ADMIN' } },
      item: { id: item.id, name: 'Filter' },
    });
  });
});

describe('scopes', () => {
  it('a missing scope answers one error per field path pattern, with the rows it stands for, not one per row', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const customer = await make.customer('Many Jobs Ltd');
    const site = await make.site(customer, 'CUSTOMER', 'Depot');
    for (let i = 0; i < 3; i += 1) ok(await t.graphql(tenant.token)(`mutation($s: ID!) { createJob(input: { siteId: $s, title: "Visit" }) { job { id } } }`, { s: site.id }));
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });

    const res = await t.graphql(key.token)(`{ jobs(first: 10) { nodes { title customer { id } site { id } } } }`);
    expect(res.body.data.jobs.nodes).toEqual([0, 1, 2].map(() => ({ title: 'Visit', customer: null, site: null })));
    expect(res.body.errors).toHaveLength(2);
    expect(res.body.errors!.map((error) => error.extensions)).toEqual([
      expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'customers:read', pathPattern: ['jobs', 'nodes', '*', 'customer'], count: 3 }),
      expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'sites:read', pathPattern: ['jobs', 'nodes', '*', 'site'], count: 3 }),
    ]);
    expect(res.body.errors![0].path).toEqual(['jobs', 'nodes', 0, 'customer']);
  });

  it('a relation needs the read scope of the records it returns; the rest of the result stands', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const customer = await make.customer('Scoped Ltd');
    await make.site(customer, 'CUSTOMER', 'Scoped site');
    await make.contact({ firstName: 'Sam', linkableId: customer.id, linkableType: 'CUSTOMER' });
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read', 'contacts:read'] });
    const limited = t.graphql(key.token);

    const res = await limited(`query($id: ID!) { customer(id: $id) { organization sites { nodes { id } } contacts { nodes { firstName linkages { nodes { linkable { __typename } } } } } } }`, { id: customer.id });
    expect(res.status).toBe(200);
    expect(res.body.data.customer).toEqual({
      organization: 'Scoped Ltd',
      sites: null,
      contacts: { nodes: [{ firstName: 'Sam', linkages: { nodes: [{ linkable: { __typename: 'Customer' } }] } }] },
    });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({
      path: ['customer', 'sites'],
      extensions: { code: 'auth.scope_missing', requiredScope: 'sites:read' },
    });

    const contactsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['contacts:read'] });
    const fromContacts = await t.graphql(contactsOnly.token)(`{ contacts { nodes { firstName linkages { nodes { linkableType linkable { __typename } } } } } }`);
    expect(fromContacts.body.data.contacts.nodes).toEqual([{ firstName: 'Sam', linkages: { nodes: [{ linkableType: 'CUSTOMER', linkable: null }] } }]);
    expect(fromContacts.body.errors![0]).toMatchObject({
      path: ['contacts', 'nodes', 0, 'linkages', 'nodes', 0, 'linkable'],
      extensions: { code: 'auth.scope_missing', requiredScope: 'customers:read' },
    });

    const sitesOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['sites:read'] });
    const fromSite = await t.graphql(sitesOnly.token)(`{ sites { nodes { siteName customer { id } } } }`);
    expect(fromSite.body.data.sites.nodes).toEqual([{ siteName: 'Scoped site', customer: null }]);
    expect(codeOf(fromSite)).toBe('auth.scope_missing');
    expect(fromSite.body.errors![0].extensions).toMatchObject({ requiredScope: 'customers:read' });
  });
});
