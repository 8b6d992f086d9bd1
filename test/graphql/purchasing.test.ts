import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Vendors over GraphQL: the generated type, list and mutations with userErrors, and the relations both ways
// between an item and its preferred vendor (each needing the read scope of what it returns).

const t = useTestApp({ rateLimits: highRateLimits });

const VENDOR_FIELDS = 'id name email paymentTermsDays city status labels customFields etag createdAt updatedAt';
const CREATE_VENDOR = `mutation($input: CreateVendorInput!) { createVendor(input: $input) { vendor { ${VENDOR_FIELDS} } ${USER_ERRORS} } }`;

describe('vendors over GraphQL', () => {
  it('createVendor, updateVendor and deleteVendor serve the record as REST does, with userErrors for a taken name', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const created = ok(await gql(CREATE_VENDOR, { input: { name: 'Graph Supply', email: 'gs@example.test', paymentTermsDays: 30, city: 'Reno' } })).createVendor;
    expect(created.userErrors).toEqual([]);
    const vendor = created.vendor;
    expect(vendor).toMatchObject({ name: 'Graph Supply', paymentTermsDays: 30, status: 'Active', labels: [], customFields: {} });
    const rest = await t.client(tenant.token).get(`/vendors/${vendor.id}`);
    expect(rest.body.data).toMatchObject({ id: vendor.id, name: 'Graph Supply', email: 'gs@example.test', payment_terms_days: 30, city: 'Reno', status: 'Active' });
    expect(vendor.etag).toBe(rest.headers.get('etag'));

    expectError(await gql(CREATE_VENDOR, { input: { name: 'GRAPH SUPPLY' } }), 'validation.failed', [['input', 'name']]);
    expectError(await gql(CREATE_VENDOR, { input: { name: 'Terms', paymentTermsDays: 400 } }), 'validation.failed', [['input', 'paymentTermsDays']]);

    const updated = ok(
      await gql(`mutation($id: ID!, $m: String) { updateVendor(id: $id, ifMatch: $m, input: { status: "Inactive", city: null }) { vendor { status city } etag ${USER_ERRORS} } }`, {
        id: vendor.id,
        m: vendor.etag,
      }),
    ).updateVendor;
    expect(updated).toMatchObject({ vendor: { status: 'Inactive', city: null }, userErrors: [] });
    const listed = ok(await gql(`{ vendors(filter: { status: "Inactive" }) { nodes { id } } }`)).vendors.nodes;
    expect(listed).toEqual([{ id: vendor.id }]);
    const deleted = ok(await gql(`mutation($id: ID!, $m: String) { deleteVendor(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: vendor.id, m: updated.etag })).deleteVendor;
    expect(deleted).toEqual({ deletedId: vendor.id, userErrors: [] });
    expectError(await gql(`query($id: ID!) { vendor(id: $id) { id } }`, { id: vendor.id }), 'resource.not_found', 404);
  });

  it('Item.preferredVendor and Vendor.items resolve both ways; each needs the read scope of what it returns', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const vendor = ok(await gql(CREATE_VENDOR, { input: { name: 'Valve World' } })).createVendor.vendor;
    const make = async (name: string, preferredVendorId?: string) =>
      ok(await gql(`mutation($input: CreateItemInput!) { createItem(input: $input) { item { id } ${USER_ERRORS} } }`, { input: { name, itemType: 'MATERIAL', unitPrice: '4', preferredVendorId } })).createItem.item.id;
    const valve = await make('Valve', vendor.id);
    const seal = await make('Seal', vendor.id);
    await make('Labour hour');
    const items = ok(await gql(`query($v: ID!) { items(filter: { preferredVendorId: $v }) { nodes { id name preferredVendor { id name } } } }`, { v: vendor.id })).items.nodes;
    expect(items).toEqual([
      { id: seal, name: 'Seal', preferredVendor: { id: vendor.id, name: 'Valve World' } },
      { id: valve, name: 'Valve', preferredVendor: { id: vendor.id, name: 'Valve World' } },
    ]);
    const supplied = ok(await gql(`query($v: ID!) { vendor(id: $v) { items { nodes { id } } } }`, { v: vendor.id })).vendor.items.nodes;
    expect(supplied).toEqual([{ id: valve }, { id: seal }]);

    const itemsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['items:read'] });
    const res = await t.graphql(itemsOnly.token)(`query($id: ID!) { item(id: $id) { name preferredVendorId preferredVendor { id } } }`, { id: valve });
    expect(res.body.data.item).toEqual({ name: 'Valve', preferredVendorId: vendor.id, preferredVendor: null });
    expect(res.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'vendors:read' })]);
    const vendorsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['vendors:read'] });
    const other = await t.graphql(vendorsOnly.token)(`query($v: ID!) { vendor(id: $v) { name items { nodes { id } } } }`, { v: vendor.id });
    expect(other.body.data.vendor).toEqual({ name: 'Valve World', items: null });
    expect(other.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'items:read' })]);
  });
});
