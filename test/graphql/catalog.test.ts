import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { unique } from '../helpers/factories/records.ts';
import { camelRecord, expectError, failed, ok, records, USER_ERRORS } from '../helpers/graphql.ts';

// The catalog over GraphQL: the generated item / taxRate / system queries and create/update/delete mutations run
// the same services as REST; decimals come back as exact strings with the field's scale; system.duplicate,
// number.immutable and validation.failed surface in the userErrors of the mutation's payload.

const t = useTestApp({ rateLimits: highRateLimits });
const { gql, api: rest } = useTenant(t);

const ITEM = 'id number name sku description itemType unitPrice cost taxable preferredVendorId labels customFields createdAt updatedAt';
const TAX_RATE = 'id name rate active createdAt updatedAt';
const SYSTEM = 'id siteId systemType name manufacturer model serialNumber installDate systemOptionId labels customFields createdAt updatedAt';

async function newSite(): Promise<string> {
  const r = records(gql);
  const customer = await r.customer(unique('Org '));
  return (await r.site(customer, 'CUSTOMER', unique('Site '))).id;
}

describe('items', () => {
  it('creates, reads, lists, updates and deletes an item through the same service as REST, decimals as strings', async () => {
    const created = ok(
      await gql(`mutation($input: CreateItemInput!) { createItem(input: $input) { etag item { ${ITEM} } } }`, {
        input: { name: 'Thermostat', sku: 'TS-1', itemType: 'MATERIAL', unitPrice: '0.3', cost: 12.5 },
      }),
    ).createItem;
    expect(created.item).toMatchObject({ name: 'Thermostat', sku: 'TS-1', itemType: 'MATERIAL', unitPrice: '0.3000', cost: '12.5000', taxable: true, labels: [] });
    expect(created.item.number).toMatch(/^\d+$/);
    const id = created.item.id;

    const viaRest = await rest.get(`/items/${id}`);
    expect(viaRest.headers.get('etag')).toBe(created.etag);
    expect(camelRecord(viaRest.body.data)).toEqual(created.item);

    const read = ok(await gql(`query($id: ID!) { item(id: $id) { ${ITEM} etag } }`, { id })).item;
    expect(read).toEqual({ ...created.item, etag: created.etag });

    const listed = ok(await gql(`{ items(filter: { sku: "TS-1", itemTypeIn: [MATERIAL, LABOR] }) { nodes { id unitPrice } } }`)).items;
    expect(listed.nodes).toEqual([{ id, unitPrice: '0.3000' }]);
    expect(ok(await gql(`{ items(filter: { itemType: SERVICE, sku: "TS-1" }) { nodes { id } } }`)).items.nodes).toEqual([]);

    const updated = ok(
      await gql(`mutation($id: ID!, $ifMatch: String, $input: UpdateItemInput!) { updateItem(id: $id, ifMatch: $ifMatch, input: $input) { etag item { ${ITEM} } } }`, {
        id,
        ifMatch: created.etag,
        input: { unitPrice: 19.99, taxable: false, cost: null },
      }),
    ).updateItem;
    expect(updated.item).toMatchObject({ unitPrice: '19.9900', taxable: false, cost: null, name: 'Thermostat', number: created.item.number });
    expect(updated.etag).not.toBe(created.etag);
    expect((await rest.get(`/items/${id}`)).body.data.unit_price).toBe('19.9900');

    const deleted = await gql(`mutation($id: ID!, $ifMatch: String) { deleteItem(id: $id, ifMatch: $ifMatch) { deletedId ${USER_ERRORS} } }`, { id, ifMatch: updated.etag });
    expect(deleted.body).toEqual({ data: { deleteItem: { deletedId: id, userErrors: [] } } });
    expect((await rest.get(`/items/${id}`)).status).toBe(404);
  });

  it('takes a float literal exactly (0.3 in the query text) and refuses more places than the scale with validation.failed', async () => {
    const literal = ok(await gql(`mutation { createItem(input: { name: "Lit", itemType: LABOR, unitPrice: 0.3 }) { item { unitPrice } } }`)).createItem;
    expect(literal.item.unitPrice).toBe('0.3000');
    const tooPrecise = await gql(`mutation($input: CreateItemInput!) { createItem(input: $input) { item { id } ${USER_ERRORS} } }`, {
      input: { name: 'x', itemType: 'LABOR', unitPrice: 0.1 + 0.2 },
    });
    expectError(tooPrecise, 'validation.failed', [['input', 'unitPrice']]);
    const notNumeric = await gql(`mutation($input: CreateItemInput!) { createItem(input: $input) { item { id } ${USER_ERRORS} } }`, {
      input: { name: 'x', itemType: 'LABOR', unitPrice: 'twelve' },
    });
    expect(failed(notNumeric, 'validation.failed')).toEqual([
      { field: ['input', 'unitPrice'], message: 'unitPrice must be a decimal with at most 4 decimal places', code: 'validation.failed' },
    ]);
  });

  it('refuses a changed number with number.immutable', async () => {
    const created = ok(await gql(`mutation { createItem(input: { name: "Numbered", itemType: SERVICE, unitPrice: "1" }) { etag item { id number } } }`)).createItem;
    const res = await gql(`mutation($id: ID!, $ifMatch: String, $input: UpdateItemInput!) { updateItem(id: $id, ifMatch: $ifMatch, input: $input) { item { id } ${USER_ERRORS} } }`, {
      id: created.item.id,
      ifMatch: created.etag,
      input: { number: `${created.item.number}0` },
    });
    expectError(res, 'number.immutable', [['input', 'number']]);
  });
});

describe('tax rates', () => {
  it('creates, reads, lists and updates a tax rate; rate is a 4-place string and 101 is refused', async () => {
    const own = (await t.newTenant()).gql;
    const created = ok(await own(`mutation($input: CreateTaxRateInput!) { createTaxRate(input: $input) { etag taxRate { ${TAX_RATE} } } }`, { input: { name: 'State', rate: '8.25' } }))
      .createTaxRate;
    expect(created.taxRate).toMatchObject({ name: 'State', rate: '8.2500', active: true });
    expect(ok(await own(`query($id: ID!) { taxRate(id: $id) { rate } }`, { id: created.taxRate.id })).taxRate).toEqual({ rate: '8.2500' });
    const inactive = ok(await own(`mutation { createTaxRate(input: { name: "Airport", rate: 0, active: false }) { taxRate { id rate } } }`)).createTaxRate.taxRate;
    expect(inactive.rate).toBe('0.0000');
    expect(ok(await own(`{ taxRates { nodes { id } } }`)).taxRates.nodes).toEqual([{ id: inactive.id }, { id: created.taxRate.id }]);
    expect(ok(await own(`{ taxRates(filter: { active: true }) { nodes { id } } }`)).taxRates.nodes).toEqual([{ id: created.taxRate.id }]);

    const updated = ok(
      await own(`mutation($id: ID!, $ifMatch: String, $input: UpdateTaxRateInput!) { updateTaxRate(id: $id, ifMatch: $ifMatch, input: $input) { etag taxRate { ${TAX_RATE} } } }`, {
        id: created.taxRate.id,
        ifMatch: created.etag,
        input: { rate: 100 },
      }),
    ).updateTaxRate;
    expect(updated.taxRate.rate).toBe('100.0000');
    for (const rate of [101, -1]) {
      const res = await own(`mutation($input: CreateTaxRateInput!) { createTaxRate(input: $input) { taxRate { id } ${USER_ERRORS} } }`, { input: { name: 'Bad', rate } });
      expectError(res, 'validation.failed', [['input', 'rate']]);
    }
  });
});

describe('systems', () => {
  const CREATE = `mutation($input: CreateSystemInput!) { createSystem(input: $input) { etag system { ${SYSTEM} } ${USER_ERRORS} } }`;

  it('creates, reads, lists and updates a system through the same service as REST', async () => {
    const siteId = await newSite();
    const created = ok(
      await gql(CREATE, {
        input: { siteId, systemType: 'HVAC', name: 'Furnace', manufacturer: 'Carrier', installDate: '2021-03-15', systemOptionId: '01900000-0000-7000-8000-000000000001' },
      }),
    ).createSystem;
    expect(created.system).toMatchObject({ siteId, systemType: 'HVAC', name: 'Furnace', installDate: '2021-03-15', systemOptionId: '01900000-0000-7000-8000-000000000001' });
    expect(camelRecord((await rest.get(`/systems/${created.system.id}`)).body.data)).toEqual(created.system);
    expect(ok(await gql(`query($id: ID!) { system(id: $id) { ${SYSTEM} } }`, { id: created.system.id })).system).toEqual(created.system);
    expect(ok(await gql(`query($siteId: ID) { systems(filter: { siteId: $siteId, systemType: "HVAC" }) { nodes { id } } }`, { siteId })).systems.nodes).toEqual([{ id: created.system.id }]);

    const updated = ok(
      await gql(`mutation($id: ID!, $ifMatch: String, $input: UpdateSystemInput!) { updateSystem(id: $id, ifMatch: $ifMatch, input: $input) { etag system { ${SYSTEM} } } }`, {
        id: created.system.id,
        ifMatch: created.etag,
        input: { serialNumber: 'SN-9', installDate: null },
      }),
    ).updateSystem;
    expect(updated.system).toMatchObject({ serialNumber: 'SN-9', installDate: null, name: 'Furnace' });
  });

  it('answers system.duplicate in the userErrors of createSystem for a second system of the type, and creates it with confirmed: true', async () => {
    const siteId = await newSite();
    ok(await gql(CREATE, { input: { siteId, systemType: 'Plumbing', name: 'Heater' } }));
    const duplicate = await gql(CREATE, { input: { siteId, systemType: 'Plumbing', name: 'Second heater' } });
    expect(duplicate.body.data).toEqual({ createSystem: { etag: null, system: null, userErrors: [{ field: null, message: expect.any(String), code: 'system.duplicate' }] } });
    expectError(duplicate, 'system.duplicate', [null]);
    const confirmed = ok(await gql(CREATE, { input: { siteId, systemType: 'Plumbing', name: 'Second heater', confirmed: true } })).createSystem;
    expect(confirmed.system).toMatchObject({ siteId, systemType: 'Plumbing', name: 'Second heater' });
    expect(ok(await gql(`query($siteId: ID) { systems(filter: { siteId: $siteId }) { nodes { id } } }`, { siteId })).systems.nodes).toHaveLength(2);
  });

  it('does not serve confirmed on the System type; UpdateSystemInput takes it to change systemType to a type already on the site', async () => {
    const read = await gql(`{ systems { nodes { id confirmed } } }`);
    expect(read.body.errors?.[0]?.extensions?.code).toBe('graphql.validation_failed');
    const siteId = await newSite();
    ok(await gql(CREATE, { input: { siteId, systemType: 'HVAC', name: 'x' } }));
    const created = ok(await gql(CREATE, { input: { siteId, systemType: 'Boiler', name: 'y' } })).createSystem;
    const UPDATE = `mutation($id: ID!, $ifMatch: String, $input: UpdateSystemInput!) { updateSystem(id: $id, ifMatch: $ifMatch, input: $input) { system { id systemType } ${USER_ERRORS} } }`;
    const duplicate = await gql(UPDATE, { id: created.system.id, ifMatch: created.etag, input: { systemType: 'hvac' } });
    expectError(duplicate, 'system.duplicate', [null]);
    const confirmed = ok(await gql(UPDATE, { id: created.system.id, ifMatch: created.etag, input: { systemType: 'hvac', confirmed: true } })).updateSystem;
    expect(confirmed.system.systemType).toBe('hvac');
  });

  it("refuses another tenant's site (siteId) and an unknown system option (systemOptionId) with validation.failed", async () => {
    const other = (await t.newTenant()).gql;
    const r = records(other);
    const theirSite = (await r.site(await r.customer(unique('Org ')), 'CUSTOMER', unique('Site '))).id;
    const foreign = await gql(CREATE, { input: { siteId: theirSite, systemType: 'HVAC', name: 'x' } });
    expectError(foreign, 'validation.failed', [['input', 'siteId']]);
    const option = await gql(CREATE, { input: { siteId: await newSite(), systemType: 'HVAC', name: 'x', systemOptionId: randomUUID() } });
    expectError(option, 'validation.failed', [['input', 'systemOptionId']]);
    const date = await gql(CREATE, { input: { siteId: await newSite(), systemType: 'HVAC', name: 'x', installDate: 'someday' } });
    expect(failed(date, 'validation.failed')).toEqual([{ field: ['input', 'installDate'], message: 'installDate is not a valid date (YYYY-MM-DD)', code: 'validation.failed' }]);
  });
});
