import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { codeOf, CONTACT_FIELDS, graphqlTenant, ok, SITE_FIELDS } from '../helpers/graphql.ts';

// Sites and contacts written over GraphQL: the generated create/update mutations carry the issue-3 rules
// (siteable pair immutable, position at the end, phone numbers as a snapshot, linking on create).

const t = useTestApp({ rateLimits: highRateLimits });


const UPDATE_SITE = `mutation($id: ID!, $m: String, $input: UpdateSiteInput!) { updateSite(id: $id, ifMatch: $m, input: $input) { etag site { ${SITE_FIELDS} } } }`;
const UPDATE_CONTACT = `mutation($id: ID!, $m: String, $input: UpdateContactInput!) { updateContact(id: $id, ifMatch: $m, input: $input) { etag contact { ${CONTACT_FIELDS} } } }`;

describe('sites', () => {
  it('createSite puts the site at the end of its parent and updateSite keeps siteableId immutable', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Parent Ltd');
    const other = await make.customer('Other Parent Ltd');
    const first = await make.site(customer, 'Customer', 'One', { latitude: 51.5, longitude: -0.12, zipCode: 'EC1' });
    const second = await make.site(customer, 'Customer', 'Two');
    expect(first.site).toMatchObject({ position: 0, siteableId: customer.id, siteableType: 'Customer', latitude: 51.5, longitude: -0.12, zipCode: 'EC1', customFields: {} });
    expect(second.site.position).toBe(1);

    const moved = await gql(UPDATE_SITE, { id: first.id, m: first.etag, input: { siteableId: other.id } });
    expect(moved.body.data).toEqual({ updateSite: null });
    expect(moved.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', status: 422, errors: { siteableId: [expect.any(String)] } });
    const retyped = await gql(UPDATE_SITE, { id: first.id, m: first.etag, input: { siteableType: 'Lead' } });
    expect(retyped.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', errors: { siteableType: [expect.any(String)] } });

    // The current values are accepted (not a change), with other fields.
    const updated = ok(await gql(UPDATE_SITE, { id: first.id, m: first.etag, input: { siteableId: customer.id, siteableType: 'Customer', city: 'London', zipCode: null } }));
    expect(updated.updateSite.site).toMatchObject({ siteableId: customer.id, city: 'London', zipCode: null, siteName: 'One' });
    expect(updated.updateSite.etag).not.toBe(first.etag);

    const listed = ok(await gql(`query($c: ID!) { sites(filter: { customerId: $c }, sort: { field: POSITION }) { nodes { id } } }`, { c: customer.id })).sites.nodes;
    expect(listed).toEqual([{ id: first.id }, { id: second.id }]);
  });

  it("createSite refuses a parent of another account or of the wrong type, naming siteableId", async () => {
    const { gql, make } = await graphqlTenant(t);
    const other = await graphqlTenant(t);
    const foreign = await other.make.customer('Foreign Parent Ltd');
    const mine = await make.customer('Mine Ltd');
    const input = { siteName: 'X', street: '1 St', city: 'C', state: 'S' };
    const create = (extra: object) => gql(`mutation($input: CreateSiteInput!) { createSite(input: $input) { site { id } } }`, { input: { ...input, ...extra } });
    for (const parent of [{ siteableId: foreign.id, siteableType: 'Customer' }, { siteableId: mine.id, siteableType: 'Lead' }]) {
      const res = await create(parent);
      expect(res.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', errors: { siteableId: [expect.any(String)] } });
    }
    const badType = await create({ siteableId: mine.id, siteableType: 'Site' });
    expect(badType.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', errors: { siteableType: [expect.any(String)] } });
    // A required field missing is a GraphQL validation error (non-null input field), as for customers.
    const missing = await gql(`mutation { createSite(input: { siteName: "X", street: "1", city: "C", siteableId: "${mine.id}", siteableType: "Customer" }) { site { id } } }`);
    expect(missing.body.errors![0].extensions!.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('contacts', () => {
  it('createContact with phoneNumbers suppresses the automatic entry from mobile; without them mobile makes one', async () => {
    const { make } = await graphqlTenant(t);
    const explicit = await make.contact({ firstName: 'Pat', mobile: '+1 555 0001', phoneNumbers: [{ number: '+1 555 0002', kind: 'office', extension: '7' }, { number: '+1 555 0003' }] });
    expect(explicit.contact.phoneNumbers.nodes).toEqual([
      { id: expect.any(String), number: '+1 555 0002', kind: 'office', extension: '7' },
      { id: expect.any(String), number: '+1 555 0003', kind: 'mobile', extension: null },
    ]);
    const legacy = await make.contact({ firstName: 'Lee', mobile: '+1 555 0004' });
    expect(legacy.contact.phoneNumbers.nodes).toEqual([{ id: expect.any(String), number: '+1 555 0004', kind: 'mobile', extension: null }]);
    const none = await make.contact({ firstName: 'Nor', mobile: '+1 555 0005', phoneNumbers: [] });
    expect(none.contact.phoneNumbers.nodes).toEqual([]);
  });

  it('updateContact replaces phoneNumbers as a snapshot by id, keeps them when omitted, and changes the ETag', async () => {
    const { gql, make } = await graphqlTenant(t);
    const created = await make.contact({ firstName: 'Snap', phoneNumbers: [{ number: '111' }, { number: '222', kind: 'home' }] });
    const [one, two] = created.contact.phoneNumbers.nodes;

    const kept = ok(await gql(UPDATE_CONTACT, { id: created.id, m: created.etag, input: { title: 'CTO' } })).updateContact;
    expect(kept.contact.phoneNumbers).toEqual(created.contact.phoneNumbers);

    const same = ok(await gql(UPDATE_CONTACT, { id: created.id, m: kept.etag, input: { phoneNumbers: [{ id: one.id, number: '111' }, { id: two.id, number: '222', kind: 'home' }] } })).updateContact;
    expect(same.etag).not.toBe(kept.etag);
    expect(same.contact.phoneNumbers).toEqual(created.contact.phoneNumbers);

    const replaced = ok(await gql(UPDATE_CONTACT, { id: created.id, m: same.etag, input: { phoneNumbers: [{ id: two.id, number: '333' }, { number: '444', kind: 'fax' }] } })).updateContact;
    expect(replaced.contact.phoneNumbers.nodes).toEqual([
      { id: two.id, number: '333', kind: 'home', extension: null },
      { id: expect.any(String), number: '444', kind: 'fax', extension: null },
    ]);

    const unknown = await gql(UPDATE_CONTACT, { id: created.id, m: replaced.etag, input: { phoneNumbers: [{ id: one.id, number: '111' }] } });
    expect(unknown.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', errors: { 'phoneNumbers.0.id': [expect.any(String)] } });
  });

  it('createContact with linkableId links it (first link: primary) and shows the main linkage', async () => {
    const { gql, make } = await graphqlTenant(t);
    const other = await graphqlTenant(t);
    const customer = await make.customer('Linking Ltd');
    const created = await make.contact({ firstName: 'Lin', linkableId: customer.id, linkableType: 'Customer' });
    expect(created.contact).toMatchObject({ linkableId: customer.id, linkableType: 'Customer' });
    const linkages = ok(await gql(`query($id: ID!) { contact(id: $id) { linkages { nodes { linkableId linkableType primary } } } }`, { id: created.id })).contact.linkages.nodes;
    expect(linkages).toEqual([{ linkableId: customer.id, linkableType: 'Customer', primary: true }]);

    const create = (input: object) => gql(`mutation($input: CreateContactInput!) { createContact(input: $input) { contact { id } } }`, { input: { firstName: 'X', ...input } });
    const half = await create({ linkableId: customer.id });
    expect(half.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', errors: { linkableType: [expect.any(String)] } });
    const foreign = await create({ linkableId: (await other.make.customer('Far Ltd')).id, linkableType: 'Customer' });
    expect(foreign.body.errors![0].extensions).toMatchObject({ code: 'validation.failed', errors: { linkableId: [expect.any(String)] } });
    // Nothing was created by the refused requests.
    expect(ok(await gql(`{ contacts { nodes { firstName } } }`)).contacts.nodes).toEqual([{ firstName: 'Lin' }]);
  });

  it('a contact created over GraphQL reads the same over REST', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const customer = await make.customer('Mirror Ltd');
    const created = await make.contact({ firstName: 'Mir', email: 'mir@example.com', linkableId: customer.id, linkableType: 'Customer', phoneNumbers: [{ number: '5', kind: 'other' }] });
    const rest = await t.client(tenant.token).get(`/contacts/${created.id}`);
    expect(rest.headers.get('etag')).toBe(created.etag);
    expect(rest.body.data).toMatchObject({ first_name: 'Mir', linkable_id: customer.id, linkable_type: 'Customer', phone_numbers: [{ id: created.contact.phoneNumbers.nodes[0].id, number: '5', kind: 'other', extension: null }] });
  });

  it('reads need contacts:read', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const created = await make.contact({ firstName: 'Hid' });
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const res = await t.graphql(key.token)(`query($id: ID!) { contact(id: $id) { id } }`, { id: created.id });
    expect(codeOf(res)).toBe('auth.scope_missing');
  });
});
