import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, type Tenant, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, customerTarget, uniqueOrganization, updateCustomer } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { type Created, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { createSite, siteFields } from '../helpers/factories/sites.ts';
import { systemOptionIds } from '../helpers/factories/systems.ts';
import type { Client } from '../helpers/http.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Sites over REST: every field and rule of the spec's Site table (siteable pair, required fields, position,
// latitude/longitude, system_option_id, custom_fields), the five endpoints, the list's filters, sorts and q,
// and the primary site address that the customer list's q covers.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

describe('POST /sites', () => {
  it('creates a site with every create field and answers 201 with Location, ETag and {data}', async () => {
    const parent = await customerTarget(api);
    const region = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Site', name: 'Gate code', type: 'text' })).id;
    const fields = {
      site_name: 'Head Office',
      street: '1 Main Street',
      street2: 'Suite 200',
      city: 'Springfield',
      state: 'IL',
      zip_code: '62701',
      description: 'Back entrance',
      latitude: 39.7817,
      longitude: -89.6501,
      recurring_instructions: 'Call ahead',
      custom_fields: { [region]: '4711' },
      position: 7,
      system_option_id: systemOptionIds[0],
      siteable_id: parent.id,
      siteable_type: 'Customer',
    };
    const res = await api.post('/sites', { site: fields });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const data = res.body.data;
    expect(data).toMatchObject(fields);
    expect(data.id).toMatch(uuidV7);
    expect(new Date(data.created_at).toISOString()).toBe(data.created_at);
    expect(data.updated_at).toBe(data.created_at);
    expect(res.headers.get('location')).toBe(`/api/v2/sites/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/sites/${data.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('creates a site from the required fields alone, the optional ones empty', async () => {
    const parent = await customerTarget(api);
    const created = await createSite(api, parent);
    expect(created.record).toMatchObject({
      street2: null,
      zip_code: null,
      description: null,
      latitude: null,
      longitude: null,
      recurring_instructions: null,
      system_option_id: null,
      custom_fields: {},
      position: 0,
      siteable_id: parent.id,
      siteable_type: 'Customer',
    });
  });

  it('requires site_name, street, city, state, siteable_id and siteable_type, naming each one missing', async () => {
    expectProblem(await api.post('/sites', { site: {} }), {
      status: 422,
      code: 'validation.failed',
      errors: {
        site_name: ['is missing'],
        street: ['is missing'],
        city: ['is missing'],
        state: ['is missing'],
        siteable_id: ['is missing'],
        siteable_type: ['is missing'],
      },
      onlyErrors: true,
    });
    const parent = await customerTarget(api);
    for (const field of ['site_name', 'street', 'city', 'state']) {
      const body = siteFields(parent);
      delete body[field];
      expectProblem(await api.post('/sites', { site: body }), { status: 422, code: 'validation.failed', errors: { [field]: ['is missing'] }, onlyErrors: true });
      for (const blank of [null, '', '  ']) {
        expectProblem(await api.post('/sites', { site: { ...siteFields(parent), [field]: blank } }), {
          status: 422,
          code: 'validation.failed',
          errors: { [field]: ["can't be blank"] },
          onlyErrors: true,
        });
      }
    }
  });

  it('requires the siteable pair together: either half alone is 422 naming the other', async () => {
    const parent = await customerTarget(api);
    const { siteable_type: _type, ...noType } = siteFields(parent);
    expectProblem(await api.post('/sites', { site: noType }), { status: 422, code: 'validation.failed', errors: { siteable_type: true }, onlyErrors: true });
    const { siteable_id: _id, ...noId } = siteFields(parent);
    expectProblem(await api.post('/sites', { site: noId }), { status: 422, code: 'validation.failed', errors: { siteable_id: true }, onlyErrors: true });
  });

  it('accepts siteable_type Customer and Lead only (exact case), 422 naming siteable_type otherwise', async () => {
    const parent = await customerTarget(api);
    for (const siteable_type of ['Site', 'Contact', 'customer', 'CUSTOMER', 'lead', '', 7]) {
      expectProblem(await api.post('/sites', { site: siteFields(parent, { siteable_type }) }), {
        status: 422,
        code: 'validation.failed',
        errors: { siteable_type: true },
        onlyErrors: true,
      });
    }
  });

  it('creates a site under a lead', async () => {
    const lead = await createLead(api);
    const site = await createSite(api, { type: 'Lead', id: lead.id });
    expect(site.record).toMatchObject({ siteable_type: 'Lead', siteable_id: lead.id, position: 0 });
  });

  it('refuses a siteable_id that matches no live parent of that type with 422 naming siteable_id', async () => {
    const other = await t.newTenant();
    const theirCustomer = await createCustomer(other.api);
    const theirLead = await createLead(other.api);
    const deleted = await createCustomer(api);
    await deleteRecord(api, 'customers', deleted.id);
    const deletedLead = await createLead(api);
    await deleteRecord(api, 'leads', deletedLead.id);
    const mine = await createCustomer(api);
    const myLead = await createLead(api);
    const cases: [string, unknown][] = [
      ['Customer', randomUUID()],
      ['Customer', theirCustomer.id],
      ['Lead', theirLead.id],
      ['Customer', deleted.id],
      ['Lead', deletedLead.id],
      ['Lead', mine.id], // a customer's id given as a Lead
      ['Customer', myLead.id], // a lead's id given as a Customer
      ['Customer', 'not-a-uuid'],
      ['Customer', 42],
    ];
    for (const [siteable_type, siteable_id] of cases) {
      expectProblem(await api.post('/sites', { site: siteFields({ type: 'Customer', id: mine.id }, { siteable_type, siteable_id }) }), {
        status: 422,
        code: 'validation.failed',
        errors: { siteable_id: true },
        onlyErrors: true,
      });
    }
    const theirs = await other.api.get(`/sites?customer_id=${theirCustomer.id}`);
    expect(theirs.body.data).toEqual([]);
  });

  it('refuses unknown and server-owned fields (customer_id, lead_id, id) with 422 naming each', async () => {
    const parent = await customerTarget(api);
    expectProblem(await api.post('/sites', { site: siteFields(parent, { colour: 'red', customer_id: parent.id, lead_id: null, id: randomUUID() }) }), {
      status: 422,
      code: 'validation.failed',
      errors: { colour: true, customer_id: true, lead_id: true, id: true },
      onlyErrors: true,
    });
  });

  it('applies the body-shape rule ("is missing", "must be an object")', async () => {
    expectProblem(await api.post('/sites', {}), { status: 422, code: 'validation.failed', errors: { site: ['is missing'] }, onlyErrors: true });
    expectProblem(await api.post('/sites', { site: [] }), { status: 422, code: 'validation.failed', errors: { site: ['must be an object'] }, onlyErrors: true });
  });

  it('refuses wrongly typed values with 422 naming each field', async () => {
    const parent = await customerTarget(api);
    expectProblem(
      await api.post('/sites', { site: siteFields(parent, { site_name: 5, street2: ['x'], zip_code: 62701, description: { a: 1 }, recurring_instructions: true }) }),
      {
        status: 422,
        code: 'validation.failed',
        errors: { site_name: true, street2: true, zip_code: true, description: true, recurring_instructions: true },
        onlyErrors: true,
      },
    );
  });
});

describe('position', () => {
  it('defaults to the end of the parent\'s list: 0, 1, 2 per parent, independently for each parent', async () => {
    const a = await customerTarget(api);
    const b = await customerTarget(api);
    const lead = { type: 'Lead' as const, id: (await createLead(api)).id };
    const positions: Record<string, number[]> = { a: [], b: [], lead: [] };
    for (let i = 0; i < 3; i++) {
      positions.a.push((await createSite(api, a)).record.position);
      positions.b.push((await createSite(api, b)).record.position);
      positions.lead.push((await createSite(api, lead)).record.position);
    }
    expect(positions).toEqual({ a: [0, 1, 2], b: [0, 1, 2], lead: [0, 1, 2] });
  });

  it('keeps an explicit position and continues after the largest one', async () => {
    const parent = await customerTarget(api);
    expect((await createSite(api, parent, { position: 10 })).record.position).toBe(10);
    expect((await createSite(api, parent)).record.position).toBe(11);
    expect((await createSite(api, parent, { position: 0 })).record.position).toBe(0);
    expect((await createSite(api, parent)).record.position).toBe(12);
  });

  it('does not count deleted sites when choosing the next position', async () => {
    const parent = await customerTarget(api);
    await createSite(api, parent);
    const second = await createSite(api, parent);
    expect(second.record.position).toBe(1);
    await deleteRecord(api, 'sites', second.id);
    expect((await createSite(api, parent)).record.position).toBe(1);
  });

  it('hands out distinct positions to concurrent creates for one parent', async () => {
    const parent = await customerTarget(api);
    const results = await Promise.all(Array.from({ length: 8 }, () => api.post('/sites', { site: siteFields(parent) })));
    for (const res of results) expect(res.status, res.text).toBe(201);
    expect(results.map((r) => r.body.data.position).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('is changeable on update and refuses non-integers, negatives and null with 422 naming position', async () => {
    const parent = await customerTarget(api);
    const site = await createSite(api, parent);
    const moved = await updateRecord(api, 'sites', 'site', site, { position: 4 });
    expect(moved.record.position).toBe(4);
    for (const position of [1.5, -1, '2', null, true]) {
      expectProblem(await api.post('/sites', { site: siteFields(parent, { position }) }), {
        status: 422,
        code: 'validation.failed',
        errors: { position: true },
        onlyErrors: true,
      });
      expectProblem(await api.patch(`/sites/${site.id}`, { site: { position } }, ifMatch(moved.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { position: true },
        onlyErrors: true,
      });
    }
  });
});

describe('latitude and longitude', () => {
  it('accept the full ranges (latitude -90..90, longitude -180..180) and clear with null', async () => {
    const parent = await customerTarget(api);
    const south = await createSite(api, parent, { latitude: -90, longitude: -180 });
    expect(south.record).toMatchObject({ latitude: -90, longitude: -180 });
    const north = await createSite(api, parent, { latitude: 90, longitude: 180 });
    expect(north.record).toMatchObject({ latitude: 90, longitude: 180 });
    const moved = await updateRecord(api, 'sites', 'site', north, { latitude: 12.345678, longitude: -0.5 });
    expect(moved.record).toMatchObject({ latitude: 12.345678, longitude: -0.5 });
    const cleared = await updateRecord(api, 'sites', 'site', moved, { latitude: null, longitude: null });
    expect(cleared.record).toMatchObject({ latitude: null, longitude: null });
  });

  it('refuses values out of range or not numbers with 422 naming the field, on create and update', async () => {
    const parent = await customerTarget(api);
    const site = await createSite(api, parent);
    const cases: [string, unknown][] = [
      ['latitude', 90.0001],
      ['latitude', -91],
      ['latitude', '45'],
      ['longitude', 180.5],
      ['longitude', -181],
      ['longitude', 'east'],
    ];
    for (const [field, value] of cases) {
      expectProblem(await api.post('/sites', { site: siteFields(parent, { [field]: value }) }), {
        status: 422,
        code: 'validation.failed',
        errors: { [field]: true },
        onlyErrors: true,
      });
      expectProblem(await api.patch(`/sites/${site.id}`, { site: { [field]: value } }, ifMatch(site.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { [field]: true },
        onlyErrors: true,
      });
    }
    expect((await api.get(`/sites/${site.id}`)).headers.get('etag')).toBe(site.etag);
  });
});

describe('system_option_id', () => {
  it('accepts every row of the catalog and clears with null', async () => {
    const parent = await customerTarget(api);
    for (const id of systemOptionIds) {
      expect((await createSite(api, parent, { system_option_id: id })).record.system_option_id).toBe(id);
    }
    const site = await createSite(api, parent, { system_option_id: systemOptionIds[3] });
    const changed = await updateRecord(api, 'sites', 'site', site, { system_option_id: systemOptionIds[9] });
    expect(changed.record.system_option_id).toBe(systemOptionIds[9]);
    const cleared = await updateRecord(api, 'sites', 'site', changed, { system_option_id: null });
    expect(cleared.record.system_option_id).toBeNull();
  });

  it('refuses an id that is not a catalog row, or not a UUID, with 422 naming system_option_id', async () => {
    const parent = await customerTarget(api);
    const site = await createSite(api, parent);
    for (const system_option_id of [randomUUID(), '01900000-0000-7000-8000-00000000000b', parent.id, 'HVAC', 1]) {
      expectProblem(await api.post('/sites', { site: siteFields(parent, { system_option_id }) }), {
        status: 422,
        code: 'validation.failed',
        errors: { system_option_id: true },
        onlyErrors: true,
      });
      expectProblem(await api.patch(`/sites/${site.id}`, { site: { system_option_id } }, ifMatch(site.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { system_option_id: true },
        onlyErrors: true,
      });
    }
  });
});

describe('custom_fields on sites', () => {
  let own: { tenant: Tenant; api: Client };
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    own = await t.newTenant();
    const add = async (relatedName: string, name: string, type: string) =>
      (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName, name, type })).id;
    ids.text = await add('Site', 'Gate code', 'text');
    ids.number = await add('Site', 'Floors', 'number');
    ids.checkbox = await add('Site', 'Has dog', 'checkbox');
    ids.customerText = await add('Customer', 'Region', 'text');
  });

  it('are keyed by Site definition ids and merged on update (absent kept, null clears)', async () => {
    const parent = await customerTarget(own.api);
    const site = await createSite(own.api, parent, { custom_fields: { [ids.text]: '1234', [ids.number]: 3 } });
    expect(site.record.custom_fields).toEqual({ [ids.text]: '1234', [ids.number]: 3 });
    const merged = await updateRecord(own.api, 'sites', 'site', site, { custom_fields: { [ids.checkbox]: true, [ids.number]: 4 } });
    expect(merged.record.custom_fields).toEqual({ [ids.text]: '1234', [ids.number]: 4, [ids.checkbox]: true });
    const cleared = await updateRecord(own.api, 'sites', 'site', merged, { custom_fields: { [ids.text]: null } });
    expect(cleared.record.custom_fields).toEqual({ [ids.number]: 4, [ids.checkbox]: true });
    const untouched = await updateRecord(own.api, 'sites', 'site', cleared, { description: 'no custom_fields key' });
    expect(untouched.record.custom_fields).toEqual({ [ids.number]: 4, [ids.checkbox]: true });
  });

  it("refuses a Customer definition, an unknown key and a wrongly typed value with 422 naming custom_fields.<id>", async () => {
    const parent = await customerTarget(own.api);
    for (const [key, value] of [
      [ids.customerText, 'North'],
      [randomUUID(), 'x'],
      [ids.number, 'three'],
      [ids.checkbox, 'yes'],
    ] as const) {
      expectProblem(await own.api.post('/sites', { site: siteFields(parent, { custom_fields: { [key]: value } }) }), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${key}`]: true },
        onlyErrors: true,
      });
    }
  });
});

describe('GET /sites/{id}', () => {
  it('answers 404 resource.not_found for an unknown id, a non-UUID and a deleted site', async () => {
    expectProblem(await api.get(`/sites/${randomUUID()}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get('/sites/not-a-uuid'), { status: 404, code: 'resource.not_found' });
    const site = await createSite(api, await customerTarget(api));
    await deleteRecord(api, 'sites', site.id);
    expectProblem(await api.get(`/sites/${site.id}`), { status: 404, code: 'resource.not_found' });
  });
});

describe('PATCH /sites/{id}', () => {
  it('changes every updatable field, keeps the others and answers 200 with a new ETag', async () => {
    const parent = await customerTarget(api);
    const site = await createSite(api, parent, { street2: 'Unit 1', zip_code: '11111', description: 'd', recurring_instructions: 'r' });
    const changes = {
      site_name: 'Warehouse',
      street: '9 Side Road',
      street2: 'Unit 9',
      city: 'Shelbyville',
      state: 'IN',
      zip_code: '46176',
      description: 'dd',
      latitude: 1.5,
      longitude: 2.5,
      recurring_instructions: 'rr',
      position: 3,
      system_option_id: systemOptionIds[1],
    };
    const updated = await updateRecord(api, 'sites', 'site', site, changes);
    expect(updated.record).toMatchObject({ ...changes, id: site.id, siteable_id: parent.id, siteable_type: 'Customer', created_at: site.record.created_at });
    expect(updated.etag).toMatch(weakEtag);
    expect(updated.etag).not.toBe(site.etag);
    const partial = await updateRecord(api, 'sites', 'site', updated, { city: 'Capital City' });
    expect(partial.record).toMatchObject({ ...changes, city: 'Capital City' });
    const cleared = await updateRecord(api, 'sites', 'site', partial, { street2: null, zip_code: null, description: null, recurring_instructions: null });
    expect(cleared.record).toMatchObject({ street2: null, zip_code: null, description: null, recurring_instructions: null, site_name: 'Warehouse' });
  });

  it('refuses to blank a required field on update', async () => {
    const site = await createSite(api, await customerTarget(api));
    for (const field of ['site_name', 'street', 'city', 'state']) {
      for (const blank of [null, '', ' ']) {
        expectProblem(await api.patch(`/sites/${site.id}`, { site: { [field]: blank } }, ifMatch(site.etag)), {
          status: 422,
          code: 'validation.failed',
          errors: { [field]: ["can't be blank"] },
          onlyErrors: true,
        });
      }
    }
  });

  it('accepts siteable_id and siteable_type unchanged, and refuses any other value with 422 naming the field', async () => {
    const parent = await customerTarget(api);
    const otherCustomer = await createCustomer(api);
    const lead = await createLead(api);
    const site = await createSite(api, parent);
    const same = await updateRecord(api, 'sites', 'site', site, { siteable_id: parent.id, siteable_type: 'Customer', site_name: 'Same parent' });
    expect(same.record).toMatchObject({ siteable_id: parent.id, siteable_type: 'Customer', site_name: 'Same parent' });
    const refused: [string, unknown][] = [
      ['siteable_id', otherCustomer.id],
      ['siteable_id', lead.id],
      ['siteable_id', null],
      ['siteable_id', 'not-a-uuid'],
      ['siteable_type', 'Lead'],
      ['siteable_type', 'customer'],
      ['siteable_type', null],
    ];
    for (const [field, value] of refused) {
      expectProblem(await api.patch(`/sites/${site.id}`, { site: { [field]: value } }, ifMatch(same.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { [field]: true },
        onlyErrors: true,
      });
    }
    expectProblem(await api.patch(`/sites/${site.id}`, { site: { siteable_id: lead.id, siteable_type: 'Lead' } }, ifMatch(same.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { siteable_id: true, siteable_type: true },
      onlyErrors: true,
    });
    const read = await api.get(`/sites/${site.id}`);
    expect(read.body.data).toMatchObject({ siteable_id: parent.id, siteable_type: 'Customer' });
    expect(read.headers.get('etag')).toBe(same.etag);
    expect(idsOf(await api.get(`/sites?customer_id=${otherCustomer.id}`))).toEqual([]);
  });

  it('requires If-Match (428) and a current one (412)', async () => {
    const site = await createSite(api, await customerTarget(api));
    expectProblem(await api.patch(`/sites/${site.id}`, { site: { city: 'X' } }), { status: 428, code: 'precondition.required' });
    const updated = await updateRecord(api, 'sites', 'site', site, { city: 'Y' });
    expectProblem(await api.patch(`/sites/${site.id}`, { site: { city: 'Z' } }, ifMatch(site.etag)), { status: 412, code: 'precondition.failed' });
    expectProblem(await api.delete(`/sites/${site.id}`), { status: 428, code: 'precondition.required' });
    expectProblem(await api.delete(`/sites/${site.id}`, ifMatch(site.etag)), { status: 412, code: 'precondition.failed' });
    expect((await api.get(`/sites/${site.id}`)).body.data.city).toBe(updated.record.city);
  });
});

describe('DELETE /sites/{id}', () => {
  it('answers 204; the site is then 404 and absent from lists, filters and q', async () => {
    const parent = await customerTarget(api);
    const site = await createSite(api, parent);
    const keep = await createSite(api, parent);
    const res = await api.delete(`/sites/${site.id}`, ifMatch(site.etag));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await api.get(`/sites/${site.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.patch(`/sites/${site.id}`, { site: { city: 'X' } }, ifMatch(site.etag)), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.delete(`/sites/${site.id}`, ifMatch(site.etag)), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/sites?customer_id=${parent.id}`))).toEqual([keep.id]);
    expect(idsOf(await api.get(`/sites?q=${encodeURIComponent(site.record.site_name)}`))).toEqual([]);
    const row = await t.database.prisma.site.findUnique({ where: { id: site.id } });
    expect(row?.deleted_at).toBeInstanceOf(Date);
  });
});

describe('GET /sites filters', () => {
  let own: { tenant: Tenant; api: Client };
  let a: Created;
  let b: Created;
  let leadId: string;
  const sites: Record<string, string[]> = { a: [], b: [], lead: [] };
  beforeAll(async () => {
    own = await t.newTenant();
    a = await createCustomer(own.api);
    b = await createCustomer(own.api);
    leadId = (await createLead(own.api)).id;
    for (let i = 0; i < 2; i++) {
      sites.a.push((await createSite(own.api, { type: 'Customer', id: a.id })).id);
      sites.b.push((await createSite(own.api, { type: 'Customer', id: b.id })).id);
      sites.lead.push((await createSite(own.api, { type: 'Lead', id: leadId })).id);
    }
  });

  it('customer_id returns exactly that customer\'s sites', async () => {
    expect(idsOf(await own.api.get(`/sites?customer_id=${a.id}&sort=created_at`))).toEqual(sites.a);
    expect(idsOf(await own.api.get(`/sites?customer_id=${b.id}&sort=created_at`))).toEqual(sites.b);
    expect(idsOf(await own.api.get(`/sites?customer_id=${randomUUID()}`))).toEqual([]);
    expect(idsOf(await own.api.get(`/sites?customer_id=${leadId}`))).toEqual([]);
  });

  it('lead_id returns exactly that lead\'s sites', async () => {
    expect(idsOf(await own.api.get(`/sites?lead_id=${leadId}&sort=created_at`))).toEqual(sites.lead);
    expect(idsOf(await own.api.get(`/sites?lead_id=${a.id}`))).toEqual([]);
  });

  it('combines customer_id with other filters (AND)', async () => {
    expect(idsOf(await own.api.get(`/sites?customer_id=${a.id}&lead_id=${leadId}`))).toEqual([]);
  });

  it('accepts equality only: [in], comparison operators and non-UUID values answer 400 filter.invalid', async () => {
    for (const query of [
      `customer_id[in]=${a.id},${b.id}`,
      `customer_id[gt]=${a.id}`,
      `lead_id[in]=${leadId}`,
      `lead_id[lte]=${leadId}`,
      'customer_id=not-a-uuid',
      'lead_id=42',
      `customer_id=${a.id}&customer_id=${b.id}`,
      'siteable_id=' + a.id,
      'status=Active',
      'updated_at[eq]=2026-01-01T00:00:00Z',
    ]) {
      expectProblem(await own.api.get(`/sites?${query}`), { status: 400, code: 'filter.invalid' });
    }
  });

  it('filters created_at and updated_at by range', async () => {
    const range = await t.newTenant();
    const parent = await createCustomer(range.api);
    const early = await createSite(range.api, { type: 'Customer', id: parent.id });
    clock.advance(60 * 60_000);
    const boundary = clock.now().toISOString();
    clock.advance(60 * 60_000);
    const late = await createSite(range.api, { type: 'Customer', id: parent.id });
    expect(idsOf(await range.api.get(`/sites?created_at[gte]=${boundary}`))).toEqual([late.id]);
    expect(idsOf(await range.api.get(`/sites?created_at[gt]=${boundary}`))).toEqual([late.id]);
    expect(idsOf(await range.api.get(`/sites?created_at[lt]=${boundary}`))).toEqual([early.id]);
    expect(idsOf(await range.api.get(`/sites?created_at[lte]=${boundary}`))).toEqual([early.id]);
    expect(idsOf(await range.api.get(`/sites?created_at[gte]=${early.record.created_at}&created_at[lte]=${early.record.created_at}`))).toEqual([early.id]);
    clock.advance(60 * 60_000);
    const touchedAt = clock.now().toISOString();
    await updateRecord(range.api, 'sites', 'site', early, { city: 'Touched' });
    expect(idsOf(await range.api.get(`/sites?updated_at[gte]=${touchedAt}`))).toEqual([early.id]);
    expect(idsOf(await range.api.get(`/sites?updated_at[lt]=${touchedAt}`))).toEqual([late.id]);
    expectProblem(await range.api.get('/sites?created_at[gte]=yesterday'), { status: 400, code: 'filter.invalid' });
  });
});

describe('GET /sites sorts', () => {
  let own: { tenant: Tenant; api: Client };
  const made: Created[] = [];
  beforeAll(async () => {
    own = await t.newTenant();
    const parent = await createCustomer(own.api);
    for (const [name, position] of [['Charlie', 5], ['alpha', 9], ['Bravo', 1]] as const) {
      made.push(await createSite(own.api, { type: 'Customer', id: parent.id }, { site_name: name, position }));
      clock.advance(1000);
    }
    clock.advance(1000);
    made[0] = await updateRecord(own.api, 'sites', 'site', made[0], { city: 'Updated last' });
  });

  it('defaults to -created_at and honours created_at, updated_at, site_name and position both ways', async () => {
    const [charlie, alpha, bravo] = made.map((m) => m.id);
    const list = async (sort?: string) => idsOf(await own.api.get(`/sites${sort ? `?sort=${sort}` : ''}`));
    expect(await list()).toEqual([bravo, alpha, charlie]);
    expect(await list('created_at')).toEqual([charlie, alpha, bravo]);
    expect(await list('-created_at')).toEqual([bravo, alpha, charlie]);
    expect(await list('-updated_at')).toEqual([charlie, bravo, alpha]);
    expect(await list('position')).toEqual([bravo, charlie, alpha]);
    expect(await list('-position')).toEqual([alpha, charlie, bravo]);
    const byName = await list('site_name');
    expect(byName).toHaveLength(3);
    expect(await list('-site_name')).toEqual([...byName].reverse());
  });

  it('refuses an unknown sort field or several fields with 400 sort.invalid', async () => {
    for (const sort of ['city', 'customer_id', 'created_at,position', '+position']) {
      expectProblem(await own.api.get(`/sites?sort=${encodeURIComponent(sort)}`), { status: 400, code: 'sort.invalid' });
    }
  });
});

describe('GET /sites q', () => {
  let own: { tenant: Tenant; api: Client };
  let customer: Created;
  let site: Created;
  let other: Created;
  const token = unique('q');
  beforeAll(async () => {
    own = await t.newTenant();
    customer = await createCustomer(own.api, { organization: uniqueOrganization(`Orgname${token}`) });
    site = await createSite(own.api, { type: 'Customer', id: customer.id }, {
      site_name: `Name${token}`,
      street: `Street${token} 12`,
      street2: `Streettwo${token}`,
      city: `City${token}`,
      state: `State${token}`,
      zip_code: `Zip${token}`,
      description: `Descr${token}`,
    });
    other = await createSite(own.api, { type: 'Customer', id: (await createCustomer(own.api)).id });
  });

  it('covers site name, street, city, state, zip code and the customer organization, case-insensitively', async () => {
    for (const part of ['Name', 'Street', 'City', 'State', 'Zip', 'Orgname']) {
      for (const q of [`${part}${token}`, `${part}${token}`.toUpperCase(), `${part}${token}`.toLowerCase()]) {
        expect(idsOf(await own.api.get(`/sites?q=${encodeURIComponent(q)}`)), q).toEqual([site.id]);
      }
    }
  });

  it('requires every term to match and combines with filters', async () => {
    expect(idsOf(await own.api.get(`/sites?q=${encodeURIComponent(`City${token} Zip${token}`)}`))).toEqual([site.id]);
    expect(idsOf(await own.api.get(`/sites?q=${encodeURIComponent(`City${token} nowhere${token}`)}`))).toEqual([]);
    expect(idsOf(await own.api.get(`/sites?q=City${token}&customer_id=${customer.id}`))).toEqual([site.id]);
    expect(idsOf(await own.api.get(`/sites?q=City${token}&customer_id=${other.record.siteable_id}`))).toEqual([]);
  });

  it('follows a rename of the customer (the new organization matches, the old one no longer does)', async () => {
    const renamedTo = `Renamed${token}`;
    const fresh = (await own.api.get(`/customers/${customer.id}`)).headers.get('etag')!;
    customer = await updateCustomer(own.api, { id: customer.id, etag: fresh }, { organization: renamedTo });
    expect(idsOf(await own.api.get(`/sites?q=${renamedTo}`))).toEqual([site.id]);
    expect(idsOf(await own.api.get(`/sites?q=Orgname${token}`))).toEqual([]);
  });

  it('follows a change of the site\'s own fields', async () => {
    const fresh = await own.api.get(`/sites/${site.id}`);
    site = await updateRecord(own.api, 'sites', 'site', { id: site.id, etag: fresh.headers.get('etag')! }, { city: `Newcity${token}` });
    expect(idsOf(await own.api.get(`/sites?q=Newcity${token}`))).toEqual([site.id]);
    expect(idsOf(await own.api.get(`/sites?q=City${token}`))).toEqual([site.id]); // Newcity<token> contains City<token>
    expect(idsOf(await own.api.get(`/sites?q=${encodeURIComponent(`zzz${token}`)}`))).toEqual([]);
  });
});

describe("the customer list's q covers the primary site's address", () => {
  let own: { tenant: Tenant; api: Client };
  beforeAll(async () => {
    own = await t.newTenant();
  });
  const findCustomers = async (q: string) => idsOf(await own.api.get(`/customers?q=${encodeURIComponent(q)}`));

  it('finds a customer by street, street2, city, state or zip of its first site', async () => {
    const token = unique('addr');
    const customer = await createCustomer(own.api);
    expect(await findCustomers(`Street${token}`)).toEqual([]);
    await createSite(own.api, { type: 'Customer', id: customer.id }, {
      street: `Street${token}`,
      street2: `Unit${token}`,
      city: `City${token}`,
      state: `State${token}`,
      zip_code: `Zip${token}`,
    });
    for (const part of ['Street', 'Unit', 'City', 'State', 'Zip']) expect(await findCustomers(`${part}${token}`), part).toEqual([customer.id]);
    expect(await findCustomers(`Street${token} ${customer.record.organization.split(' ')[0]}`)).toEqual([customer.id]);
  });

  it('covers only the primary (first) site, not the later ones', async () => {
    const token = unique('second');
    const customer = await createCustomer(own.api);
    await createSite(own.api, { type: 'Customer', id: customer.id }, { street: `First${token}` });
    await createSite(own.api, { type: 'Customer', id: customer.id }, { street: `Second${token}` });
    expect(await findCustomers(`First${token}`)).toEqual([customer.id]);
    expect(await findCustomers(`Second${token}`)).toEqual([]);
  });

  it('follows the primary: an address edit, another site moving ahead, a tie broken by age, and deletions', async () => {
    const token = unique('moves');
    const customer = await createCustomer(own.api);
    const parent = { type: 'Customer' as const, id: customer.id };
    let first = await createSite(own.api, parent, { street: `Alpha${token}` });
    let second = await createSite(own.api, parent, { street: `Beta${token}` });
    expect(await findCustomers(`Alpha${token}`)).toEqual([customer.id]);

    first = await updateRecord(own.api, 'sites', 'site', first, { street: `Gamma${token}` });
    expect(await findCustomers(`Alpha${token}`)).toEqual([]);
    expect(await findCustomers(`Gamma${token}`)).toEqual([customer.id]);

    // The first site moves behind the second: the second becomes the primary.
    first = await updateRecord(own.api, 'sites', 'site', first, { position: 5 });
    expect(await findCustomers(`Gamma${token}`)).toEqual([]);
    expect(await findCustomers(`Beta${token}`)).toEqual([customer.id]);

    // Same position: the older site is the primary.
    second = await updateRecord(own.api, 'sites', 'site', second, { position: 5 });
    expect(await findCustomers(`Gamma${token}`)).toEqual([customer.id]);
    expect(await findCustomers(`Beta${token}`)).toEqual([]);

    // A new site created at position 0 becomes the primary.
    const third = await createSite(own.api, parent, { street: `Delta${token}`, position: 0 });
    expect(await findCustomers(`Delta${token}`)).toEqual([customer.id]);
    expect(await findCustomers(`Gamma${token}`)).toEqual([]);

    // Deleting the primary hands the role to the next site; deleting every site leaves no address.
    await deleteRecord(own.api, 'sites', third.id);
    expect(await findCustomers(`Delta${token}`)).toEqual([]);
    expect(await findCustomers(`Gamma${token}`)).toEqual([customer.id]);
    await deleteRecord(own.api, 'sites', first.id);
    expect(await findCustomers(`Gamma${token}`)).toEqual([]);
    expect(await findCustomers(`Beta${token}`)).toEqual([customer.id]);
    await deleteRecord(own.api, 'sites', second.id);
    expect(await findCustomers(`Beta${token}`)).toEqual([]);
    expect((await own.api.get(`/customers/${customer.id}`)).status).toBe(200);
  });

  it("does not change the customer's representation or ETag when its sites change", async () => {
    const customer = await createCustomer(own.api);
    await createSite(own.api, { type: 'Customer', id: customer.id });
    const read = await own.api.get(`/customers/${customer.id}`);
    expect(read.body.data).toEqual(customer.record);
    expect(read.headers.get('etag')).toBe(customer.etag);
  });
});

describe('tenancy and scopes', () => {
  it("answers 404 to GET, PATCH and DELETE of another tenant's site and never lists it", async () => {
    const site = await createSite(api, await customerTarget(api), { site_name: unique('Private ') });
    const theirs = await t.newTenant();
    expectProblem(await theirs.api.get(`/sites/${site.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.api.patch(`/sites/${site.id}`, { site: { city: 'Hijacked' } }, ifMatch(site.etag)), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.api.delete(`/sites/${site.id}`, ifMatch(site.etag)), { status: 404, code: 'resource.not_found' });
    for (const path of ['/sites?limit=100', `/sites?customer_id=${site.record.siteable_id}`, `/sites?q=${encodeURIComponent(site.record.site_name)}`]) {
      expect(idsOf(await theirs.api.get(path))).not.toContain(site.id);
    }
    const read = await api.get(`/sites/${site.id}`);
    expect(read.headers.get('etag')).toBe(site.etag);
  });

  it('needs sites:read to read and sites:write to write (403 auth.scope_missing naming the scope)', async () => {
    const parent = await customerTarget(api);
    const site = await createSite(api, parent);
    const reader = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['sites:read'] })).token);
    const none = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:write'] })).token);
    expect((await reader.get(`/sites/${site.id}`)).status).toBe(200);
    expect((await reader.get('/sites')).status).toBe(200);
    for (const res of [
      await reader.post('/sites', { site: siteFields(parent) }),
      await reader.patch(`/sites/${site.id}`, { site: { city: 'X' } }, ifMatch(site.etag)),
      await reader.delete(`/sites/${site.id}`, ifMatch(site.etag)),
    ]) {
      expect(expectProblem(res, { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('sites:write');
    }
    expect(expectProblem(await none.get('/sites'), { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('sites:read');
  });
});

describe('position at the upper bound', () => {
  it('never defaults past 1,000,000: a new site then shares the last position and still sorts last', async () => {
    const parent = await customerTarget(api);
    const top = await createSite(api, parent, { position: 1_000_000 });
    const next = await createSite(api, parent);
    expect(next.record.position).toBe(1_000_000);
    const after = await createSite(api, parent);
    expect(after.record.position).toBe(1_000_000);
    expect(idsOf(await api.get(`/sites?customer_id=${parent.id}&sort=position`))).toEqual([top.id, next.id, after.id]);
    // The served value is within the declared range, so sending it back is accepted.
    expect((await updateRecord(api, 'sites', 'site', next, { position: next.record.position })).record.position).toBe(1_000_000);
  });
});
