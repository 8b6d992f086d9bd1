import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// The catalog over REST: items (price book, number/labels/custom_fields conventions, soft delete, filters, sorts, q),
// customer item prices (one per customer and item, immutable references, tenancy), customers.price_adjustment,
// and tax rates (percent 0..100, active filter, default sort by name). Decimals: strings with the field's scale
// on output, strings or JSON numbers on input, stored exactly.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

describe('items: the five endpoints', () => {
  it('creates an item with every field and answers 201 with Location, ETag and decimals as 4-place strings', async () => {
    const res = await api.post('/items', {
      item: { name: 'Copper pipe 1/2"', sku: 'CP-12', description: 'Type L', item_type: 'material', unit_price: '12.50', cost: 7.25, taxable: false },
    });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({
      name: 'Copper pipe 1/2"',
      sku: 'CP-12',
      description: 'Type L',
      item_type: 'material',
      unit_price: '12.5000',
      cost: '7.2500',
      taxable: false,
      labels: [],
      custom_fields: {},
    });
    expect(data.id).toMatch(uuidV7);
    expect(data.number).toMatch(/^\d+$/);
    expect(res.headers.get('location')).toBe(`/api/v2/items/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/items/${data.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('defaults taxable to true and leaves sku, description and cost null', async () => {
    const item = await createItem(api, { item_type: 'labor' });
    expect(item.record).toMatchObject({ taxable: true, sku: null, description: null, cost: null, item_type: 'labor' });
  });

  it('requires name, item_type and unit_price, and refuses an unknown item_type', async () => {
    expectProblem(await api.post('/items', { item: { sku: 'x' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { name: true, item_type: true, unit_price: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/items', { item: { name: 'x', item_type: 'tool', unit_price: '1' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { item_type: true },
      onlyErrors: true,
    });
  });

  it('updates the fields sent, keeps the others and changes the ETag', async () => {
    const item = await createItem(api, { sku: 'A-1', cost: '2' });
    const updated = await updateRecord(api, 'items', 'item', item, { name: 'Renamed', unit_price: 99.99, taxable: false, item_type: 'service', cost: null });
    expect(updated.record).toMatchObject({ name: 'Renamed', unit_price: '99.9900', taxable: false, item_type: 'service', cost: null, sku: 'A-1' });
    expect(updated.etag).not.toBe(item.etag);
    expect((await api.get(`/items/${item.id}`)).body.data).toEqual(updated.record);
  });

  it('soft-deletes: 204, then 404 on get and absent from the list and q', async () => {
    const name = unique('Gone');
    const item = await createItem(api, { name });
    await deleteRecord(api, 'items', item.id);
    expectProblem(await api.get(`/items/${item.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/items?q=${encodeURIComponent(name)}`))).toEqual([]);
  });

  it('hides another tenant\'s item (404) and never lists it', async () => {
    const other = await t.newTenant();
    const theirs = await createItem(other.api);
    expectProblem(await api.get(`/items/${theirs.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.patch(`/items/${theirs.id}`, { item: { name: 'x' } }, ifMatch(theirs.etag)), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/items?sku=${encodeURIComponent(String(theirs.record.sku))}`))).not.toContain(theirs.id);
  });
});

describe('items: number convention', () => {
  it('numbers items sequentially per tenant when number is omitted', async () => {
    const own = await t.newTenant();
    const numbers = [];
    for (let i = 0; i < 3; i += 1) numbers.push((await createItem(own.api)).record.number);
    expect(numbers).toEqual(['1', '2', '3']);
  });

  it('keeps a supplied number, refuses a taken one and skips it when numbering', async () => {
    const own = await t.newTenant();
    const given = await createItem(own.api, { number: '2' });
    expect(given.record.number).toBe('2');
    expectProblem(await own.api.post('/items', { item: { name: 'x', item_type: 'labor', unit_price: 1, number: '2' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { number: true },
      onlyErrors: true,
    });
    expect((await createItem(own.api)).record.number).toBe('1');
    expect((await createItem(own.api)).record.number).toBe('3');
  });

  it('refuses a changed number on PATCH with 422 number.immutable; the same value is a no-op', async () => {
    const item = await createItem(api);
    expectProblem(await api.patch(`/items/${item.id}`, { item: { number: `${item.record.number}9` } }, ifMatch(item.etag)), {
      status: 422,
      code: 'number.immutable',
    });
    const same = await updateRecord(api, 'items', 'item', item, { number: item.record.number, name: 'Same number' });
    expect(same.record.number).toBe(item.record.number);
  });
});

describe('items: labels and custom_fields', () => {
  it('accepts Item labels and Item custom fields, and refuses a Customer label', async () => {
    const own = await t.newTenant();
    await t.app.domain.admin.addLookup('label', { accountId: own.tenant.accountId, relatedName: 'Item', name: 'Seasonal' });
    await t.app.domain.admin.addLookup('label', { accountId: own.tenant.accountId, relatedName: 'Customer', name: 'VIP' });
    const brand = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Item', name: 'Brand', type: 'text' })).id;
    const item = await createItem(own.api, { labels: ['Seasonal'], custom_fields: { [brand]: 'Acme' } });
    expect(item.record).toMatchObject({ labels: ['Seasonal'], custom_fields: { [brand]: 'Acme' } });
    const cleared = await updateRecord(own.api, 'items', 'item', item, { labels: [] });
    expect(cleared.record).toMatchObject({ labels: [], custom_fields: { [brand]: 'Acme' } });
    expectProblem(await own.api.post('/items', { item: { name: 'x', item_type: 'labor', unit_price: 1, labels: ['VIP'] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { labels: true },
      onlyErrors: true,
    });
  });
});

describe('items: list filters, sorts and q', () => {
  it('filters item_type by equality and [in], sku exactly, and created_at/updated_at by range', async () => {
    const own = await t.newTenant();
    const material = await createItem(own.api, { item_type: 'material', sku: 'M-1' });
    clock.advance(1000);
    const labor = await createItem(own.api, { item_type: 'labor', sku: 'L-1' });
    clock.advance(1000);
    const service = await createItem(own.api, { item_type: 'service', sku: 'S-1' });
    expect(idsOf(await own.api.get('/items?item_type=labor'))).toEqual([labor.id]);
    expect(idsOf(await own.api.get('/items?item_type[in]=material,service&sort=created_at'))).toEqual([material.id, service.id]);
    expect(idsOf(await own.api.get('/items?sku=S-1'))).toEqual([service.id]);
    expect(idsOf(await own.api.get(`/items?created_at[gte]=${labor.record.created_at}&sort=created_at`))).toEqual([labor.id, service.id]);
    expect(idsOf(await own.api.get(`/items?created_at[lt]=${labor.record.created_at}`))).toEqual([material.id]);
    clock.advance(1000);
    const touched = await updateRecord(own.api, 'items', 'item', material, { sku: 'M-2' });
    expect(idsOf(await own.api.get(`/items?updated_at[gte]=${touched.record.updated_at}`))).toEqual([material.id]);
    // A value that is not one of the field's (as GraphQL's enum refuses it).
    expectProblem(await own.api.get('/items?item_type[in]=material,tool'), { status: 400, code: 'filter.invalid', detail: /item_type\[in\]: "tool" is not one of material, labor, service/ });
    expectProblem(await own.api.get('/items?item_type[gte]=labor'), { status: 400, code: 'filter.invalid' });
    expectProblem(await own.api.get('/items?created_at[gte]=soon'), { status: 400, code: 'filter.invalid' });
    expectProblem(await own.api.get('/items?unit_price=10'), { status: 400, code: 'filter.invalid' });
  });

  it('sorts by name and number both ways, default -created_at', async () => {
    const own = await t.newTenant();
    const b = await createItem(own.api, { name: 'Bravo' });
    clock.advance(1000);
    const a = await createItem(own.api, { name: 'alpha' });
    clock.advance(1000);
    const c = await createItem(own.api, { name: 'Charlie' });
    expect(idsOf(await own.api.get('/items'))).toEqual([c.id, a.id, b.id]);
    const byName = idsOf(await own.api.get('/items?sort=name'));
    expect(byName).toHaveLength(3);
    expect(idsOf(await own.api.get('/items?sort=-name'))).toEqual([...byName].reverse());
    expect(idsOf(await own.api.get('/items?sort=number'))).toEqual([b.id, a.id, c.id]);
    expect(idsOf(await own.api.get('/items?sort=-number'))).toEqual([c.id, a.id, b.id]);
    expectProblem(await own.api.get('/items?sort=unit_price'), { status: 400, code: 'sort.invalid' });
  });

  it('searches q over name, number, sku and description', async () => {
    const own = await t.newTenant();
    const token = unique('tok');
    const byName = await createItem(own.api, { name: `Filter ${token}` });
    const bySku = await createItem(own.api, { sku: `${token}-SKU` });
    const byDescription = await createItem(own.api, { description: `fits ${token} units` });
    const byNumber = await createItem(own.api, { number: `N-${token}` });
    await createItem(own.api, { name: 'unrelated' });
    expect(idsOf(await own.api.get(`/items?q=${token}&sort=created_at`))).toEqual([byName.id, bySku.id, byDescription.id, byNumber.id]);
  });
});

describe('decimals', () => {
  it('stores "0.3" exactly and serves it as "0.3000"; 0.1 + 0.2 as a JSON number is refused (more than 4 places)', async () => {
    const item = await createItem(api, { unit_price: '0.3', cost: '0.1' });
    expect(item.record).toMatchObject({ unit_price: '0.3000', cost: '0.1000' });
    expect((await api.get(`/items/${item.id}`)).body.data.unit_price).toBe('0.3000');
    expectProblem(await api.post('/items', { item: { name: 'x', item_type: 'labor', unit_price: 0.1 + 0.2 } }), {
      status: 422,
      code: 'validation.failed',
      detail: 'unit_price',
      errors: { unit_price: true },
      onlyErrors: true,
    });
  });

  it('accepts a JSON number and a string with up to 4 places, and large values, exactly', async () => {
    const fromNumber = await createItem(api, { unit_price: 19.99, cost: 0 });
    expect(fromNumber.record).toMatchObject({ unit_price: '19.9900', cost: '0.0000' });
    const precise = await createItem(api, { unit_price: '1234.5678', cost: ' 0.0001 ' });
    expect(precise.record).toMatchObject({ unit_price: '1234.5678', cost: '0.0001' });
    const large = await createItem(api, { unit_price: '999999999.9999' });
    expect(large.record.unit_price).toBe('999999999.9999');
    expect((await api.get(`/items/${large.id}`)).body.data.unit_price).toBe('999999999.9999');
    expect((await createItem(api, { unit_price: '9999999999' })).record.unit_price).toBe('9999999999.0000');
  });

  it('refuses more places than the scale, non-numeric strings, negatives, exponents and non-decimal types with 422 naming the field', async () => {
    for (const unit_price of ['1.23456', 'abc', '', '1e3', '12,50', '-1', true, { amount: 1 }, '99999999999', 1e21]) {
      expectProblem(await api.post('/items', { item: { name: 'x', item_type: 'labor', unit_price } }), {
        status: 422,
        code: 'validation.failed',
        errors: { unit_price: true },
        onlyErrors: true,
      });
    }
    // One message per problem: a value that is not a decimal is not also reported as out of range.
    expectProblem(await api.post('/items', { item: { name: 'x', item_type: 'labor', unit_price: 'abc' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { unit_price: ['must be a decimal with at most 4 decimal places'] },
      onlyErrors: true,
    });
    expectProblem(await api.post('/items', { item: { name: 'x', item_type: 'labor', unit_price: '-1' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { unit_price: ['must be between 0 and 9999999999'] },
      onlyErrors: true,
    });
    const item = await createItem(api);
    expectProblem(await api.patch(`/items/${item.id}`, { item: { cost: '0.00001' } }, ifMatch(item.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { cost: true },
      onlyErrors: true,
    });
  });

  it('refuses a null unit_price on update (not nullable)', async () => {
    const item = await createItem(api);
    expectProblem(await api.patch(`/items/${item.id}`, { item: { unit_price: null } }, ifMatch(item.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { unit_price: true },
      onlyErrors: true,
    });
  });
});

describe('customer item prices', () => {
  it('creates, reads, updates, lists and deletes a customer item price', async () => {
    const own = await t.newTenant();
    const customer = await createCustomer(own.api);
    const item = await createItem(own.api, { unit_price: '20' });
    const price = await createRecord(own.api, 'customer_item_prices', 'customer_item_price', { customer_id: customer.id, item_id: item.id, unit_price: '17.5' });
    expect(price.record).toMatchObject({ customer_id: customer.id, item_id: item.id, unit_price: '17.5000' });
    expect(price.record.id).toMatch(uuidV7);
    expect((await own.api.get(`/customer_item_prices/${price.id}`)).body.data).toEqual(price.record);
    const changed = await updateRecord(own.api, 'customer_item_prices', 'customer_item_price', price, { unit_price: 16 });
    expect(changed.record.unit_price).toBe('16.0000');
    const other = await createRecord(own.api, 'customer_item_prices', 'customer_item_price', {
      customer_id: (await createCustomer(own.api)).id,
      item_id: item.id,
      unit_price: 1,
    });
    expect(idsOf(await own.api.get(`/customer_item_prices?customer_id=${customer.id}`))).toEqual([price.id]);
    expect(idsOf(await own.api.get(`/customer_item_prices?item_id=${item.id}&sort=created_at`))).toEqual([price.id, other.id]);
    await deleteRecord(own.api, 'customer_item_prices', price.id);
    expectProblem(await own.api.get(`/customer_item_prices/${price.id}`), { status: 404, code: 'resource.not_found' });
    // Deleted (hard delete): the pair is free again.
    await createRecord(own.api, 'customer_item_prices', 'customer_item_price', { customer_id: customer.id, item_id: item.id, unit_price: 2 });
  });

  it('allows one price per customer and item: a second answers 422 naming item_id', async () => {
    const customer = await createCustomer(api);
    const item = await createItem(api);
    await createRecord(api, 'customer_item_prices', 'customer_item_price', { customer_id: customer.id, item_id: item.id, unit_price: 5 });
    expectProblem(await api.post('/customer_item_prices', { customer_item_price: { customer_id: customer.id, item_id: item.id, unit_price: 6 } }), {
      status: 422,
      code: 'validation.failed',
      errors: { item_id: true },
      onlyErrors: true,
    });
  });

  it('refuses a change of customer_id or item_id on PATCH with 422 naming the field', async () => {
    const price = await createRecord(api, 'customer_item_prices', 'customer_item_price', {
      customer_id: (await createCustomer(api)).id,
      item_id: (await createItem(api)).id,
      unit_price: 5,
    });
    const customer = await createCustomer(api);
    expectProblem(await api.patch(`/customer_item_prices/${price.id}`, { customer_item_price: { customer_id: customer.id } }, ifMatch(price.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { customer_id: true },
      onlyErrors: true,
    });
    const item = await createItem(api);
    expectProblem(await api.patch(`/customer_item_prices/${price.id}`, { customer_item_price: { item_id: item.id } }, ifMatch(price.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { item_id: true },
      onlyErrors: true,
    });
    expect((await api.get(`/customer_item_prices/${price.id}`)).body.data).toEqual(price.record);
  });

  it("refuses another tenant's customer or item, an unknown id and a deleted item with 422 naming the field", async () => {
    const other = await t.newTenant();
    const theirCustomer = await createCustomer(other.api);
    const theirItem = await createItem(other.api);
    const mine = { customer: await createCustomer(api), item: await createItem(api) };
    const deletedItem = await createItem(api);
    await deleteRecord(api, 'items', deletedItem.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ customer_id: theirCustomer.id, item_id: mine.item.id }, 'customer_id'],
      [{ customer_id: mine.customer.id, item_id: theirItem.id }, 'item_id'],
      [{ customer_id: randomUUID(), item_id: mine.item.id }, 'customer_id'],
      [{ customer_id: mine.customer.id, item_id: deletedItem.id }, 'item_id'],
      [{ customer_id: mine.customer.id, item_id: 'not-a-uuid' }, 'item_id'],
    ];
    for (const [fields, field] of cases) {
      expectProblem(await api.post('/customer_item_prices', { customer_item_price: { ...fields, unit_price: 1 } }), {
        status: 422,
        code: 'validation.failed',
        errors: { [field]: true },
        onlyErrors: true,
      });
    }
  });

  it('requires customer_id, item_id and unit_price', async () => {
    expectProblem(await api.post('/customer_item_prices', { customer_item_price: {} }), {
      status: 422,
      code: 'validation.failed',
      errors: { customer_id: true, item_id: true, unit_price: true },
      onlyErrors: true,
    });
  });
});

describe('customers.price_adjustment', () => {
  it('accepts a percent between -100 and 1000, served with its scale, and refuses values outside', async () => {
    const customer = await createCustomer(api, { price_adjustment: '-10' });
    expect(customer.record.price_adjustment).toMatch(/^-10\.0+$/);
    const changed = await updateCustomer(api, customer, { price_adjustment: 12.5 });
    expect(changed.record.price_adjustment).toMatch(/^12\.50*$/);
    expect((await createCustomer(api)).record.price_adjustment ?? null).toBeNull();
    for (const price_adjustment of ['-100.01', 1000.5, 'ten']) {
      expectProblem(await api.post('/customers', { customer: { organization: unique('Org'), price_adjustment } }), {
        status: 422,
        code: 'validation.failed',
        errors: { price_adjustment: true },
        onlyErrors: true,
      });
    }
  });
});

describe('tax rates', () => {
  it('creates a tax rate (active by default), reads, updates and soft-deletes it', async () => {
    const res = await api.post('/tax_rates', { tax_rate: { name: 'State', rate: '8.25' } });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ name: 'State', rate: '8.2500', active: true });
    expect(res.headers.get('location')).toBe(`/api/v2/tax_rates/${data.id}`);
    expect((await api.get(`/tax_rates/${data.id}`)).body).toEqual({ data });
    const updated = await updateRecord(api, 'tax_rates', 'tax_rate', { id: data.id, etag: res.headers.get('etag')! }, { rate: 0, active: false });
    expect(updated.record).toMatchObject({ name: 'State', rate: '0.0000', active: false });
    await deleteRecord(api, 'tax_rates', data.id);
    expectProblem(await api.get(`/tax_rates/${data.id}`), { status: 404, code: 'resource.not_found' });
  });

  it('accepts 0 and 100 and refuses 101, -1, 100.0001 and more than 4 places with 422 naming rate', async () => {
    expect((await createTaxRate(api, { rate: 0 })).record.rate).toBe('0.0000');
    expect((await createTaxRate(api, { rate: '100' })).record.rate).toBe('100.0000');
    for (const rate of [101, -1, '-1', '100.0001', '8.12345', 'eight']) {
      expectProblem(await api.post('/tax_rates', { tax_rate: { name: 'x', rate } }), {
        status: 422,
        code: 'validation.failed',
        detail: 'rate',
        errors: { rate: true },
        onlyErrors: true,
      });
    }
    const rate = await createTaxRate(api);
    expectProblem(await api.patch(`/tax_rates/${rate.id}`, { tax_rate: { rate: 101 } }, ifMatch(rate.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { rate: true },
      onlyErrors: true,
    });
  });

  it('lists by name by default and filters active=true|false', async () => {
    const own = await t.newTenant();
    const c = await createTaxRate(own.api, { name: 'County' });
    const a = await createTaxRate(own.api, { name: 'Airport', active: false });
    const b = await createTaxRate(own.api, { name: 'Beach' });
    expect(idsOf(await own.api.get('/tax_rates'))).toEqual([a.id, b.id, c.id]);
    expect(idsOf(await own.api.get('/tax_rates?sort=-name'))).toEqual([c.id, b.id, a.id]);
    expect(idsOf(await own.api.get('/tax_rates?active=true'))).toEqual([b.id, c.id]);
    expect(idsOf(await own.api.get('/tax_rates?active=false'))).toEqual([a.id]);
    expectProblem(await own.api.get('/tax_rates?active=maybe'), { status: 400, code: 'filter.invalid' });
  });

  it('requires name and rate', async () => {
    expectProblem(await api.post('/tax_rates', { tax_rate: {} }), {
      status: 422,
      code: 'validation.failed',
      errors: { name: true, rate: true },
      onlyErrors: true,
    });
  });
});

describe('scopes', () => {
  it('needs items:* for items and customer item prices and tax_rates:* for tax rates (403 auth.scope_missing)', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['items:read', 'customers:write'] });
    const limited = t.client(key.token);
    expect((await limited.get('/items')).status).toBe(200);
    expect((await limited.get('/customer_item_prices')).status).toBe(200);
    const write = expectProblem(await limited.post('/items', { item: { name: 'x', item_type: 'labor', unit_price: 1 } }), { status: 403, code: 'auth.scope_missing' });
    expect(write.required_scope).toBe('items:write');
    expect(expectProblem(await limited.get('/tax_rates'), { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('tax_rates:read');
    expect(expectProblem(await limited.post('/tax_rates', { tax_rate: { name: 'x', rate: 1 } }), { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('tax_rates:write');
  });
});
