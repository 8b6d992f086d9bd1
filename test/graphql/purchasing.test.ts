import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Vendors over GraphQL: the generated type, list and mutations with userErrors, and the relations both ways
// between an item and its preferred vendor (each needing the read scope of what it returns). Purchase orders:
// createPurchaseOrder, receivePurchaseOrder (idempotencyKey required; the same rules and codes as REST),
// PurchaseOrder.receipts and Vendor.purchaseOrders.

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

describe('purchase orders over GraphQL', () => {
  const RECEIVE = `mutation($id: ID!, $key: String!, $receipt: ReceivePurchaseOrderReceiptInput) { receivePurchaseOrder(id: $id, idempotencyKey: $key, receipt: $receipt) {
    receipt { id purchaseOrderId lines { nodes { lineId itemId quantity } } } purchaseOrder { status receivedAt lines { nodes { receivedQuantity } } } ${USER_ERRORS} } }`;

  it('receives an order as REST does: stock moves once per idempotency key, over-receipt is a userError naming the entry, a cancelled order is refused', async () => {
    const { gql } = await graphqlTenant(t);
    const vendor = ok(await gql(CREATE_VENDOR, { input: { name: 'Pipe Depot' } })).createVendor.vendor;
    const shelf = ok(await gql(`mutation { createStockLocation(input: { name: "Shelf", kind: WAREHOUSE }) { stockLocation { id } } }`)).createStockLocation.stockLocation;
    const item = ok(await gql(`mutation { createItem(input: { name: "Pipe", itemType: MATERIAL, unitPrice: "4", cost: "1.5" }) { item { id } } }`)).createItem.item;
    const created = ok(
      await gql(`mutation($input: CreatePurchaseOrderInput!) { createPurchaseOrder(input: $input) { purchaseOrder { id number status amount lines { nodes { id unitCost lineTotal } } } ${USER_ERRORS} } }`, {
        input: { vendorId: vendor.id, locationId: shelf.id, lines: [{ itemId: item.id, quantity: '4' }] },
      }),
    ).createPurchaseOrder;
    expect(created.userErrors).toEqual([]);
    const order = created.purchaseOrder;
    expect(order).toMatchObject({ status: 'Draft', amount: '6.00', lines: { nodes: [{ unitCost: '1.5000', lineTotal: '6.00' }] } });
    const lineId = order.lines.nodes[0].id;

    const over = await gql(RECEIVE, { id: order.id, key: randomUUID(), receipt: { lines: [{ lineId, quantity: '5' }] } });
    expectError(over, 'validation.failed', [['receipt', 'lines', '0', 'quantity']]);
    const key = randomUUID();
    const first = ok(await gql(RECEIVE, { id: order.id, key, receipt: { lines: [{ lineId, quantity: '3' }] } })).receivePurchaseOrder;
    expect(first).toMatchObject({ userErrors: [], receipt: { purchaseOrderId: order.id, lines: { nodes: [{ lineId, itemId: item.id, quantity: '3.0000' }] } }, purchaseOrder: { status: 'Partially Received', receivedAt: null, lines: { nodes: [{ receivedQuantity: '3.0000' }] } } });
    const again = ok(await gql(RECEIVE, { id: order.id, key, receipt: { lines: [{ lineId, quantity: '3' }] } })).receivePurchaseOrder;
    expect(again.receipt.id).toBe(first.receipt.id);
    const level = ok(await gql(`query($i: ID!) { stockLevels(filter: { itemId: $i }) { nodes { quantity } } }`, { i: item.id })).stockLevels.nodes;
    expect(level).toEqual([{ quantity: '3.0000' }]);

    const read = ok(await gql(`query($id: ID!) { purchaseOrder(id: $id) { etag vendor { name } receipts { nodes { id } } } vendor(id: "${vendor.id}") { purchaseOrders { nodes { id } } } }`, { id: order.id }));
    expect(read.purchaseOrder).toMatchObject({ vendor: { name: 'Pipe Depot' }, receipts: { nodes: [{ id: first.receipt.id }] } });
    expect(read.vendor.purchaseOrders.nodes).toEqual([{ id: order.id }]);
    const cancel = await gql(`mutation($id: ID!, $m: String) { updatePurchaseOrder(id: $id, ifMatch: $m, input: { status: "Cancelled" }) { purchaseOrder { status } ${USER_ERRORS} } }`, { id: order.id, m: read.purchaseOrder.etag });
    expect(cancel.body.data.updatePurchaseOrder.userErrors.map((e: { code: string }) => e.code)).toEqual(['purchase_order.has_receipts']);

    const other = ok(await gql(`mutation { createPurchaseOrder(input: { vendorId: "${vendor.id}", lines: [{ description: "Freight", quantity: "1", unitCost: "9" }] }) { purchaseOrder { id etag lines { nodes { id } } } } }`)).createPurchaseOrder.purchaseOrder;
    ok(await gql(`mutation($id: ID!, $m: String) { updatePurchaseOrder(id: $id, ifMatch: $m, input: { status: "Cancelled" }) { purchaseOrder { status } } }`, { id: other.id, m: other.etag }));
    const refused = await gql(RECEIVE, { id: other.id, key: randomUUID(), receipt: { lines: [{ lineId: other.lines.nodes[0].id, quantity: '1' }] } });
    expect(refused.body.data.receivePurchaseOrder.userErrors.map((e: { code: string }) => e.code)).toEqual(['purchase_order.cancelled']);
  });
});
