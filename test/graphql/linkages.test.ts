import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { camelRecord, codeOf, expectError, expectNotInEnum, type Gql, graphqlTenant, LINKAGE_FIELDS, ok, records, USER_ERRORS } from '../helpers/graphql.ts';

// Contact linkages and lead conversion over GraphQL: the spec's linkage rules 1–4 (and our answer to rule 5),
// through the same services and with the same error codes as REST (a mutation's input errors in its payload's
// userErrors).

const t = useTestApp({ rateLimits: highRateLimits });


/** The record's linkages as { contactId: primary }. */
async function primaries(gql: Gql, type: 'customer' | 'lead' | 'site', id: string): Promise<Record<string, boolean>> {
  const data = ok(await gql(`query($id: ID!) { ${type}(id: $id) { contactLinkages(first: 100) { nodes { contactId primary } } } }`, { id }));
  return Object.fromEntries(data[type].contactLinkages.nodes.map((l: { contactId: string; primary: boolean }) => [l.contactId, l.primary]));
}

describe('linkContact, updateContactLinkage, unlinkContact, contactLinkages', () => {
  it('rule 1: the first contact linked to a record becomes its primary, whatever primary says', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('First Ltd');
    const contact = await make.contact({ firstName: 'Fay' });
    const linkage = await make.linked(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER', primary: false });
    expect(linkage).toMatchObject({ contactId: contact.id, linkableId: customer.id, linkableType: 'CUSTOMER', relationshipType: 'ASSOCIATED', primary: true });
    const listed = ok(await gql(`query($id: ID!) { contactLinkages(contactId: $id) { ${LINKAGE_FIELDS} } }`, { id: contact.id })).contactLinkages;
    expect(listed).toEqual([linkage]);
  });

  it('rule 2: later links are not primary unless primary is true, which demotes the previous primary', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Second Ltd');
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map((firstName) => make.contact({ firstName })));
    await make.linked(a.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });
    const second = await make.linked(b.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });
    expect(second.primary).toBe(false);
    const third = await make.linked(c.id, { linkableId: customer.id, linkableType: 'CUSTOMER', primary: true, relationshipType: 'DECISION_MAKER' });
    expect(third).toMatchObject({ primary: true, relationshipType: 'DECISION_MAKER' });
    expect(await primaries(gql, 'customer', customer.id)).toEqual({ [a.id]: false, [b.id]: false, [c.id]: true });
  });

  it('rule 3: primary true moves the primary; primary false on the primary is 409 contact.primary_linkage', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Third Ltd');
    const a = await make.contact({ firstName: 'A', linkableId: customer.id, linkableType: 'CUSTOMER' });
    const b = await make.contact({ firstName: 'B' });
    const aLink = ok(await gql(`query($id: ID!) { contactLinkages(contactId: $id) { id } }`, { id: a.id })).contactLinkages[0];
    const bLink = await make.linked(b.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });

    const refused = await make.updateLinkage(a.id, aLink.id, { primary: false });
    expect(refused.body.data).toEqual({ updateContactLinkage: { linkage: null, userErrors: [{ field: null, message: expect.any(String), code: 'contact.primary_linkage' }] } });
    expectError(refused, 'contact.primary_linkage', [null]);
    expect(await primaries(gql, 'customer', customer.id)).toEqual({ [a.id]: true, [b.id]: false });

    const unchanged = ok(await make.updateLinkage(b.id, bLink.id, { primary: false, relationshipType: 'BILLING' })).updateContactLinkage.linkage;
    expect(unchanged).toMatchObject({ id: bLink.id, primary: false, relationshipType: 'BILLING' });

    const promoted = ok(await make.updateLinkage(b.id, bLink.id, { primary: true })).updateContactLinkage.linkage;
    expect(promoted).toMatchObject({ id: bLink.id, primary: true, relationshipType: 'BILLING' });
    expect(await primaries(gql, 'customer', customer.id)).toEqual({ [a.id]: false, [b.id]: true });
    expect(ok(await gql(`query($id: ID!) { customer(id: $id) { primaryContact { id } } }`, { id: customer.id })).customer.primaryContact).toEqual({ id: b.id });
  });

  it("rule 4: unlinking the primary's linkage is 409 contact.primary_linkage; another linkage is removed and the contact stays", async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Fourth Ltd');
    const a = await make.contact({ firstName: 'A', linkableId: customer.id, linkableType: 'CUSTOMER' });
    const b = await make.contact({ firstName: 'B' });
    const aLink = ok(await gql(`query($id: ID!) { contactLinkages(contactId: $id) { id } }`, { id: a.id })).contactLinkages[0];
    const bLink = await make.linked(b.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });

    const refused = await make.unlink(a.id, aLink.id);
    expectError(refused, 'contact.primary_linkage', [null]);
    expect(refused.body.data).toEqual({ unlinkContact: { deletedId: null, userErrors: [{ field: null, message: expect.any(String), code: 'contact.primary_linkage' }] } });

    expect(ok(await make.unlink(b.id, bLink.id))).toEqual({ unlinkContact: { deletedId: bLink.id, userErrors: [] } });
    expect(await primaries(gql, 'customer', customer.id)).toEqual({ [a.id]: true });
    expect(ok(await gql(`query($id: ID!) { contact(id: $id) { id linkages { nodes { id } } } }`, { id: b.id })).contact).toEqual({ id: b.id, linkages: { nodes: [] } });
    expectError(await make.unlink(b.id, bLink.id), 'resource.not_found', [['linkageId']]);
  });

  it('deleteContact is 409 contact.has_linkages while a linkage exists', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Holding Ltd');
    const contact = await make.contact({ firstName: 'Held', linkableId: customer.id, linkableType: 'CUSTOMER' });
    const res = await gql(`mutation($id: ID!, $m: String) { deleteContact(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: contact.id, m: contact.etag });
    expectError(res, 'contact.has_linkages', [null]);
  });

  it('refuses bad bodies with validation.failed naming the camelCase field, and ids of other accounts', async () => {
    const { gql, make } = await graphqlTenant(t);
    const other = await graphqlTenant(t);
    const customer = await make.customer('Valid Ltd');
    const foreign = await other.make.customer('Foreign Ltd');
    const foreignContact = await other.make.contact({ firstName: 'Foreign' });
    const contact = await make.contact({ firstName: 'Val' });

    // linkableType and relationshipType are enums (LinkableType, RelationshipType): other values never reach the service.
    expectNotInEnum(await make.link(contact.id, { linkableId: customer.id, linkableType: 'JOB' }), 'LinkableType', 'JOB');
    expectNotInEnum(await make.link(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER', relationshipType: 'friend' }), 'RelationshipType', 'friend');

    const foreignRecord = await make.link(contact.id, { linkableId: foreign.id, linkableType: 'CUSTOMER' });
    expectError(foreignRecord, 'validation.failed', [['input', 'linkableId']]);

    expectError(await make.link(foreignContact.id, { linkableId: customer.id, linkableType: 'CUSTOMER' }), 'resource.not_found', [['contactId']]);
    expectError(await make.link(randomUUID(), { linkableId: customer.id, linkableType: 'CUSTOMER' }), 'resource.not_found', [['contactId']]);
    const foreignList = await gql(`query($id: ID!) { contactLinkages(contactId: $id) { id } }`, { id: foreignContact.id });
    expect(foreignList.body.data).toEqual({ contactLinkages: null });
    expect(codeOf(foreignList)).toBe('resource.not_found');

    const linkage = await make.linked(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });
    const twice = await make.link(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });
    expectError(twice, 'validation.failed', [['input', 'linkableId']]);
    const badPrimary = await make.updateLinkage(contact.id, linkage.id, { primary: null });
    expectError(badPrimary, 'validation.failed', [['input', 'primary']]);
  });

  it('needs contacts:write to change linkages and contacts:read to list them', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const customer = await make.customer('Scope Ltd');
    const contact = await make.contact({ firstName: 'Sc' });
    const readOnly = t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['contacts:read'] })).token);
    const res = await records(readOnly).link(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER' });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'auth.scope_missing', requiredScope: 'contacts:write' });
    expect(ok(await readOnly(`query($id: ID!) { contactLinkages(contactId: $id) { id } }`, { id: contact.id })).contactLinkages).toEqual([]);
    const none = t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] })).token);
    const listed = await none(`query($id: ID!) { contactLinkages(contactId: $id) { id } }`, { id: contact.id });
    expect(listed.body.errors![0].extensions).toMatchObject({ code: 'auth.scope_missing', requiredScope: 'contacts:read' });
  });

  it('a linkage written over GraphQL reads the same over REST', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const customer = await make.customer('Same Ltd');
    const contact = await make.contact({ firstName: 'Same' });
    const linkage = await make.linked(contact.id, { linkableId: customer.id, linkableType: 'CUSTOMER', relationshipType: 'TECHNICAL' });
    const rest = await t.client(tenant.token).get(`/contacts/${contact.id}/linkages`);
    expect(rest.body).toEqual({ data: [expect.objectContaining({ id: linkage.id })], has_more: false, next_cursor: null });
    expect(camelRecord(rest.body.data[0])).toEqual(linkage);
  });

  it('selections after a mutation read the written state, also within one document', async () => {
    const { gql, make } = await graphqlTenant(t);
    const one = await make.customer('One Ltd');
    const two = await make.customer('Two Ltd');
    const contact = await make.contact({ firstName: 'Multi' });
    const res = ok(
      await gql(
        `mutation($contact: ID!, $one: ID!, $two: ID!) {
          a: linkContact(contactId: $contact, input: { linkableId: $one, linkableType: CUSTOMER }) { linkage { contact { linkages { nodes { linkableId } } } } }
          b: linkContact(contactId: $contact, input: { linkableId: $two, linkableType: CUSTOMER }) { linkage { contact { linkages { nodes { linkableId } } } } } }`,
        { contact: contact.id, one: one.id, two: two.id },
      ),
    );
    expect(res.a.linkage.contact.linkages.nodes).toEqual([{ linkableId: one.id }]);
    expect(res.b.linkage.contact.linkages.nodes).toEqual([{ linkableId: one.id }, { linkableId: two.id }]);
  });
});

const CONVERT = `mutation($id: ID!, $customer: ConvertLeadCustomerInput) { convertLead(id: $id, customer: $customer) {
  lead { id status convertedCustomerId convertedAt etag sites { nodes { id } } contacts { nodes { id } } }
  customer { id organization reference mainPhone etag sites { nodes { id siteableType siteableId lead { id } } } contacts { nodes { id linkableType linkableId } }
    contactLinkages { nodes { contactId primary relationshipType } } } ${USER_ERRORS} } }`;

describe('convertLead', () => {
  it("creates a customer from the lead and moves the lead's sites and linkages to it, primaries kept", async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const lead = await make.lead({ organization: 'Prospect Inc', phone: '+1 555 0199' });
    const siteA = await make.site(lead, 'LEAD', 'Prospect HQ');
    const siteB = await make.site(lead, 'LEAD', 'Prospect Yard');
    const primary = await make.contact({ firstName: 'Pia', linkableId: lead.id, linkableType: 'LEAD' });
    const other = await make.contact({ firstName: 'Oli' });
    await make.linked(other.id, { linkableId: lead.id, linkableType: 'LEAD', relationshipType: 'BILLING' });

    const converted = ok(await gql(CONVERT, { id: lead.id, customer: { reference: 'CRM-9' } })).convertLead;
    const customer = converted.customer;
    expect(customer).toMatchObject({ organization: 'Prospect Inc', reference: 'CRM-9', mainPhone: '+1 555 0199' });
    expect(customer.sites.nodes).toEqual([
      { id: siteA.id, siteableType: 'CUSTOMER', siteableId: customer.id, lead: null },
      { id: siteB.id, siteableType: 'CUSTOMER', siteableId: customer.id, lead: null },
    ]);
    expect(customer.contacts.nodes).toEqual([
      { id: primary.id, linkableType: 'CUSTOMER', linkableId: customer.id },
      { id: other.id, linkableType: 'CUSTOMER', linkableId: customer.id },
    ]);
    expect(customer.contactLinkages.nodes).toEqual([
      { contactId: primary.id, primary: true, relationshipType: 'ASSOCIATED' },
      { contactId: other.id, primary: false, relationshipType: 'BILLING' },
    ]);
    expect(converted.lead).toMatchObject({ id: lead.id, convertedCustomerId: customer.id, convertedAt: expect.any(String), sites: { nodes: [] }, contacts: { nodes: [] } });

    // The ETags given are the records' current ones.
    const rest = t.client(tenant.token);
    expect((await rest.get(`/leads/${lead.id}`)).headers.get('etag')).toBe(converted.lead.etag);
    expect((await rest.get(`/customers/${customer.id}`)).headers.get('etag')).toBe(customer.etag);
  });

  it('converts with no overrides, and a second conversion is 409 lead.already_converted', async () => {
    const { gql, make } = await graphqlTenant(t);
    const lead = await make.lead({ firstName: 'Ida', lastName: 'Solo' });
    const first = ok(await gql(CONVERT, { id: lead.id })).convertLead;
    expect(first.customer.organization).toBe('Ida Solo');
    const again = await gql(CONVERT, { id: lead.id });
    expect(again.body.data).toEqual({ convertLead: { lead: null, customer: null, userErrors: [{ field: null, message: expect.any(String), code: 'lead.already_converted' }] } });
    expectError(again, 'lead.already_converted', [null]);
  });

  it('refuses invalid overrides with validation.failed and converts nothing', async () => {
    const { gql, make } = await graphqlTenant(t);
    await make.customer('Taken Ltd');
    const lead = await make.lead({ organization: 'Free Ltd' });
    const site = await make.site(lead, 'LEAD', 'Stays');
    const res = await gql(CONVERT, { id: lead.id, customer: { organization: 'taken ltd' } });
    expectError(res, 'validation.failed', [['customer', 'organization']]);
    const after = ok(await gql(`query($id: ID!) { lead(id: $id) { convertedCustomerId sites { nodes { id } } } }`, { id: lead.id })).lead;
    expect(after).toEqual({ convertedCustomerId: null, sites: { nodes: [{ id: site.id }] } });
  });

  it('needs leads:write and customers:write; an unknown or foreign lead is resource.not_found', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const other = await graphqlTenant(t);
    const lead = await make.lead({ organization: 'Guarded Ltd' });
    const leadsOnly = t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['leads:write', 'leads:read'] })).token);
    const res = await leadsOnly(CONVERT, { id: lead.id });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'auth.scope_missing', requiredScope: 'customers:write' });
    const customersOnly = t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:write'] })).token);
    expect((await customersOnly(CONVERT, { id: lead.id })).body.errors![0].extensions).toMatchObject({ code: 'auth.scope_missing', requiredScope: 'leads:write' });
    expect(ok(await gql(`query($id: ID!) { lead(id: $id) { convertedCustomerId } }`, { id: lead.id })).lead.convertedCustomerId).toBeNull();

    expectError(await other.gql(CONVERT, { id: lead.id }), 'resource.not_found', [['id']]);
    expectError(await gql(CONVERT, { id: randomUUID() }), 'resource.not_found', [['id']]);
  });
});
