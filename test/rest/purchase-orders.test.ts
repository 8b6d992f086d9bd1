import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem } from '../helpers/factories/catalog.ts';
import { createRecord, deleteRecord, freshKey, idsOf, ifMatch, readRecord, unique, updateRecord, weakEtag, type Created } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';

// Purchase orders over REST: a vendor, lines at a unit cost (defaults from the item), server totals, the number
// and status conventions; receiving (POST /purchase_orders/{id}/receive, Idempotency-Key required): partial
// receipts never past what was ordered, stock added to the receiving location in the same transaction, the
// status moved, receipts readable as a ledger; what received stock protects (cancel, delete, lines, vendor);
// and 10 concurrent receipts of one order.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

let vendor: Created;
let warehouse: Created;
let filter: Created;
beforeAll(async () => {
  vendor = await createRecord(api, 'vendors', 'vendor', { name: unique('Supplier ') });
  warehouse = await createRecord(api, 'stock_locations', 'stock_location', { name: unique('Warehouse '), kind: 'warehouse' });
  filter = await createItem(api, { name: 'Furnace filter', item_type: 'material', unit_price: '25', cost: '9.5' });
});

async function order(fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'purchase_orders', 'purchase_order', { vendor_id: vendor.id, location_id: warehouse.id, lines: [{ item_id: filter.id, quantity: '5' }], ...fields });
}

function receive(id: string, lines: { line_id: string; quantity: string }[], extra: Record<string, unknown> = {}, key = freshKey()) {
  return api.post(`/purchase_orders/${id}/receive`, { receipt: { lines, ...extra } }, key);
}

async function onHand(item: Created, at: Created): Promise<string> {
  const res = await api.get(`/stock_levels?item_id=${item.id}&location_id=${at.id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data[0]?.quantity ?? '0.0000';
}

describe('purchase orders: the five endpoints', () => {
  it("creates an order with lines that take the item's name and cost, computes line totals and the amount, numbers it and starts it Draft", async () => {
    const res = await api.post('/purchase_orders', {
      purchase_order: {
        vendor_id: vendor.id,
        location_id: warehouse.id,
        expected_date: '2031-05-02',
        order_date: '2031-05-01',
        reference: 'CONF-77',
        memo: 'Deliver to the back door',
        lines: [
          { item_id: filter.id, quantity: '3' },
          { description: 'Freight', quantity: '1', unit_cost: '12.345' },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ vendor_id: vendor.id, location_id: warehouse.id, job_id: null, order_date: '2031-05-01', expected_date: '2031-05-02', status: 'Draft', amount: '40.85', received_at: null });
    expect(data.number).toMatch(/^\d+$/);
    expect(data.lines).toEqual([
      { id: expect.any(String), item_id: filter.id, description: 'Furnace filter', quantity: '3.0000', unit_cost: '9.5000', line_total: '28.50', received_quantity: '0.0000' },
      { id: expect.any(String), item_id: null, description: 'Freight', quantity: '1.0000', unit_cost: '12.3450', line_total: '12.35', received_quantity: '0.0000' },
    ]);
    expect(res.headers.get('location')).toBe(`/api/v2/purchase_orders/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    expect((await api.get(`/purchase_orders/${data.id}`)).body).toEqual({ data });
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['purchase_order.created']);
  });

  it('needs no Idempotency-Key to create (not a financial create), and defaults order_date to today', async () => {
    const created = await api.post('/purchase_orders', { purchase_order: { vendor_id: vendor.id } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.order_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(created.body.data).toMatchObject({ lines: [], amount: '0.00' });
  });

  it("refuses a missing or another tenant's vendor, a line without description or cost, an item without cost, a zero quantity and an expected date before the order date", async () => {
    const theirs = await t.newTenant();
    const foreign = await createRecord(theirs.api, 'vendors', 'vendor', { name: unique() });
    expectProblem(await api.post('/purchase_orders', { purchase_order: { vendor_id: foreign.id } }), { status: 422, code: 'validation.failed', errors: { vendor_id: true }, onlyErrors: true });
    expectProblem(await api.post('/purchase_orders', { purchase_order: {} }), { status: 422, code: 'validation.failed', errors: { vendor_id: true }, onlyErrors: true });
    const costless = await createItem(api, { item_type: 'material', unit_price: '3' });
    expectProblem(
      await api.post('/purchase_orders', {
        purchase_order: { vendor_id: vendor.id, lines: [{ quantity: '1' }, { item_id: costless.id, quantity: '2' }] },
      }),
      { status: 422, code: 'validation.failed', errors: { 'lines.0.description': true, 'lines.0.unit_cost': true, 'lines.1.unit_cost': true }, onlyErrors: true },
    );
    expectProblem(await api.post('/purchase_orders', { purchase_order: { vendor_id: vendor.id, lines: [{ item_id: filter.id, quantity: '0' }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'lines.0.quantity': true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/purchase_orders', { purchase_order: { vendor_id: vendor.id, order_date: '2031-05-02', expected_date: '2031-05-01' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { expected_date: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/purchase_orders', { purchase_order: { vendor_id: vendor.id, lines: [{ description: 'Huge', quantity: '9999999999', unit_cost: '9999999999' }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'lines.0': true },
    });
  });

  it('updates lines as a snapshot and recomputes the amount; lists filter by vendor and status; the number is immutable', async () => {
    const po = await order();
    const [line] = po.record.lines;
    const updated = await updateRecord(api, 'purchase_orders', 'purchase_order', po, { lines: [{ id: line.id, quantity: '2' }, { description: 'Gasket', quantity: '4', unit_cost: '1.25' }] });
    expect(updated.record.lines.map((l: { description: string; line_total: string }) => [l.description, l.line_total])).toEqual([
      ['Furnace filter', '19.00'],
      ['Gasket', '5.00'],
    ]);
    expect(updated.record.amount).toBe('24.00');
    expect(updated.record.lines[0].id).toBe(line.id);
    expectProblem(await api.patch(`/purchase_orders/${po.id}`, { purchase_order: { number: 'PO-X' } }, ifMatch(updated.etag)), { status: 422, code: 'number.immutable' });
    const other = await createRecord(api, 'vendors', 'vendor', { name: unique('Other ') });
    const theirs = await order({ vendor_id: other.id });
    expect(idsOf(await api.get(`/purchase_orders?vendor_id=${other.id}`))).toEqual([theirs.id]);
    expect(idsOf(await api.get(`/purchase_orders?vendor_id=${other.id}&status=Ordered`))).toEqual([]);
    await deleteRecord(api, 'purchase_orders', theirs.id);
    expect(idsOf(await api.get(`/purchase_orders?vendor_id=${other.id}`))).toEqual([]);
  });
});

describe('receiving a purchase order', () => {
  it('records a partial receipt: the line counts what arrived, the stock level grows, the order becomes Partially Received; the rest makes it Received', async () => {
    const po = await order();
    const [line] = po.record.lines;
    const before = await onHand(filter, warehouse);
    const res = await receive(po.id, [{ line_id: line.id, quantity: '2' }], { note: 'Box 1 of 2', received_date: '2031-06-01' });
    expect(res.status, res.text).toBe(201);
    const { receipt, purchase_order: after } = res.body.data;
    expect(receipt).toMatchObject({ purchase_order_id: po.id, location_id: warehouse.id, received_date: '2031-06-01', note: 'Box 1 of 2', lines: [{ id: expect.any(String), line_id: line.id, item_id: filter.id, quantity: '2.0000' }] });
    expect(res.headers.get('location')).toBe(`/api/v2/purchase_order_receipts/${receipt.id}`);
    expect(after).toMatchObject({ status: 'Partially Received', received_at: null });
    expect(after.lines[0].received_quantity).toBe('2.0000');
    expect(Number(await onHand(filter, warehouse))).toBe(Number(before) + 2);
    expect((await api.get(`/purchase_order_receipts/${receipt.id}`)).body.data).toEqual(receipt);
    expect((await api.get(`/purchase_orders/${po.id}`)).body.data).toEqual(after);

    const rest = await receive(po.id, [{ line_id: line.id, quantity: '3' }]);
    expect(rest.status, rest.text).toBe(201);
    expect(rest.body.data.purchase_order).toMatchObject({ status: 'Received', received_at: expect.any(String) });
    expect(Number(await onHand(filter, warehouse))).toBe(Number(before) + 5);
    expect(idsOf(await api.get(`/purchase_order_receipts?purchase_order_id=${po.id}&sort=created_at`))).toEqual([receipt.id, rest.body.data.receipt.id]);
    const topics = (await eventsOf(po.id)).map((e) => e.topic);
    expect(topics).toEqual([
      'purchase_order.created',
      'purchase_order.updated',
      'purchase_order.status_changed',
      'purchase_order.received',
      'purchase_order.updated',
      'purchase_order.status_changed',
      'purchase_order.received',
    ]);
    const received = (await eventsOf(po.id)).filter((e) => e.topic === 'purchase_order.received');
    expect(received.map((e) => e.details)).toEqual([{ receipt_id: receipt.id }, { receipt_id: rest.body.data.receipt.id }]);
    const level = (await api.get(`/stock_levels?item_id=${filter.id}&location_id=${warehouse.id}`)).body.data[0];
    expect((await eventsOf(level.id)).some((e) => e.topic === 'stock_level.updated')).toBe(true);
  });

  it('requires an Idempotency-Key, and a retry with the same key replays the receipt without receiving twice', async () => {
    const po = await order();
    const [line] = po.record.lines;
    expectProblem(await api.post(`/purchase_orders/${po.id}/receive`, { receipt: { lines: [{ line_id: line.id, quantity: '1' }] } }), { status: 400, code: 'idempotency_key.required' });
    const key = freshKey();
    const before = await onHand(filter, warehouse);
    const first = await receive(po.id, [{ line_id: line.id, quantity: '1' }], {}, key);
    const again = await receive(po.id, [{ line_id: line.id, quantity: '1' }], {}, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(Number(await onHand(filter, warehouse))).toBe(Number(before) + 1);
    expect((await api.get(`/purchase_order_receipts?purchase_order_id=${po.id}`)).body.data).toHaveLength(1);
  });

  it('refuses more than is still to receive, a line of another order, a line given twice and an empty receipt, naming each; nothing is stored', async () => {
    const po = await order();
    const other = await order();
    const [line] = po.record.lines;
    expectProblem(await receive(po.id, [{ line_id: line.id, quantity: '6' }]), { status: 422, code: 'validation.failed', errors: { 'lines.0.quantity': true }, onlyErrors: true });
    expectProblem(await receive(po.id, [{ line_id: other.record.lines[0].id, quantity: '1' }]), { status: 422, code: 'validation.failed', errors: { 'lines.0.line_id': true }, onlyErrors: true });
    expectProblem(
      await receive(po.id, [
        { line_id: line.id, quantity: '1' },
        { line_id: line.id, quantity: '1' },
      ]),
      { status: 422, code: 'validation.failed', errors: { 'lines.1.line_id': true } },
    );
    expectProblem(await receive(po.id, []), { status: 422, code: 'validation.failed', errors: { lines: true } });
    expectProblem(await api.post(`/purchase_orders/${po.id}/receive`, undefined, freshKey()), { status: 422, code: 'validation.failed', errors: { lines: true } });
    expectProblem(await receive(randomUUID(), [{ line_id: line.id, quantity: '1' }]), { status: 404, code: 'resource.not_found' });
    expect((await readRecord(api, 'purchase_orders', po.id)).record).toEqual(po.record);
  });

  it('needs a stock location for material items (the order\'s or the receipt\'s), and receives described lines without one', async () => {
    const po = await order({ location_id: null, lines: [{ item_id: filter.id, quantity: '2' }, { description: 'Freight', quantity: '1', unit_cost: '10' }] });
    const [material, freight] = po.record.lines;
    expectProblem(await receive(po.id, [{ line_id: material.id, quantity: '1' }]), { status: 422, code: 'validation.failed', errors: { location_id: true }, onlyErrors: true });
    const described = await receive(po.id, [{ line_id: freight.id, quantity: '1' }]);
    expect(described.status, described.text).toBe(201);
    expect(described.body.data.receipt.location_id).toBeNull();
    const van = await createRecord(api, 'stock_locations', 'stock_location', { name: unique('Van '), kind: 'vehicle', technician_id: tenant.userId });
    const onVan = await receive(po.id, [{ line_id: material.id, quantity: '2' }], { location_id: van.id });
    expect(onVan.status, onVan.text).toBe(201);
    expect(onVan.body.data.purchase_order.status).toBe('Received');
    expect(await onHand(filter, van)).toBe('2.0000');
  });

  it('keeps what was received: a received line cannot be removed, reduced below it or change item, the vendor cannot change, and the order cannot be cancelled or deleted (purchase_order.has_receipts)', async () => {
    const po = await order({ lines: [{ item_id: filter.id, quantity: '5' }, { description: 'Spare', quantity: '1', unit_cost: '2' }] });
    const [line, spare] = po.record.lines;
    expect((await receive(po.id, [{ line_id: line.id, quantity: '3' }])).status).toBe(201);
    const current = await readRecord(api, 'purchase_orders', po.id);
    const patch = (fields: Record<string, unknown>) => api.patch(`/purchase_orders/${po.id}`, { purchase_order: fields }, ifMatch(current.etag));
    expectProblem(await patch({ lines: [{ id: spare.id }] }), { status: 422, code: 'validation.failed', errors: { lines: true }, onlyErrors: true });
    expectProblem(await patch({ lines: [{ id: line.id, quantity: '2' }, { id: spare.id }] }), { status: 422, code: 'validation.failed', errors: { 'lines.0.quantity': true }, onlyErrors: true });
    const gasket = await createItem(api, { item_type: 'material', unit_price: '3', cost: '1' });
    expectProblem(await patch({ lines: [{ id: line.id, item_id: gasket.id }, { id: spare.id }] }), { status: 422, code: 'validation.failed', errors: { 'lines.0.item_id': true }, onlyErrors: true });
    const other = await createRecord(api, 'vendors', 'vendor', { name: unique('Other ') });
    expectProblem(await patch({ vendor_id: other.id }), { status: 422, code: 'validation.failed', errors: { vendor_id: true }, onlyErrors: true });
    expectProblem(await patch({ status: 'Cancelled' }), { status: 409, code: 'purchase_order.has_receipts' });
    expectProblem(await api.delete(`/purchase_orders/${po.id}`, ifMatch(current.etag)), { status: 409, code: 'purchase_order.has_receipts' });
    // Reducing the open line to what was received, and removing a line with nothing received, are allowed.
    const settled = await updateRecord(api, 'purchase_orders', 'purchase_order', current, { lines: [{ id: line.id, quantity: '3' }] });
    expect(settled.record.lines).toEqual([expect.objectContaining({ id: line.id, quantity: '3.0000', received_quantity: '3.0000' })]);
  });

  it('a cancelled order cannot be received (purchase_order.cancelled); an order with nothing received can be cancelled and deleted', async () => {
    const po = await order();
    const cancelled = await updateRecord(api, 'purchase_orders', 'purchase_order', po, { status: 'Cancelled' });
    expectProblem(await receive(po.id, [{ line_id: po.record.lines[0].id, quantity: '1' }]), { status: 409, code: 'purchase_order.cancelled' });
    const res = await api.delete(`/purchase_orders/${po.id}`, ifMatch(cancelled.etag));
    expect(res.status, res.text).toBe(204);
  });

  it('needs purchase_orders:write and inventory:write to receive', async () => {
    const po = await order();
    const ordersOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['purchase_orders:write'] });
    expectProblem(await t.client(ordersOnly.token).post(`/purchase_orders/${po.id}/receive`, { receipt: { lines: [{ line_id: po.record.lines[0].id, quantity: '1' }] } }, freshKey()), {
      status: 403,
      code: 'auth.scope_missing',
    });
  });

  it('receipts are a ledger: listed and read, never written directly (405 with Allow)', async () => {
    const res = await api.post('/purchase_order_receipts', { purchase_order_receipt: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
  });

  it('10 concurrent receipts of one order never receive more than ordered and never lose stock', async () => {
    const po = await order({ lines: [{ item_id: filter.id, quantity: '5' }] });
    const [line] = po.record.lines;
    const before = Number(await onHand(filter, warehouse));
    const results = await Promise.all(Array.from({ length: 10 }, () => receive(po.id, [{ line_id: line.id, quantity: '1' }])));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 201, 201, 422, 422, 422, 422, 422]);
    expect(Number(await onHand(filter, warehouse))).toBe(before + 5);
    const after = (await api.get(`/purchase_orders/${po.id}`)).body.data;
    expect(after).toMatchObject({ status: 'Received', lines: [expect.objectContaining({ received_quantity: '5.0000' })] });
    expect((await api.get(`/purchase_order_receipts?purchase_order_id=${po.id}`)).body.data).toHaveLength(5);
  });
});
