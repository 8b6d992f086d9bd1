import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { codeOf, CONTACT_FIELDS, expectError, expectNotInEnum, graphqlTenant, ok, SITE_FIELDS, USER_ERRORS } from '../helpers/graphql.ts';

// Sites and contacts written over GraphQL: the generated create/update mutations carry the issue-3 rules
// (siteable pair immutable, position at the end, phone numbers as a snapshot, linking on create).

const t = useTestApp({ rateLimits: highRateLimits });


const UPDATE_SITE = `mutation($id: ID!, $m: String, $input: UpdateSiteInput!) { updateSite(id: $id, ifMatch: $m, input: $input) { etag site { ${SITE_FIELDS} } ${USER_ERRORS} } }`;
const UPDATE_CONTACT = `mutation($id: ID!, $m: String, $input: UpdateContactInput!) { updateContact(id: $id, ifMatch: $m, input: $input) { etag contact { ${CONTACT_FIELDS} } ${USER_ERRORS} } }`;

describe('sites', () => {
  it('createSite puts the site at the end of its parent and updateSite keeps siteableId immutable', async () => {
    const { gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Parent Ltd');
    const other = await make.customer('Other Parent Ltd');
    const first = await make.site(customer, 'CUSTOMER', 'One', { latitude: 51.5, longitude: -0.12, zipCode: 'EC1' });
    const second = await make.site(customer, 'CUSTOMER', 'Two');
    expect(first.site).toMatchObject({ position: 0, siteableId: customer.id, siteableType: 'CUSTOMER', latitude: 51.5, longitude: -0.12, zipCode: 'EC1', customFields: {} });
    expect(second.site.position).toBe(1);

    const moved = await gql(UPDATE_SITE, { id: first.id, m: first.etag, input: { siteableId: other.id } });
    expect(moved.body.data).toEqual({ updateSite: { etag: null, site: null, userErrors: [expect.objectContaining({ code: 'validation.failed' })] } });
    expectError(moved, 'validation.failed', [['input', 'siteableId']]);
    const retyped = await gql(UPDATE_SITE, { id: first.id, m: first.etag, input: { siteableType: 'LEAD' } });
    expectError(retyped, 'validation.failed', [['input', 'siteableType']]);

    // The current values are accepted (not a change), with other fields.
    const updated = ok(await gql(UPDATE_SITE, { id: first.id, m: first.etag, input: { siteableId: customer.id, siteableType: 'CUSTOMER', city: 'London', zipCode: null } }));
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
    const create = (extra: object) => gql(`mutation($input: CreateSiteInput!) { createSite(input: $input) { site { id } ${USER_ERRORS} } }`, { input: { ...input, ...extra } });
    for (const parent of [{ siteableId: foreign.id, siteableType: 'CUSTOMER' }, { siteableId: mine.id, siteableType: 'LEAD' }]) {
      expectError(await create(parent), 'validation.failed', [['input', 'siteableId']]);
    }
    // siteableType is the SiteableType enum: any other value is refused before the service runs.
    expectNotInEnum(await create({ siteableId: mine.id, siteableType: 'SITE' }), 'SiteableType', 'SITE');
    expectNotInEnum(await create({ siteableId: mine.id, siteableType: 'Customer' }), 'SiteableType', 'Customer');
    // A required field missing is a GraphQL validation error (non-null input field), as for customers.
    const missing = await gql(`mutation { createSite(input: { siteName: "X", street: "1", city: "C", siteableId: "${mine.id}", siteableType: CUSTOMER }) { site { id } } }`);
    expect(missing.body.errors![0].extensions!.code).toBe('graphql.validation_failed');
  });
});

describe('contacts', () => {
  it('createContact with phoneNumbers suppresses the automatic entry from mobile; without them mobile makes one', async () => {
    const { make } = await graphqlTenant(t);
    const explicit = await make.contact({ firstName: 'Pat', mobile: '+1 555 0001', phoneNumbers: [{ number: '+1 555 0002', kind: 'OFFICE', extension: '7' }, { number: '+1 555 0003' }] });
    expect(explicit.contact.phoneNumbers.nodes).toEqual([
      { id: expect.any(String), number: '+1 555 0002', kind: 'OFFICE', extension: '7' },
      { id: expect.any(String), number: '+1 555 0003', kind: 'MOBILE', extension: null },
    ]);
    const legacy = await make.contact({ firstName: 'Lee', mobile: '+1 555 0004' });
    expect(legacy.contact.phoneNumbers.nodes).toEqual([{ id: expect.any(String), number: '+1 555 0004', kind: 'MOBILE', extension: null }]);
    const none = await make.contact({ firstName: 'Nor', mobile: '+1 555 0005', phoneNumbers: [] });
    expect(none.contact.phoneNumbers.nodes).toEqual([]);
  });

  it('updateContact replaces phoneNumbers as a snapshot by id, keeps them when omitted, and changes the ETag', async () => {
    const { gql, make } = await graphqlTenant(t);
    const created = await make.contact({ firstName: 'Snap', phoneNumbers: [{ number: '111' }, { number: '222', kind: 'HOME' }] });
    const [one, two] = created.contact.phoneNumbers.nodes;

    const kept = ok(await gql(UPDATE_CONTACT, { id: created.id, m: created.etag, input: { title: 'CTO' } })).updateContact;
    expect(kept.contact.phoneNumbers).toEqual(created.contact.phoneNumbers);

    const same = ok(await gql(UPDATE_CONTACT, { id: created.id, m: kept.etag, input: { phoneNumbers: [{ id: one.id, number: '111' }, { id: two.id, number: '222', kind: 'HOME' }] } })).updateContact;
    expect(same.etag).not.toBe(kept.etag);
    expect(same.contact.phoneNumbers).toEqual(created.contact.phoneNumbers);

    const replaced = ok(await gql(UPDATE_CONTACT, { id: created.id, m: same.etag, input: { phoneNumbers: [{ id: two.id, number: '333' }, { number: '444', kind: 'FAX' }] } })).updateContact;
    expect(replaced.contact.phoneNumbers.nodes).toEqual([
      { id: two.id, number: '333', kind: 'HOME', extension: null },
      { id: expect.any(String), number: '444', kind: 'FAX', extension: null },
    ]);

    const unknown = await gql(UPDATE_CONTACT, { id: created.id, m: replaced.etag, input: { phoneNumbers: [{ id: one.id, number: '111' }] } });
    expectError(unknown, 'validation.failed', [['input', 'phoneNumbers', '0', 'id']]);
  });

  it('createContact with linkableId links it (first link: primary) and shows the main linkage', async () => {
    const { gql, make } = await graphqlTenant(t);
    const other = await graphqlTenant(t);
    const customer = await make.customer('Linking Ltd');
    const created = await make.contact({ firstName: 'Lin', linkableId: customer.id, linkableType: 'CUSTOMER' });
    expect(created.contact).toMatchObject({ linkableId: customer.id, linkableType: 'CUSTOMER' });
    const linkages = ok(await gql(`query($id: ID!) { contact(id: $id) { linkages { nodes { linkableId linkableType primary } } } }`, { id: created.id })).contact.linkages.nodes;
    expect(linkages).toEqual([{ linkableId: customer.id, linkableType: 'CUSTOMER', primary: true }]);

    const create = (input: object) => gql(`mutation($input: CreateContactInput!) { createContact(input: $input) { contact { id } ${USER_ERRORS} } }`, { input: { firstName: 'X', ...input } });
    const half = await create({ linkableId: customer.id });
    expectError(half, 'validation.failed', [['input', 'linkableType']]);
    const foreign = await create({ linkableId: (await other.make.customer('Far Ltd')).id, linkableType: 'CUSTOMER' });
    expectError(foreign, 'validation.failed', [['input', 'linkableId']]);
    // Nothing was created by the refused requests.
    expect(ok(await gql(`{ contacts { nodes { firstName } } }`)).contacts.nodes).toEqual([{ firstName: 'Lin' }]);
  });

  it('a contact created over GraphQL reads the same over REST', async () => {
    const { tenant, make } = await graphqlTenant(t);
    const customer = await make.customer('Mirror Ltd');
    const created = await make.contact({ firstName: 'Mir', email: 'mir@example.com', linkableId: customer.id, linkableType: 'CUSTOMER', phoneNumbers: [{ number: '5', kind: 'OTHER' }] });
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
