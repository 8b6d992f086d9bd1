import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { tenantWith } from '../helpers/factories/accounts.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { createEstimate } from '../helpers/factories/estimates.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { patch } from '../helpers/factories/records.ts';
import { createPlace, createSite } from '../helpers/factories/sites.ts';
import { createSystem } from '../helpers/factories/systems.ts';
import { expectProblem } from '../helpers/problem.ts';

// Module settings (work-location.ts) over REST: AddressRequired (site_id required on jobs and estimates unless No),
// the System module (system_id required on jobs, and on estimates that have a site), defaults taken from the
// system (site_id) and the site (customer_id), and the ownership rules (422 naming the field).

const t = useTestApp({ rateLimits: highRateLimits });

const kinds = [
  { plural: 'jobs', key: 'job', create: createJob },
  { plural: 'estimates', key: 'estimate', create: createEstimate },
] as const;

describe('AddressRequired', () => {
  for (const { plural, key, create } of kinds) {
    it(`Yes (the default): ${plural} need site_id on create (422 naming site_id) and cannot clear it`, async () => {
      const api = (await t.newTenant()).api;
      const customer = await createCustomer(api);
      expectProblem(await api.post(`/${plural}`, { [key]: { customer_id: customer.id } }), { status: 422, code: 'validation.failed', errors: { site_id: true }, onlyErrors: true });
      expectProblem(await api.post(`/${plural}`, { [key]: { site_id: null } }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
      const { site } = await createPlace(api);
      const rec = await create(api, { site_id: site.id });
      expectProblem(await patch(api, plural, rec, { site_id: null }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
      const untouched = await patch(api, plural, rec, { title: 'site not sent' });
      expect(untouched.status, untouched.text).toBe(200);
    });

    it(`No: ${plural} are created without a site`, async () => {
      const api = (await tenantWith(t, { AddressRequired: 'No' })).api;
      const customer = await createCustomer(api);
      const rec = await create(api, { customer_id: customer.id });
      expect(rec.record).toMatchObject({ customer_id: customer.id, site_id: null });
      const bare = await create(api, {});
      expect(bare.record.site_id).toBeNull();
    });
  }

  it('takes customer_id from the site when omitted', async () => {
    const api = (await t.newTenant()).api;
    const { customer, site } = await createPlace(api);
    for (const { create } of kinds) expect((await create(api, { site_id: site.id })).record.customer_id).toBe(customer.id);
  });

  it('refuses a site that does not belong to customer_id (422 naming site_id), on create and on update', async () => {
    const api = (await t.newTenant()).api;
    const a = await createPlace(api);
    const b = await createPlace(api);
    for (const { plural, key, create } of kinds) {
      expectProblem(await api.post(`/${plural}`, { [key]: { customer_id: a.customer.id, site_id: b.site.id } }), {
        status: 422,
        code: 'validation.failed',
        errors: { site_id: true },
      });
      const rec = await create(api, { site_id: a.site.id });
      expectProblem(await patch(api, plural, rec, { site_id: b.site.id }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
      expectProblem(await patch(api, plural, rec, { customer_id: b.customer.id }), { status: 422, code: 'validation.failed', errors: { site_id: true } });
      const moved = await patch(api, plural, rec, { customer_id: b.customer.id, site_id: b.site.id });
      expect(moved.status, moved.text).toBe(200);
    }
  });
});

describe('System module', () => {
  it('on: jobs need system_id (422 naming system_id), with or without a site', async () => {
    const api = (await tenantWith(t, { System: 'on', AddressRequired: 'No' })).api;
    const { site } = await createPlace(api);
    expectProblem(await api.post('/jobs', { job: { site_id: site.id } }), { status: 422, code: 'validation.failed', errors: { system_id: true }, onlyErrors: true });
    expectProblem(await api.post('/jobs', { job: {} }), { status: 422, code: 'validation.failed', errors: { system_id: true }, onlyErrors: true });
    const system = await createSystem(api, site.id);
    const job = await createJob(api, { site_id: site.id, system_id: system.id });
    expectProblem(await patch(api, 'jobs', job, { system_id: null }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
  });

  it('on: estimates need system_id only when site_id is set', async () => {
    const api = (await tenantWith(t, { System: 'on', AddressRequired: 'No' })).api;
    const { customer, site } = await createPlace(api);
    expect((await createEstimate(api, { customer_id: customer.id })).record.system_id).toBeNull();
    expectProblem(await api.post('/estimates', { estimate: { site_id: site.id } }), { status: 422, code: 'validation.failed', errors: { system_id: true }, onlyErrors: true });
    const noSite = await createEstimate(api, { customer_id: customer.id });
    expectProblem(await patch(api, 'estimates', noSite, { site_id: site.id }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
  });

  it('off (the default): system_id is optional', async () => {
    const api = (await t.newTenant()).api;
    const { site } = await createPlace(api);
    expect((await createJob(api, { site_id: site.id })).record.system_id).toBeNull();
  });

  it('takes site_id from the system when omitted (and customer_id from that site), also with AddressRequired Yes', async () => {
    const api = (await tenantWith(t, { System: 'on' })).api;
    const { customer, site } = await createPlace(api);
    const system = await createSystem(api, site.id);
    for (const { create } of kinds) {
      const rec = await create(api, { system_id: system.id });
      expect(rec.record).toMatchObject({ system_id: system.id, site_id: site.id, customer_id: customer.id });
    }
  });

  it('refuses a system that does not belong to the site (422 naming system_id), on create and on update', async () => {
    const api = (await tenantWith(t, { System: 'on' })).api;
    const { customer, site } = await createPlace(api);
    const otherSite = await createSite(api, { type: 'Customer', id: customer.id });
    const system = await createSystem(api, site.id);
    const foreign = await createSystem(api, otherSite.id);
    for (const { plural, key, create } of kinds) {
      expectProblem(await api.post(`/${plural}`, { [key]: { site_id: site.id, system_id: foreign.id } }), {
        status: 422,
        code: 'validation.failed',
        errors: { system_id: true },
        onlyErrors: true,
      });
      const rec = await create(api, { site_id: site.id, system_id: system.id });
      expectProblem(await patch(api, plural, rec, { system_id: foreign.id }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
      expectProblem(await patch(api, plural, rec, { site_id: otherSite.id }), { status: 422, code: 'validation.failed', errors: { system_id: true } });
      const moved = await patch(api, plural, rec, { site_id: otherSite.id, system_id: foreign.id });
      expect(moved.status, moved.text).toBe(200);
    }
  });
});
