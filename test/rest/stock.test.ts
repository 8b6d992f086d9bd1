import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem } from '../helpers/factories/catalog.ts';
import { freshKey } from '../helpers/factories/invoices.ts';
import { createRecord, idsOf, ifMatch, readRecord, unique, type Created } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';

// Stock: locations (warehouses and vehicles), on-hand levels per item and location (read-only, kept by the
// server), adjustments (counted in or out) and inventory transfers (stock moved between two locations in one
// transaction, a financial create). Stock never goes negative: a write that would take a level below zero is
// 409 stock.insufficient and moves nothing, under concurrency too.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api, gql } = useTenant(t);
let warehouse: Created;
let van: Created;
beforeAll(async () => {
  warehouse = await location({ kind: 'warehouse' });
  van = await location({ kind: 'vehicle', technician_id: tenant.userId });
});

function location(fields: Record<string, unknown>): Promise<Created> {
  return createRecord(api, 'stock_locations', 'stock_location', { name: unique('Location '), ...fields });
}

function adjust(fields: Record<string, unknown>) {
  return api.post('/stock_adjustments', { stock_adjustment: { reason: 'count', ...fields } });
}

async function stocked(item: Created, at: Created, quantity: string): Promise<void> {
  const res = await adjust({ item_id: item.id, location_id: at.id, quantity });
  expect(res.status, res.text).toBe(201);
}

function transfer(fields: Record<string, unknown>, key = freshKey()) {
  return api.post('/inventory_transfers', { inventory_transfer: fields }, key);
}

/** What the location holds of the item ('0.0000' when it never held any). */
async function onHand(item: Created, at: Created): Promise<string> {
  const res = await api.get(`/stock_levels?item_id=${item.id}&location_id=${at.id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data[0]?.quantity ?? '0.0000';
}

describe('stock locations', () => {
  it('keeps warehouses and vehicles (a vehicle with its technician), names unique among live locations', async () => {
    expect(van.record).toMatchObject({ kind: 'vehicle', active: true, technician_id: tenant.userId });
    expect(warehouse.record).toMatchObject({ kind: 'warehouse', active: true, technician_id: null });
    expectProblem(await api.post('/stock_locations', { stock_location: { name: unique('W'), kind: 'warehouse', technician_id: tenant.userId } }), {
      status: 422,
      code: 'validation.failed',
      errors: { technician_id: true },
    });
    expectProblem(await api.post('/stock_locations', { stock_location: { name: warehouse.record.name.toUpperCase(), kind: 'warehouse' } }), { status: 422, code: 'validation.failed', errors: { name: true } });
    expectProblem(await api.post('/stock_locations', { stock_location: { name: unique('W'), kind: 'boat' } }), { status: 422, code: 'validation.failed', errors: { kind: true } });
    expect(idsOf(await api.get(`/stock_locations?kind=vehicle&technician_id=${tenant.userId}`))).toContain(van.id);
    expect(idsOf(await api.get(`/stock_locations?q=${encodeURIComponent(van.record.name)}`))).toEqual([van.id]);
  });

  it('refuses to delete a location that holds stock (409 stock_location.has_stock); empty, it is deleted', async () => {
    const shelf = await location({ kind: 'warehouse' });
    const item = await createItem(api);
    await stocked(item, shelf, '2');
    const current = await readRecord(api, 'stock_locations', shelf.id);
    expectProblem(await api.delete(`/stock_locations/${shelf.id}`, ifMatch(current.etag)), { status: 409, code: 'stock_location.has_stock' });
    await stocked(item, shelf, '-2');
    expect((await api.delete(`/stock_locations/${shelf.id}`, ifMatch(current.etag))).status).toBe(204);
  });
});

describe('stock adjustments and levels', () => {
  it('counts stock in and out: the level follows, each adjustment records what is on hand after it', async () => {
    const item = await createItem(api);
    const first = await adjust({ item_id: item.id, location_id: warehouse.id, quantity: '10', reason: 'initial count' });
    expect(first.status, first.text).toBe(201);
    expect(first.body.data).toMatchObject({ item_id: item.id, location_id: warehouse.id, quantity: '10.0000', reason: 'initial count', on_hand: '10.0000' });
    const out = await adjust({ item_id: item.id, location_id: warehouse.id, quantity: '-2.5', reason: 'damaged' });
    expect(out.body.data.on_hand).toBe('7.5000');
    const levels = await api.get(`/stock_levels?item_id=${item.id}`);
    expect(levels.body.data).toEqual([expect.objectContaining({ item_id: item.id, location_id: warehouse.id, quantity: '7.5000' })]);
    const level = await api.get(`/stock_levels/${levels.body.data[0].id}`);
    expect(level.status).toBe(200);
    expect(level.headers.get('etag')).toBeTruthy();
  });

  it('refuses to take a level below zero (409 stock.insufficient, nothing stored), 0, a labor item and an inactive location (422)', async () => {
    const item = await createItem(api);
    await stocked(item, warehouse, '3');
    const short = await adjust({ item_id: item.id, location_id: warehouse.id, quantity: '-3.0001' });
    expectProblem(short, { status: 409, code: 'stock.insufficient' });
    expect(short.body.detail).toContain('3.0000');
    expect(await onHand(item, warehouse)).toBe('3.0000');
    expect((await api.get(`/stock_adjustments?item_id=${item.id}`)).body.data).toHaveLength(1);
    expectProblem(await adjust({ item_id: item.id, location_id: warehouse.id, quantity: '0' }), { status: 422, code: 'validation.failed', errors: { quantity: true } });
    const labor = await createItem(api, { item_type: 'labor' });
    expectProblem(await adjust({ item_id: labor.id, location_id: warehouse.id, quantity: '1' }), { status: 422, code: 'validation.failed', errors: { item_id: true } });
    const closed = await location({ kind: 'warehouse', active: false });
    expectProblem(await adjust({ item_id: item.id, location_id: closed.id, quantity: '1' }), { status: 422, code: 'validation.failed', errors: { location_id: true } });
    expectProblem(await adjust({ item_id: item.id, location_id: warehouse.id, quantity: '1', reason: '' }), { status: 422, code: 'validation.failed', errors: { reason: true } });
  });

  it('serves adjustments as a ledger and levels read-only: other methods are 405', async () => {
    const item = await createItem(api);
    await stocked(item, warehouse, '1');
    const [adjustment] = (await api.get(`/stock_adjustments?item_id=${item.id}`)).body.data;
    expectProblem(await api.patch(`/stock_adjustments/${adjustment.id}`, { stock_adjustment: { reason: 'x' } }), { status: 405, code: 'method.not_allowed' });
    expectProblem(await api.delete(`/stock_adjustments/${adjustment.id}`), { status: 405, code: 'method.not_allowed' });
    expectProblem(await api.post('/stock_levels', { stock_level: {} }), { status: 405, code: 'method.not_allowed' });
    const schema = (await api.get('/openapi.json')).body;
    const methods = (path: string) => Object.keys(schema.paths[path]).filter((key) => key !== 'parameters');
    expect(methods('/stock_levels')).toEqual(['get']);
    expect(methods('/stock_levels/{id}')).toEqual(['get']);
    expect(methods('/stock_adjustments/{id}')).toEqual(['get']);
  });

  it("serves an item's levels and a location's levels over GraphQL", async () => {
    const item = await createItem(api);
    await stocked(item, warehouse, '4');
    await stocked(item, van, '1');
    const res = await gql(`query($id: ID!) { item(id: $id) { stockLevels { nodes { quantity location { id kind } } } } }`, { id: item.id });
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    const byLocation = Object.fromEntries(res.body.data.item.stockLevels.nodes.map((n: any) => [n.location.id, n.quantity]));
    expect(byLocation).toEqual({ [warehouse.id]: '4.0000', [van.id]: '1.0000' });
  });
});

describe('inventory transfers', () => {
  it('moves every line from one location to the other in one transaction, with a number; Idempotency-Key required and replayed', async () => {
    const a = await createItem(api);
    const b = await createItem(api);
    await stocked(a, warehouse, '10');
    await stocked(b, warehouse, '5');
    expectProblem(await api.post('/inventory_transfers', { inventory_transfer: { from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: a.id, quantity: '1' }] } }), {
      status: 400,
      code: 'idempotency_key.required',
    });
    const key = freshKey();
    const body = { from_location_id: warehouse.id, to_location_id: van.id, note: 'Morning load', lines: [{ item_id: a.id, quantity: '4' }, { item_id: b.id, quantity: '5' }] };
    const res = await transfer(body, key);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ from_location_id: warehouse.id, to_location_id: van.id, note: 'Morning load', number: expect.stringMatching(/^\d+$/) });
    expect(res.body.data.lines.map((l: any) => [l.item_id, l.quantity])).toEqual([
      [a.id, '4.0000'],
      [b.id, '5.0000'],
    ]);
    expect([await onHand(a, warehouse), await onHand(a, van), await onHand(b, warehouse), await onHand(b, van)]).toEqual(['6.0000', '4.0000', '0.0000', '5.0000']);
    const again = await transfer(body, key);
    expect(again.text).toBe(res.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await onHand(a, van)).toBe('4.0000');
  });

  it('appends inventory_transfer.created and stock_level.updated for each level it moves, and nothing when refused', async () => {
    const item = await createItem(api);
    await stocked(item, warehouse, '3');
    const res = await transfer({ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: item.id, quantity: '2' }] });
    expect(res.status, res.text).toBe(201);
    const events = await t.database.prisma.event.findMany({ where: { topic: 'stock_level.updated' }, orderBy: { seq: 'asc' } });
    const ofItem = events.filter((e) => (e.payload as { item_id?: string }).item_id === item.id).map((e) => e.payload as { location_id: string; quantity: string });
    // The count in, then the transfer's two levels (in the lock order: item, then location id).
    const pairs = ofItem.map((level) => `${level.location_id} ${level.quantity}`);
    expect(pairs[0]).toBe(`${warehouse.id} 3.0000`);
    expect(pairs.slice(1).sort()).toEqual([`${warehouse.id} 1.0000`, `${van.id} 2.0000`].sort());
    expect((await t.database.prisma.event.findMany({ where: { record_id: res.body.data.id } })).map((e) => e.topic)).toEqual(['inventory_transfer.created']);
    const refused = await transfer({ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: item.id, quantity: '2' }] });
    expectProblem(refused, { status: 409, code: 'stock.insufficient' });
    const after = await t.database.prisma.event.count({ where: { topic: 'stock_level.updated' } });
    expect(after).toBe(events.length);
  });

  it('refuses a transfer that would oversell any line (409 stock.insufficient): nothing moves', async () => {
    const a = await createItem(api);
    const b = await createItem(api);
    await stocked(a, warehouse, '10');
    await stocked(b, warehouse, '1');
    const res = await transfer({ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: a.id, quantity: '5' }, { item_id: b.id, quantity: '2' }] });
    expectProblem(res, { status: 409, code: 'stock.insufficient' });
    expect([await onHand(a, warehouse), await onHand(a, van), await onHand(b, warehouse)]).toEqual(['10.0000', '0.0000', '1.0000']);
    expect((await api.get(`/inventory_transfers?from_location_id=${warehouse.id}`)).body.data.every((tr: any) => !tr.lines.some((l: any) => l.item_id === a.id))).toBe(true);
  });

  it('refuses the same location twice, no lines, an item twice, a zero quantity and a service item (422 naming each)', async () => {
    const a = await createItem(api);
    const service = await createItem(api, { item_type: 'service' });
    const cases: [Record<string, unknown>, string][] = [
      [{ from_location_id: warehouse.id, to_location_id: warehouse.id, lines: [{ item_id: a.id, quantity: '1' }] }, 'to_location_id'],
      [{ from_location_id: warehouse.id, to_location_id: van.id, lines: [] }, 'lines'],
      [{ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: a.id, quantity: '1' }, { item_id: a.id, quantity: '1' }] }, 'lines.1.item_id'],
      [{ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: a.id, quantity: '0' }] }, 'lines.0.quantity'],
      [{ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: service.id, quantity: '1' }] }, 'lines.0.item_id'],
      [{ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: randomUUID(), quantity: '1' }] }, 'lines.0.item_id'],
    ];
    for (const [fields, field] of cases) expectProblem(await transfer(fields), { status: 422, code: 'validation.failed', errors: { [field]: true } });
  });

  it('10 concurrent transfers out of one location never oversell it; transfers both ways at once do not deadlock', async () => {
    const item = await createItem(api);
    const other = await location({ kind: 'vehicle' });
    await stocked(item, warehouse, '20');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => transfer({ from_location_id: warehouse.id, to_location_id: i % 2 ? van.id : other.id, lines: [{ item_id: item.id, quantity: '3' }] })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(6);
    for (const res of results.filter((r) => r.status !== 201)) expectProblem(res, { status: 409, code: 'stock.insufficient' });
    expect(await onHand(item, warehouse)).toBe('2.0000');
    const moved = Number(await onHand(item, van)) + Number(await onHand(item, other));
    expect(moved).toBe(18);

    const back = await Promise.all(
      Array.from({ length: 6 }, (_, i) => transfer(i % 2 ? { from_location_id: van.id, to_location_id: other.id, lines: [{ item_id: item.id, quantity: '1' }] } : { from_location_id: other.id, to_location_id: van.id, lines: [{ item_id: item.id, quantity: '1' }] })),
    );
    expect(back.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(Number(await onHand(item, van)) + Number(await onHand(item, other))).toBe(18);
  });

  it('is a ledger: no PATCH or DELETE; GraphQL createInventoryTransfer takes idempotencyKey', async () => {
    const item = await createItem(api);
    await stocked(item, warehouse, '2');
    const created = await transfer({ from_location_id: warehouse.id, to_location_id: van.id, lines: [{ item_id: item.id, quantity: '1' }] });
    expectProblem(await api.patch(`/inventory_transfers/${created.body.data.id}`, { inventory_transfer: { note: 'x' } }), { status: 405, code: 'method.not_allowed' });
    const key = randomUUID();
    const mutation = `mutation($input: CreateInventoryTransferInput!, $key: String!) { createInventoryTransfer(input: $input, idempotencyKey: $key) { inventoryTransfer { id lines { nodes { quantity item { id } } } } userErrors { field code } } }`;
    const input = { fromLocationId: warehouse.id, toLocationId: van.id, lines: [{ itemId: item.id, quantity: '1' }] };
    const first = await gql(mutation, { input, key });
    expect(first.body.errors, JSON.stringify(first.body)).toBeUndefined();
    const again = await gql(mutation, { input, key });
    expect(again.body.data.createInventoryTransfer.inventoryTransfer.id).toBe(first.body.data.createInventoryTransfer.inventoryTransfer.id);
    expect(await onHand(item, warehouse)).toBe('0.0000');
    const over = await gql(mutation, { input, key: randomUUID() });
    expect(over.body.errors?.[0]?.extensions?.code ?? over.body.data?.createInventoryTransfer?.userErrors?.[0]?.code).toBe('stock.insufficient');
  });
});
