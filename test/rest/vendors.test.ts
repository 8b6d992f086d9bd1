import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem } from '../helpers/factories/catalog.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Vendors over REST: a supplier with a name unique per account whatever its case, contact and billing address
// fields, payment terms, status (Active, Inactive), labels and custom fields; no number (decisions.md); soft
// delete; the list's filters, sorts and q; and an item's preferred vendor (a live vendor of the tenant, a filter
// of the item list, kept when the vendor is deleted).

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

const createVendor = (fields: Record<string, unknown> = {}) => createRecord(api, 'vendors', 'vendor', { name: unique('Vendor '), ...fields });

describe('vendors: the five endpoints', () => {
  it('creates a vendor with every field, status Active, and answers 201 with Location, ETag and {data}', async () => {
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Vendor', name: 'Preferred' });
    const terms = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Vendor', name: 'Account manager', type: 'text' })).id;
    const fields = {
      name: 'Northwind Supply',
      email: 'orders@northwind.test',
      phone: '+1 555 0100',
      website: 'https://northwind.test',
      reference: 'V-0042',
      tax_id: '12-3456789',
      payment_terms_days: 30,
      street: '1 Harbour Rd',
      street2: 'Unit 4',
      city: 'Portland',
      state: 'OR',
      zip_code: '97201',
      country: 'US',
      vendor_notes: 'Call before noon.',
      labels: ['Preferred'],
      custom_fields: { [terms]: 'Dana' },
    };
    const res = await api.post('/vendors', { vendor: fields });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, status: 'Active' });
    expect(data).not.toHaveProperty('number');
    expect(data.id).toMatch(uuidV7);
    expect(res.headers.get('location')).toBe(`/api/v2/vendors/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/vendors/${data.id}`);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['vendor.created']);
  });

  it('creates from a name alone (the other fields null) and requires the name', async () => {
    const created = await createVendor();
    expect(created.record).toMatchObject({ email: null, phone: null, payment_terms_days: null, city: null, labels: [], custom_fields: {}, status: 'Active' });
    expectProblem(await api.post('/vendors', { vendor: { email: 'a@b.test' } }), { status: 422, code: 'validation.failed', errors: { name: true }, onlyErrors: true });
    expectProblem(await api.post('/vendors', { vendor: { name: '   ' } }), { status: 422, code: 'validation.failed', errors: { name: true }, onlyErrors: true });
  });

  it('refuses a name another live vendor has in any case, and frees it when that vendor is deleted', async () => {
    const name = unique('Acme ');
    const first = await createVendor({ name });
    expectProblem(await api.post('/vendors', { vendor: { name: name.toUpperCase() } }), { status: 422, code: 'validation.failed', errors: { name: ['has already been taken'] } });
    const other = await createVendor();
    expectProblem(await api.patch(`/vendors/${other.id}`, { vendor: { name: name.toLowerCase() } }, ifMatch(other.etag)), { status: 422, code: 'validation.failed', errors: { name: ['has already been taken'] } });
    await deleteRecord(api, 'vendors', first.id);
    expect((await createVendor({ name })).record.name).toBe(name);
  });

  it('validates email, payment_terms_days (0 to 365) naming each field, and refuses a status the account has not configured (status.transition_invalid)', async () => {
    expectProblem(await api.post('/vendors', { vendor: { name: unique(), email: 'not-an-email', payment_terms_days: 366 } }), {
      status: 422,
      code: 'validation.failed',
      errors: { email: true, payment_terms_days: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/vendors', { vendor: { name: unique(), payment_terms_days: 1.5 } }), { status: 422, code: 'validation.failed', errors: { payment_terms_days: true } });
    const vendor = await createVendor({ payment_terms_days: 0 });
    expect(vendor.record.payment_terms_days).toBe(0);
    expectProblem(await api.patch(`/vendors/${vendor.id}`, { vendor: { status: 'Lapsed' } }, ifMatch(vendor.etag)), { status: 422, code: 'status.transition_invalid' });
  });

  it('updates the fields sent, clears optional ones with null, moves the status (vendor.status_changed) and changes the ETag', async () => {
    const vendor = await createVendor({ city: 'Salem', payment_terms_days: 15 });
    const updated = await updateRecord(api, 'vendors', 'vendor', vendor, { city: null, payment_terms_days: 45, status: 'Inactive' });
    expect(updated.record).toMatchObject({ city: null, payment_terms_days: 45, status: 'Inactive', name: vendor.record.name });
    expect(updated.etag).not.toBe(vendor.etag);
    expect((await api.get(`/vendors/${vendor.id}`)).body.data).toEqual(updated.record);
    expect((await eventsOf(vendor.id)).map((e) => [e.topic, e.details])).toEqual([
      ['vendor.created', null],
      ['vendor.updated', { changed_fields: ['city', 'payment_terms_days', 'status'] }],
      ['vendor.status_changed', { previous_status: 'Active', status: 'Inactive' }],
    ]);
  });

  it('refuses a number: vendors are not numbered', async () => {
    expectProblem(await api.post('/vendors', { vendor: { name: unique(), number: 'V-1' } }), { status: 422, code: 'validation.failed', errors: { number: true } });
  });

  it('soft-deletes a vendor: 204, then 404 and gone from the list', async () => {
    const vendor = await createVendor();
    await deleteRecord(api, 'vendors', vendor.id);
    expectProblem(await api.get(`/vendors/${vendor.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/vendors?limit=100`))).not.toContain(vendor.id);
    expect((await eventsOf(vendor.id)).map((e) => e.topic)).toEqual(['vendor.created', 'vendor.deleted']);
  });
});

describe('vendors: the list', () => {
  it('sorts by name by default, and filters by status, name, reference and q over name, email, phone, reference and city', async () => {
    const own = await t.newTenant();
    const make = (fields: Record<string, unknown>) => createRecord(own.api, 'vendors', 'vendor', fields);
    const charlie = await make({ name: 'Charlie Parts', city: 'Boise', reference: 'R-3' });
    const alpha = await make({ name: 'Alpha Electric', email: 'sales@alpha.test' });
    const created = await make({ name: 'Bravo Plumbing', phone: '+1 555 777' });
    const bravo = await updateRecord(own.api, 'vendors', 'vendor', created, { status: 'Inactive' });
    expect(idsOf(await own.api.get('/vendors'))).toEqual([alpha.id, bravo.id, charlie.id]);
    expect(idsOf(await own.api.get('/vendors?sort=-name'))).toEqual([charlie.id, bravo.id, alpha.id]);
    expect(idsOf(await own.api.get('/vendors?status=Inactive'))).toEqual([bravo.id]);
    expect(idsOf(await own.api.get('/vendors?name=Charlie%20Parts'))).toEqual([charlie.id]);
    expect(idsOf(await own.api.get('/vendors?reference=R-3'))).toEqual([charlie.id]);
    expect(idsOf(await own.api.get('/vendors?q=boise'))).toEqual([charlie.id]);
    expect(idsOf(await own.api.get('/vendors?q=alpha.test'))).toEqual([alpha.id]);
    expect(idsOf(await own.api.get('/vendors?q=555%20777'))).toEqual([bravo.id]);
    expectProblem(await own.api.get('/vendors?sort=email'), { status: 400, code: 'sort.invalid' });
  });
});

describe("an item's preferred vendor", () => {
  it('names a live vendor of the tenant; the item list filters by it; a deleted vendor stays named on its items', async () => {
    const vendor = await createVendor();
    const item = await createItem(api, { preferred_vendor_id: vendor.id });
    expect(item.record.preferred_vendor_id).toBe(vendor.id);
    const other = await createItem(api);
    expect(other.record.preferred_vendor_id).toBeNull();
    expect(idsOf(await api.get(`/items?preferred_vendor_id=${vendor.id}`))).toEqual([item.id]);
    const theirs = await t.newTenant();
    const foreign = await createRecord(theirs.api, 'vendors', 'vendor', { name: unique() });
    expectProblem(await api.post('/items', { item: { name: 'Valve', item_type: 'material', unit_price: '3', preferred_vendor_id: foreign.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { preferred_vendor_id: true },
    });
    await deleteRecord(api, 'vendors', vendor.id);
    expect((await api.get(`/items/${item.id}`)).body.data.preferred_vendor_id).toBe(vendor.id);
    const current = await api.get(`/items/${other.id}`);
    expectProblem(await api.patch(`/items/${other.id}`, { item: { preferred_vendor_id: vendor.id } }, ifMatch(current.headers.get('etag')!)), {
      status: 422,
      code: 'validation.failed',
      errors: { preferred_vendor_id: true },
    });
  });
});
