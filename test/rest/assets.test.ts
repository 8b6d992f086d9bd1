import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { createPlace, createSite } from '../helpers/factories/sites.ts';
import { createSystem } from '../helpers/factories/systems.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Assets over REST: equipment installed at a site, its customer derived from the site (read-only, following the
// site), an optional system at the same site, a serial number unique per account among live assets whatever its
// case, a warranty that cannot expire before the install date, statuses (Active, Inactive, Retired), labels and
// custom fields, no number (decisions.md), soft delete, and the list's filters (site, customer, serial, warranty
// and install ranges), sorts and q.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

const createAsset = (siteId: string, fields: Record<string, unknown> = {}) => createRecord(api, 'assets', 'asset', { site_id: siteId, name: unique('Unit '), ...fields });

describe('assets: the five endpoints', () => {
  it('creates an asset with every field, status Active, the customer of its site, and answers 201 with Location, ETag and {data}', async () => {
    const { customer, site } = await createPlace(api);
    const system = await createSystem(api, site.id);
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Asset', name: 'Critical' });
    const refrigerant = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Asset', name: 'Refrigerant', type: 'text' })).id;
    const fields = {
      site_id: site.id,
      system_id: system.id,
      name: 'Rooftop unit 2',
      make: 'Carrier',
      model: '48TC',
      serial_number: unique('SN-'),
      install_date: '2024-03-01',
      warranty_expires_on: '2029-02-28',
      location_note: 'Roof, north side',
      labels: ['Critical'],
      custom_fields: { [refrigerant]: 'R-410A' },
    };
    const res = await api.post('/assets', { asset: fields });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, customer_id: customer.id, status: 'Active' });
    expect(data).not.toHaveProperty('number');
    expect(data.id).toMatch(uuidV7);
    expect(res.headers.get('location')).toBe(`/api/v2/assets/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/assets/${data.id}`);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['asset.created']);
  });

  it('creates from a site and a name alone, requires both, and refuses a site of another tenant or a deleted one', async () => {
    const { site } = await createPlace(api);
    const created = await createAsset(site.id);
    expect(created.record).toMatchObject({ system_id: null, make: null, serial_number: null, install_date: null, warranty_expires_on: null, labels: [], custom_fields: {}, status: 'Active' });
    expectProblem(await api.post('/assets', { asset: { make: 'Trane' } }), { status: 422, code: 'validation.failed', errors: { site_id: true, name: true }, onlyErrors: true });
    const theirs = await t.newTenant();
    const foreign = await createPlace(theirs.api);
    expectProblem(await api.post('/assets', { asset: { site_id: foreign.site.id, name: 'Boiler' } }), { status: 422, code: 'validation.failed', errors: { site_id: ['does not match any Site'] }, onlyErrors: true });
    const gone = await createSite(api, { type: 'Customer', id: (await createPlace(api)).customer.id });
    await deleteRecord(api, 'sites', gone.id);
    expectProblem(await api.post('/assets', { asset: { site_id: gone.id, name: 'Boiler' } }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
  });

  it('refuses customer_id in a body: it is the site\'s, never written', async () => {
    const { customer, site } = await createPlace(api);
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Boiler', customer_id: customer.id } }), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
  });

  it("serves a null customer for a lead's site", async () => {
    const lead = await createLead(api);
    const site = await createSite(api, { type: 'Lead', id: lead.id });
    expect((await createAsset(site.id)).record.customer_id).toBeNull();
  });

  it('moves with its site: customer_id follows the new site; a system of the old site must be cleared or replaced', async () => {
    const first = await createPlace(api);
    const second = await createPlace(api);
    const system = await createSystem(api, first.site.id);
    const asset = await createAsset(first.site.id, { system_id: system.id });
    expectProblem(await api.patch(`/assets/${asset.id}`, { asset: { site_id: second.site.id } }, ifMatch(asset.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { system_id: true },
      onlyErrors: true,
    });
    const newSystem = await createSystem(api, second.site.id);
    const moved = await updateRecord(api, 'assets', 'asset', asset, { site_id: second.site.id, system_id: newSystem.id });
    expect(moved.record).toMatchObject({ site_id: second.site.id, customer_id: second.customer.id, system_id: newSystem.id });
    const cleared = await updateRecord(api, 'assets', 'asset', moved, { site_id: first.site.id, system_id: null });
    expect(cleared.record).toMatchObject({ site_id: first.site.id, customer_id: first.customer.id, system_id: null });
    expect((await eventsOf(asset.id)).map((e) => e.topic)).toEqual(['asset.created', 'asset.updated', 'asset.updated']);
  });

  it('refuses a system at another site, a deleted system and another tenant\'s system', async () => {
    const { site } = await createPlace(api);
    const elsewhere = await createSystem(api, (await createPlace(api)).site.id);
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Coil', system_id: elsewhere.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { system_id: ['must be a system at site_id'] },
      onlyErrors: true,
    });
    const here = await createSystem(api, site.id);
    const asset = await createAsset(site.id);
    expectProblem(await api.patch(`/assets/${asset.id}`, { asset: { system_id: elsewhere.id } }, ifMatch(asset.etag)), { status: 422, code: 'validation.failed', errors: { system_id: true } });
    await deleteRecord(api, 'systems', here.id);
    expectProblem(await api.patch(`/assets/${asset.id}`, { asset: { system_id: here.id } }, ifMatch(asset.etag)), { status: 422, code: 'validation.failed', errors: { system_id: ['does not match any System'] } });
    const theirs = await t.newTenant();
    const foreign = await createSystem(theirs.api, (await createPlace(theirs.api)).site.id);
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Coil', system_id: foreign.id } }), { status: 422, code: 'validation.failed', errors: { system_id: ['does not match any System'] } });
  });

  it('refuses a serial number another live asset of the account has in any case, frees it on delete, and lets another tenant use it', async () => {
    const { site } = await createPlace(api);
    const serial = unique('SN-abc-');
    const first = await createAsset(site.id, { serial_number: serial });
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Twin', serial_number: serial.toUpperCase() } }), {
      status: 422,
      code: 'validation.failed',
      errors: { serial_number: ['has already been taken'] },
    });
    const other = await createAsset(site.id);
    expectProblem(await api.patch(`/assets/${other.id}`, { asset: { serial_number: serial.toLowerCase() } }, ifMatch(other.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { serial_number: ['has already been taken'] },
    });
    // Several assets without a serial number are fine.
    await createAsset(site.id);
    const theirs = await t.newTenant();
    expect((await createRecord(theirs.api, 'assets', 'asset', { site_id: (await createPlace(theirs.api)).site.id, name: 'Twin', serial_number: serial })).record.serial_number).toBe(serial);
    await deleteRecord(api, 'assets', first.id);
    expect((await createAsset(site.id, { serial_number: serial })).record.serial_number).toBe(serial);
  });

  it('refuses a warranty that expires before the install date, on create and when an update moves either date', async () => {
    const { site } = await createPlace(api);
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Boiler', install_date: '2024-05-02', warranty_expires_on: '2024-05-01' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { warranty_expires_on: ['must not be before install_date'] },
      onlyErrors: true,
    });
    const asset = await createAsset(site.id, { install_date: '2024-05-01', warranty_expires_on: '2024-05-01' });
    expectProblem(await api.patch(`/assets/${asset.id}`, { asset: { install_date: '2024-06-01' } }, ifMatch(asset.etag)), { status: 422, code: 'validation.failed', errors: { warranty_expires_on: true } });
    expectProblem(await api.patch(`/assets/${asset.id}`, { asset: { warranty_expires_on: '2023-12-31' } }, ifMatch(asset.etag)), { status: 422, code: 'validation.failed', errors: { warranty_expires_on: true } });
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Boiler', install_date: '2024-02-30' } }), { status: 422, code: 'validation.failed', errors: { install_date: true } });
    const cleared = await updateRecord(api, 'assets', 'asset', asset, { install_date: '2025-01-01', warranty_expires_on: null });
    expect(cleared.record).toMatchObject({ install_date: '2025-01-01', warranty_expires_on: null });
  });

  it('moves the status (asset.status_changed), refuses a status the account has not configured, and refuses a number', async () => {
    const { site } = await createPlace(api);
    const asset = await createAsset(site.id);
    expectProblem(await api.patch(`/assets/${asset.id}`, { asset: { status: 'Scrapped' } }, ifMatch(asset.etag)), { status: 422, code: 'status.transition_invalid' });
    const retired = await updateRecord(api, 'assets', 'asset', asset, { status: 'Retired', location_note: 'Basement' });
    expect(retired.record).toMatchObject({ status: 'Retired', location_note: 'Basement' });
    expect(retired.etag).not.toBe(asset.etag);
    expect((await eventsOf(asset.id)).map((e) => [e.topic, e.details])).toEqual([
      ['asset.created', null],
      ['asset.updated', { changed_fields: ['location_note', 'status'] }],
      ['asset.status_changed', { previous_status: 'Active', status: 'Retired' }],
    ]);
    expectProblem(await api.post('/assets', { asset: { site_id: site.id, name: 'Boiler', number: 'A-1' } }), { status: 422, code: 'validation.failed', errors: { number: true } });
  });

  it('soft-deletes an asset: 204, then 404 and gone from the list', async () => {
    const { site } = await createPlace(api);
    const asset = await createAsset(site.id);
    await deleteRecord(api, 'assets', asset.id);
    expectProblem(await api.get(`/assets/${asset.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/assets?site_id=${site.id}`))).not.toContain(asset.id);
    expect((await eventsOf(asset.id)).map((e) => e.topic)).toEqual(['asset.created', 'asset.deleted']);
  });
});

describe('assets: the list', () => {
  it('filters by site, customer, system, serial number, warranty expiry and install ranges and status; sorts by warranty expiry; q over name, make, model, serial number and location note', async () => {
    const own = await t.newTenant();
    const make = (fields: Record<string, unknown>) => createRecord(own.api, 'assets', 'asset', fields);
    const north = await createPlace(own.api);
    const south = await createPlace(own.api);
    const system = await createSystem(own.api, north.site.id);
    const boiler = await make({ site_id: north.site.id, name: 'Boiler', make: 'Viessmann', serial_number: 'VX-1', install_date: '2020-01-10', warranty_expires_on: '2025-01-10', system_id: system.id });
    const panel = await make({ site_id: north.site.id, name: 'Panel', model: 'QO-200', install_date: '2022-06-01', warranty_expires_on: '2032-06-01' });
    const created = await make({ site_id: south.site.id, name: 'Heat pump', location_note: 'Garden shed', warranty_expires_on: '2027-09-30' });
    const pump = await updateRecord(own.api, 'assets', 'asset', created, { status: 'Inactive' });
    expect(idsOf(await own.api.get('/assets'))).toEqual([pump.id, panel.id, boiler.id]);
    expect(idsOf(await own.api.get(`/assets?site_id=${north.site.id}`))).toEqual([panel.id, boiler.id]);
    expect(idsOf(await own.api.get(`/assets?customer_id=${south.customer.id}`))).toEqual([pump.id]);
    expect(idsOf(await own.api.get(`/assets?system_id=${system.id}`))).toEqual([boiler.id]);
    expect(idsOf(await own.api.get('/assets?serial_number=VX-1'))).toEqual([boiler.id]);
    expect(idsOf(await own.api.get('/assets?status=Inactive'))).toEqual([pump.id]);
    expect(idsOf(await own.api.get('/assets?warranty_expires_on[gte]=2026-01-01&warranty_expires_on[lt]=2030-01-01'))).toEqual([pump.id]);
    expect(idsOf(await own.api.get('/assets?install_date[lte]=2021-01-01'))).toEqual([boiler.id]);
    expect(idsOf(await own.api.get('/assets?sort=warranty_expires_on'))).toEqual([boiler.id, pump.id, panel.id]);
    expect(idsOf(await own.api.get('/assets?sort=-name'))).toEqual([panel.id, pump.id, boiler.id]);
    expect(idsOf(await own.api.get('/assets?q=viessmann'))).toEqual([boiler.id]);
    expect(idsOf(await own.api.get('/assets?q=qo-200'))).toEqual([panel.id]);
    expect(idsOf(await own.api.get('/assets?q=garden'))).toEqual([pump.id]);
    expect(idsOf(await own.api.get('/assets?q=vx-1'))).toEqual([boiler.id]);
    expectProblem(await own.api.get('/assets?sort=make'), { status: 400, code: 'sort.invalid' });
    expectProblem(await own.api.get('/assets?warranty_expires_on[gte]=soon'), { status: 400, code: 'filter.invalid' });
  });
});

describe("a job's assets (asset_ids)", () => {
  const createJob = (fields: Record<string, unknown>) => createRecord(api, 'jobs', 'job', fields);

  it('names assets of its site on create, serves them as a list of ids in the order given, and filters jobs by asset_id', async () => {
    const { customer, site } = await createPlace(api);
    const boiler = await createAsset(site.id);
    const pump = await createAsset(site.id);
    const job = await createJob({ customer_id: customer.id, site_id: site.id, asset_ids: [pump.id, boiler.id] });
    expect(job.record.asset_ids).toEqual([pump.id, boiler.id]);
    expect((await api.get(`/jobs/${job.id}`)).body.data.asset_ids).toEqual([pump.id, boiler.id]);
    const plain = await createJob({ customer_id: customer.id, site_id: site.id });
    expect(plain.record.asset_ids).toEqual([]);
    expect(idsOf(await api.get(`/jobs?asset_id=${boiler.id}`))).toEqual([job.id]);
    expect(idsOf(await api.get(`/jobs?asset_id=${boiler.id}&site_id=${site.id}`))).toEqual([job.id]);
    const listed = (await api.get(`/jobs?site_id=${site.id}`)).body.data;
    expect(listed.map((j: { asset_ids: string[] }) => j.asset_ids)).toEqual([[], [pump.id, boiler.id]]);
  });

  it('replaces the list as a snapshot on update, and supplying it changes the ETag even when the list is the same', async () => {
    const { customer, site } = await createPlace(api);
    const [a, b, c] = [await createAsset(site.id), await createAsset(site.id), await createAsset(site.id)];
    const job = await createJob({ customer_id: customer.id, site_id: site.id, asset_ids: [a.id, b.id] });
    const same = await updateRecord(api, 'jobs', 'job', job, { asset_ids: [a.id, b.id] });
    expect(same.record.asset_ids).toEqual([a.id, b.id]);
    expect(same.etag).not.toBe(job.etag);
    const reordered = await updateRecord(api, 'jobs', 'job', same, { asset_ids: [c.id, a.id] });
    expect(reordered.record.asset_ids).toEqual([c.id, a.id]);
    const kept = await updateRecord(api, 'jobs', 'job', reordered, { title: 'Annual service' });
    expect(kept.record.asset_ids).toEqual([c.id, a.id]);
    const emptied = await updateRecord(api, 'jobs', 'job', kept, { asset_ids: [] });
    expect(emptied.record.asset_ids).toEqual([]);
    expect(idsOf(await api.get(`/jobs?asset_id=${a.id}`))).toEqual([]);
    const events = await eventsOf(job.id);
    expect(events.map((e) => [e.topic, e.details])).toContainEqual(['job.updated', { changed_fields: ['asset_ids'] }]);
  });

  it('refuses an asset of another site, of another tenant, a deleted one, an id given twice and a value that is not an id, naming the index', async () => {
    const { customer, site } = await createPlace(api);
    const here = await createAsset(site.id);
    const elsewhere = await createAsset((await createPlace(api)).site.id);
    const theirs = await t.newTenant();
    const foreign = await createRecord(theirs.api, 'assets', 'asset', { site_id: (await createPlace(theirs.api)).site.id, name: 'Theirs' });
    const gone = await createAsset(site.id);
    await deleteRecord(api, 'assets', gone.id);
    const base = { customer_id: customer.id, site_id: site.id };
    expectProblem(await api.post('/jobs', { job: { ...base, asset_ids: [here.id, elsewhere.id, foreign.id, gone.id] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'asset_ids.1': ['is an asset at another site than site_id'], 'asset_ids.2': ['does not match any Asset'], 'asset_ids.3': ['does not match any Asset'] },
      onlyErrors: true,
    });
    expectProblem(await api.post('/jobs', { job: { ...base, asset_ids: [here.id, here.id.toUpperCase()] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'asset_ids.1': ['is given more than once'] },
      onlyErrors: true,
    });
    expectProblem(await api.post('/jobs', { job: { ...base, asset_ids: ['boiler', null] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'asset_ids.0': ['is not a valid UUID'], 'asset_ids.1': ["can't be blank"] },
      onlyErrors: true,
    });
    expectProblem(await api.post('/jobs', { job: { ...base, asset_ids: here.id } }), { status: 422, code: 'validation.failed', errors: { asset_ids: ['must be an array'] } });
  });

  it('keeps an asset the job already names after the asset is deleted, and refuses it once removed', async () => {
    const { customer, site } = await createPlace(api);
    const asset = await createAsset(site.id);
    const other = await createAsset(site.id);
    const job = await createJob({ customer_id: customer.id, site_id: site.id, asset_ids: [asset.id] });
    await deleteRecord(api, 'assets', asset.id);
    const kept = await updateRecord(api, 'jobs', 'job', job, { asset_ids: [asset.id, other.id] });
    expect(kept.record.asset_ids).toEqual([asset.id, other.id]);
    const removed = await updateRecord(api, 'jobs', 'job', kept, { asset_ids: [other.id] });
    expectProblem(await api.patch(`/jobs/${job.id}`, { job: { asset_ids: [asset.id] } }, ifMatch(removed.etag)), { status: 422, code: 'validation.failed', errors: { 'asset_ids.0': true } });
  });
});
