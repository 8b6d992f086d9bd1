import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { createSystem, systemOptionIds } from '../helpers/factories/systems.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Systems over REST: equipment at a site (site_id required, live, same tenant, immutable), the five endpoints,
// 409 system.duplicate for a second live system of a type (ignoring case) on a site, on create or on a change of
// system_type, unless confirmed: true (never served), install_date and system_option_id validation, list
// filters/sorts/q; and the system options lookup.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

describe('systems: the five endpoints', () => {
  it('creates a system with every field and answers 201 with Location, ETag and {data}', async () => {
    const site = (await createPlace(api)).site;
    const fields = {
      site_id: site.id,
      system_type: 'HVAC',
      name: 'Basement furnace',
      manufacturer: 'Carrier',
      model: '59SC5',
      serial_number: 'SN-001',
      install_date: '2021-03-15',
      system_option_id: systemOptionIds[0],
    };
    const res = await api.post('/systems', { system: fields });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, custom_fields: {} });
    expect(data.id).toMatch(uuidV7);
    expect(res.headers.get('location')).toBe(`/api/v2/systems/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/systems/${data.id}`);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('creates from site_id, system_type and name alone, and requires them', async () => {
    const site = (await createPlace(api)).site;
    const created = await createSystem(api, site.id);
    expect(created.record).toMatchObject({ manufacturer: null, model: null, serial_number: null, install_date: null, system_option_id: null });
    expectProblem(await api.post('/systems', { system: { manufacturer: 'x' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: true, system_type: true, name: true },
      onlyErrors: true,
    });
  });

  it('updates the fields sent, clears optional ones with null and changes the ETag', async () => {
    const site = (await createPlace(api)).site;
    const system = await createSystem(api, site.id, { manufacturer: 'Lennox', install_date: '2020-01-01' });
    const updated = await updateRecord(api, 'systems', 'system', system, {
      name: 'Renamed',
      install_date: '2022-12-31',
      manufacturer: null,
      system_option_id: systemOptionIds[4],
    });
    expect(updated.record).toMatchObject({ name: 'Renamed', install_date: '2022-12-31', manufacturer: null, system_option_id: systemOptionIds[4], site_id: site.id });
    expect(updated.etag).not.toBe(system.etag);
    expect((await api.get(`/systems/${system.id}`)).body.data).toEqual(updated.record);
  });

  it('soft-deletes a system: 204, then 404 and gone from the list', async () => {
    const site = (await createPlace(api)).site;
    const system = await createSystem(api, site.id);
    await deleteRecord(api, 'systems', system.id);
    expectProblem(await api.get(`/systems/${system.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/systems?site_id=${site.id}`))).toEqual([]);
  });

  it('refuses a change of site_id on PATCH with 422 naming site_id', async () => {
    const system = await createSystem(api, ((await createPlace(api)).site).id);
    const other = (await createPlace(api)).site;
    expectProblem(await api.patch(`/systems/${system.id}`, { system: { site_id: other.id } }, ifMatch(system.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: true },
      onlyErrors: true,
    });
  });

  it("hides another tenant's system (404)", async () => {
    const other = await t.newTenant();
    const theirs = await createSystem(other.api, (await createPlace(other.api)).site.id);
    expectProblem(await api.get(`/systems/${theirs.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.delete(`/systems/${theirs.id}`, ifMatch(theirs.etag)), { status: 404, code: 'resource.not_found' });
  });
});

describe('systems: references and values', () => {
  it("refuses another tenant's site, an unknown site and a deleted site with 422 naming site_id", async () => {
    const other = await t.newTenant();
    const theirs = (await createPlace(other.api)).site;
    const deleted = (await createPlace(api)).site;
    await deleteRecord(api, 'sites', deleted.id);
    for (const siteId of [theirs.id, randomUUID(), deleted.id, 'nope']) {
      expectProblem(await api.post('/systems', { system: { site_id: siteId, system_type: 'HVAC', name: 'x' } }), {
        status: 422,
        code: 'validation.failed',
        detail: 'site_id',
        errors: { site_id: true },
        onlyErrors: true,
      });
    }
  });

  it('refuses an unparseable or impossible install_date with 422 naming it', async () => {
    const site = (await createPlace(api)).site;
    for (const install_date of ['yesterday', '2021-02-30', '2021-13-01', '15/03/2021', 20210315, '2021-03-15T10:00:00Z']) {
      expectProblem(await api.post('/systems', { system: { site_id: site.id, system_type: 'HVAC', name: 'x', install_date } }), {
        status: 422,
        code: 'validation.failed',
        errors: { install_date: true },
        onlyErrors: true,
      });
    }
    const system = await createSystem(api, site.id);
    expectProblem(await api.patch(`/systems/${system.id}`, { system: { install_date: 'soon' } }, ifMatch(system.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { install_date: true },
      onlyErrors: true,
    });
  });

  it('refuses an unknown system_option_id with 422 naming it, on create and update', async () => {
    const site = (await createPlace(api)).site;
    expectProblem(await api.post('/systems', { system: { site_id: site.id, system_type: 'HVAC', name: 'x', system_option_id: randomUUID() } }), {
      status: 422,
      code: 'validation.failed',
      errors: { system_option_id: true },
      onlyErrors: true,
    });
    const system = await createSystem(api, site.id);
    expectProblem(await api.patch(`/systems/${system.id}`, { system: { system_option_id: randomUUID() } }, ifMatch(system.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { system_option_id: true },
      onlyErrors: true,
    });
  });
});

describe('systems: duplicate system_type on a site', () => {
  it('answers 409 system.duplicate for a second live system of the same type on the site, and creates nothing', async () => {
    const site = (await createPlace(api)).site;
    const first = await createSystem(api, site.id, { system_type: 'HVAC' });
    expectProblem(await api.post('/systems', { system: { site_id: site.id, system_type: 'HVAC', name: 'Second furnace' } }), {
      status: 409,
      code: 'system.duplicate',
      detail: 'HVAC',
    });
    expectProblem(await api.post('/systems', { system: { site_id: site.id, system_type: 'HVAC', name: 'Second furnace', confirmed: false } }), {
      status: 409,
      code: 'system.duplicate',
    });
    expect(idsOf(await api.get(`/systems?site_id=${site.id}`))).toEqual([first.id]);
  });

  it('creates the duplicate when confirmed: true is sent, and never serves confirmed', async () => {
    const site = (await createPlace(api)).site;
    const first = await createSystem(api, site.id, { system_type: 'Plumbing' });
    expect('confirmed' in first.record).toBe(false);
    const res = await api.post('/systems', { system: { site_id: site.id, system_type: 'Plumbing', name: 'Second heater', confirmed: true } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ site_id: site.id, system_type: 'Plumbing', name: 'Second heater' });
    expect('confirmed' in res.body.data).toBe(false);
    expect('confirmed' in (await api.get(`/systems/${res.body.data.id}`)).body.data).toBe(false);
    const listed = await api.get(`/systems?site_id=${site.id}&sort=created_at`);
    expect(idsOf(listed)).toEqual([first.id, res.body.data.id]);
    for (const record of listed.body.data) expect('confirmed' in record).toBe(false);
  });

  it('allows the same type on another site and another type on the same site without confirmation', async () => {
    const site = (await createPlace(api)).site;
    await createSystem(api, site.id, { system_type: 'HVAC' });
    await createSystem(api, site.id, { system_type: 'Electrical' });
    await createSystem(api, ((await createPlace(api)).site).id, { system_type: 'HVAC' });
  });

  it('does not count a deleted system as a duplicate', async () => {
    const site = (await createPlace(api)).site;
    const first = await createSystem(api, site.id, { system_type: 'HVAC' });
    await deleteRecord(api, 'systems', first.id);
    const again = await createSystem(api, site.id, { system_type: 'HVAC' });
    expect(again.id).not.toBe(first.id);
  });

  it('answers 409 system.duplicate for a type that differs only in case, and still creates with confirmed: true', async () => {
    const site = (await createPlace(api)).site;
    const first = await createSystem(api, site.id, { system_type: 'HVAC' });
    for (const system_type of ['hvac', 'Hvac', ' HVAC ']) {
      expectProblem(await api.post('/systems', { system: { site_id: site.id, system_type, name: 'Second furnace' } }), { status: 409, code: 'system.duplicate' });
    }
    const confirmed = await createSystem(api, site.id, { system_type: 'hvac', confirmed: true });
    expect(idsOf(await api.get(`/systems?site_id=${site.id}&sort=created_at`))).toEqual([first.id, confirmed.id]);
  });

  it('answers 409 system.duplicate when an update changes system_type to a type already on the site (ignoring case), unless confirmed: true', async () => {
    const site = (await createPlace(api)).site;
    await createSystem(api, site.id, { system_type: 'HVAC' });
    const boiler = await createSystem(api, site.id, { system_type: 'Boiler' });
    for (const system_type of ['HVAC', 'hvac']) {
      expectProblem(await api.patch(`/systems/${boiler.id}`, { system: { system_type } }, ifMatch(boiler.etag)), { status: 409, code: 'system.duplicate' });
      expectProblem(await api.patch(`/systems/${boiler.id}`, { system: { system_type, confirmed: false } }, ifMatch(boiler.etag)), { status: 409, code: 'system.duplicate' });
    }
    expect((await api.get(`/systems/${boiler.id}`)).body.data.system_type).toBe('Boiler');
    // Its own type in another case, and another field, are no duplicate.
    const recased = await updateRecord(api, 'systems', 'system', boiler, { system_type: 'BOILER' });
    const renamed = await updateRecord(api, 'systems', 'system', recased, { name: 'Renamed' });
    const moved = await updateRecord(api, 'systems', 'system', renamed, { system_type: 'hvac', confirmed: true });
    expect(moved.record.system_type).toBe('hvac');
    expect('confirmed' in moved.record).toBe(false);
    // A type on another site does not count.
    const elsewhere = await createSystem(api, ((await createPlace(api)).site).id, { system_type: 'Solar' });
    await updateRecord(api, 'systems', 'system', elsewhere, { system_type: 'Boiler' });
  });

  it('refuses a non-boolean confirmed with 422 naming it', async () => {
    const site = (await createPlace(api)).site;
    expectProblem(await api.post('/systems', { system: { site_id: site.id, system_type: 'HVAC', name: 'x', confirmed: 'yes' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { confirmed: true },
      onlyErrors: true,
    });
  });
});

describe('systems: list filters, sorts and q', () => {
  it('filters site_id, system_type (= and [in]) and created_at range; sorts by name and system_type', async () => {
    const own = await t.newTenant();
    const site = (await createPlace(own.api)).site;
    const otherSite = (await createPlace(own.api)).site;
    const hvac = await createSystem(own.api, site.id, { system_type: 'HVAC', name: 'Charlie' });
    clock.advance(1000);
    const plumbing = await createSystem(own.api, site.id, { system_type: 'Plumbing', name: 'Alpha' });
    clock.advance(1000);
    const electrical = await createSystem(own.api, otherSite.id, { system_type: 'Electrical', name: 'Bravo' });
    expect(idsOf(await own.api.get('/systems'))).toEqual([electrical.id, plumbing.id, hvac.id]);
    expect(idsOf(await own.api.get(`/systems?site_id=${site.id}&sort=created_at`))).toEqual([hvac.id, plumbing.id]);
    expect(idsOf(await own.api.get('/systems?system_type=Plumbing'))).toEqual([plumbing.id]);
    expect(idsOf(await own.api.get('/systems?system_type[in]=HVAC,Electrical&sort=created_at'))).toEqual([hvac.id, electrical.id]);
    expect(idsOf(await own.api.get(`/systems?created_at[gte]=${plumbing.record.created_at}&sort=created_at`))).toEqual([plumbing.id, electrical.id]);
    expect(idsOf(await own.api.get('/systems?sort=name'))).toEqual([plumbing.id, electrical.id, hvac.id]);
    expect(idsOf(await own.api.get('/systems?sort=-system_type'))).toEqual([plumbing.id, hvac.id, electrical.id]);
    expectProblem(await own.api.get('/systems?site_id=nope'), { status: 400, code: 'filter.invalid' });
    expectProblem(await own.api.get('/systems?manufacturer=x'), { status: 400, code: 'filter.invalid' });
  });

  it('searches q over system type, name, manufacturer, model and serial number', async () => {
    const own = await t.newTenant();
    const site = (await createPlace(own.api)).site;
    const token = unique('sys');
    const made = [
      await createSystem(own.api, site.id, { system_type: `T-${token}` }),
      await createSystem(own.api, site.id, { name: `N ${token}` }),
      await createSystem(own.api, site.id, { manufacturer: `M ${token}` }),
      await createSystem(own.api, site.id, { model: `${token}-X` }),
      await createSystem(own.api, site.id, { serial_number: `SN${token}` }),
    ];
    await createSystem(own.api, site.id, { name: 'unrelated' });
    expect(idsOf(await own.api.get(`/systems?q=${token}&sort=created_at`))).toEqual(made.map((m) => m.id));
  });
});

describe('GET /system_options', () => {
  it('lists the seeded catalog, filtered by system_type when given', async () => {
    const all = await api.get('/system_options');
    expect(all.status, all.text).toBe(200);
    expect(all.body.has_more).toBe(false);
    expect(idsOf(all)).toEqual(systemOptionIds);
    expect(all.body.data[0]).toEqual({ id: systemOptionIds[0], system_type: 'HVAC', name: 'Furnace', position: 1 });
    const hvac = await api.get('/system_options?system_type=HVAC');
    expect(idsOf(hvac)).toEqual(systemOptionIds.slice(0, 4));
    for (const option of hvac.body.data) expect(option.system_type).toBe('HVAC');
    expect(idsOf(await api.get('/system_options?system_type=Nothing'))).toEqual([]);
  });

  it('is readable with any valid key, answers 401 without one and 400 filter.invalid for an unknown parameter', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    expect(idsOf(await t.client(key.token).get('/system_options'))).toEqual(systemOptionIds);
    expect((await api.get('/system_options', { token: null })).status).toBe(401);
    expectProblem(await api.get('/system_options?kind=HVAC'), { status: 400, code: 'filter.invalid', detail: 'kind' });
  });
});

describe('scopes', () => {
  it('needs systems:read to list and systems:write to create (403 auth.scope_missing)', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['systems:read'] });
    const limited = t.client(key.token);
    expect((await limited.get('/systems')).status).toBe(200);
    const site = (await createPlace(api)).site;
    const body = expectProblem(await limited.post('/systems', { system: { site_id: site.id, system_type: 'HVAC', name: 'x' } }), {
      status: 403,
      code: 'auth.scope_missing',
    });
    expect(body.required_scope).toBe('systems:write');
  });
});
