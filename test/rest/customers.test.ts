import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, type Tenant, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, uniqueOrganization, updateCustomer } from '../helpers/factories/customers.ts';
import { ifMatch, weakEtag } from '../helpers/factories/records.ts';
import type { Client } from '../helpers/http.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// The Customers resource over REST: the five endpoints, every field of the spec's Customer table with its
// create and update rules, organization uniqueness, soft delete, status writes, body shape and tenancy.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

describe('POST /customers', () => {
  it('creates a customer with every create field and answers 201 with Location, ETag and {data}', async () => {
    const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: 'Tech One', email: 'tech.one@example.test', role: 'technician' });
    const organization = uniqueOrganization('Every Field');
    const res = await api.post('/customers', {
      customer: {
        organization,
        main_phone: '+1 555 0100',
        fax: '+1 555 0101',
        website: 'https://example.test',
        description: 'A description',
        reference: 'ERP-1',
        assignee_id: user.id,
        number: 'C-EVERY-1',
        labels: [],
        customer_notes: '<p>Internal</p>',
        custom_fields: {},
      },
    });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(data).toMatchObject({
      organization,
      main_phone: '+1 555 0100',
      fax: '+1 555 0101',
      website: 'https://example.test',
      description: 'A description',
      reference: 'ERP-1',
      assignee_id: user.id,
      number: 'C-EVERY-1',
      status: 'Active',
      labels: [],
      customer_notes: '<p>Internal</p>',
      custom_fields: {},
    });
    expect(data.id).toMatch(uuidV7);
    expect(typeof data.assignee_id).toBe('number');
    expect(new Date(data.created_at).toISOString()).toBe(data.created_at);
    expect(data.updated_at).toBe(data.created_at);
    expect(res.headers.get('location')).toBe(`/api/v2/customers/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
  });

  it('creates a customer from organization alone with the other fields empty and the first configured status', async () => {
    const organization = uniqueOrganization('Minimal');
    const res = await api.post('/customers', { customer: { organization } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      organization,
      main_phone: null,
      fax: null,
      website: null,
      description: null,
      reference: null,
      assignee_id: null,
      customer_notes: null,
      status: 'Active',
      labels: [],
      custom_fields: {},
    });
    expect(res.body.data.number).toMatch(/^\d+$/);
  });

  it('requires organization: absent is "is missing", null, empty and blank are "can\'t be blank"', async () => {
    expectProblem(await api.post('/customers', { customer: { reference: 'x' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { organization: ['is missing'] },
      onlyErrors: true,
    });
    for (const organization of [null, '', '   ']) {
      expectProblem(await api.post('/customers', { customer: { organization } }), {
        status: 422,
        code: 'validation.failed',
        detail: 'organization',
        errors: { organization: ["can't be blank"] },
        onlyErrors: true,
      });
    }
  });

  it('refuses status on create with 422 naming status', async () => {
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), status: 'Active' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { status: true },
      onlyErrors: true,
    });
  });

  it('refuses an unknown field with 422 naming it', async () => {
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), colour: 'red' } }), {
      status: 422,
      code: 'validation.failed',
      detail: 'colour',
      errors: { colour: true },
      onlyErrors: true,
    });
  });

  it('refuses read-only fields (id, created_at, updated_at) in the body', async () => {
    expectProblem(
      await api.post('/customers', {
        customer: { organization: uniqueOrganization(), id: '0190d6a4-5a1e-7000-8000-000000000000', created_at: '2020-01-01T00:00:00Z' },
      }),
      { status: 422, code: 'validation.failed', errors: { id: true, created_at: true } },
    );
  });

  it('refuses wrongly typed values with 422 naming each field', async () => {
    expectProblem(
      await api.post('/customers', { customer: { organization: 42, main_phone: 5551234, description: ['x'], reference: { a: 1 } } }),
      {
        status: 422,
        code: 'validation.failed',
        errors: { organization: true, main_phone: true, description: true, reference: true },
        onlyErrors: true,
      },
    );
  });

  it('refuses an over-long main_phone with 422 naming it', async () => {
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), main_phone: '5'.repeat(65) } }), {
      status: 422,
      code: 'validation.failed',
      errors: { main_phone: true },
      onlyErrors: true,
    });
  });

  it('answers 422 for a body with no customer key, an empty object or no body at all ("is missing")', async () => {
    for (const res of [await api.post('/customers', {}), await api.post('/customers', []), await api.request('POST', '/customers')]) {
      expectProblem(res, { status: 422, code: 'validation.failed', errors: { customer: ['is missing'] }, onlyErrors: true });
    }
    // Fields sent at the top level instead of under the key: each is refused too, nothing is dropped silently.
    expectProblem(await api.post('/customers', { organization: 'Top Level Org' }), {
      status: 422,
      code: 'validation.failed',
      errors: { customer: ['is missing'], organization: ['is not a permitted field'] },
      onlyErrors: true,
    });
  });

  it('refuses a member beside the customer key with 422 "is not a permitted field" naming it, and writes nothing', async () => {
    const organization = uniqueOrganization('Stray Member');
    expectProblem(await api.post('/customers', { customer: { organization }, extra: 1 }), {
      status: 422,
      code: 'validation.failed',
      errors: { extra: ['is not a permitted field'] },
      onlyErrors: true,
    });
    // Each member is named, with the key's own error when it has one.
    expectProblem(await api.post('/customers', { customer: 'x', reference: 'R', labels: [] }), {
      status: 422,
      code: 'validation.failed',
      errors: { customer: ['must be an object'], reference: ['is not a permitted field'], labels: ['is not a permitted field'] },
      onlyErrors: true,
    });
    // A name is shown as other field names are: printable (quotes, control characters and NUL escaped as in JSON).
    expectProblem(await api.post('/customers', { customer: { organization }, 'a"b\u0001': true, 'nul\u0000': 1 }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'a\\"b\\u0001': ['is not a permitted field'], 'nul\\u0000': ['is not a permitted field'] },
      onlyErrors: true,
    });
    const list = await api.get(`/customers?organization=${encodeURIComponent(organization)}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });

  it('answers 422 "must be an object" when customer is not an object', async () => {
    for (const customer of ['x', 7, true, null, [], [{ organization: 'A' }]]) {
      expectProblem(await api.post('/customers', { customer }), {
        status: 422,
        code: 'validation.failed',
        errors: { customer: ['must be an object'] },
        onlyErrors: true,
      });
    }
  });

  it('writes nothing when a create fails validation', async () => {
    const organization = uniqueOrganization('Never Stored');
    expectProblem(await api.post('/customers', { customer: { organization, colour: 'red' } }), { status: 422, code: 'validation.failed' });
    const list = await api.get(`/customers?organization=${encodeURIComponent(organization)}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
  });
});

describe('assignee_id', () => {
  let other: Tenant;
  beforeAll(async () => {
    other = await t.tenant();
  });

  it('accepts a user of the same account as an int64 and clears it with null', async () => {
    const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: 'Office', email: 'office.assignee@example.test' });
    const created = await createCustomer(api, { assignee_id: user.id });
    expect(created.record.assignee_id).toBe(user.id);
    const cleared = await updateCustomer(api, created, { assignee_id: null });
    expect(cleared.record.assignee_id).toBeNull();
    const reassigned = await updateCustomer(api, cleared, { assignee_id: tenant.userId });
    expect(reassigned.record.assignee_id).toBe(tenant.userId);
  });

  it("refuses another tenant's user with 422 validation.failed naming assignee_id, on create and update", async () => {
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), assignee_id: other.userId } }), {
      status: 422,
      code: 'validation.failed',
      errors: { assignee_id: true },
      onlyErrors: true,
    });
    const created = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { assignee_id: other.userId } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { assignee_id: true },
      onlyErrors: true,
    });
  });

  it('refuses a user id that does not exist and values that are not positive integers', async () => {
    for (const assignee_id of [9_007_199_254_740_991, '1', 1.5, 0, -3, true]) {
      expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), assignee_id } }), {
        status: 422,
        code: 'validation.failed',
        errors: { assignee_id: true },
        onlyErrors: true,
      });
    }
  });
});

describe('GET /customers/{id}', () => {
  it('returns {data} with the same record and ETag as the create', async () => {
    const created = await createCustomer(api, { reference: 'R-GET' });
    const res = await api.get(`/customers/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: created.record });
    expect(res.headers.get('etag')).toBe(created.etag);
  });

  it('answers 404 resource.not_found for an unknown id and for a string that is not a UUID', async () => {
    expectProblem(await api.get('/customers/0190d6a4-5a1e-7000-8000-000000000000'), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get('/customers/not-a-uuid'), { status: 404, code: 'resource.not_found' });
  });
});

describe('PATCH /customers/{id}', () => {
  it('changes every updatable field, keeps the fields not sent and answers 200 with a new ETag', async () => {
    const created = await createCustomer(api, { main_phone: '1', fax: '2', website: 'a', description: 'd', reference: 'r', customer_notes: 'n' });
    const organization = uniqueOrganization('Renamed');
    const res = await api.patch(
      `/customers/${created.id}`,
      { customer: { organization, main_phone: '11', fax: '22', website: 'https://b.test', description: 'dd', reference: 'rr', customer_notes: 'nn' } },
      ifMatch(created.etag),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      id: created.id,
      number: created.record.number,
      organization,
      main_phone: '11',
      fax: '22',
      website: 'https://b.test',
      description: 'dd',
      reference: 'rr',
      customer_notes: 'nn',
      status: 'Active',
      created_at: created.record.created_at,
    });
    expect(new Date(res.body.data.updated_at).getTime()).toBeGreaterThan(new Date(created.record.updated_at).getTime());
    expect(res.headers.get('etag')).toMatch(weakEtag);
    expect(res.headers.get('etag')).not.toBe(created.etag);
    const partial = await updateCustomer(api, { id: created.id, etag: res.headers.get('etag')! }, { reference: 'rrr' });
    expect(partial.record).toMatchObject({ organization, main_phone: '11', fax: '22', reference: 'rrr', customer_notes: 'nn' });
    const read = await api.get(`/customers/${created.id}`);
    expect(read.body.data).toEqual(partial.record);
    expect(read.headers.get('etag')).toBe(partial.etag);
  });

  it('clears optional fields with null', async () => {
    const created = await createCustomer(api, { main_phone: '1', fax: '2', website: 'w', description: 'd', reference: 'r', customer_notes: 'n' });
    const cleared = await updateCustomer(api, created, { main_phone: null, fax: null, website: null, description: null, reference: null, customer_notes: null });
    expect(cleared.record).toMatchObject({ main_phone: null, fax: null, website: null, description: null, reference: null, customer_notes: null });
  });

  it('refuses a blank or null organization on update', async () => {
    const created = await createCustomer(api);
    for (const organization of ['', '  ', null]) {
      expectProblem(await api.patch(`/customers/${created.id}`, { customer: { organization } }, ifMatch(created.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { organization: ["can't be blank"] },
        onlyErrors: true,
      });
    }
  });

  it('refuses an unknown field on update with 422 naming it and changes nothing', async () => {
    const created = await createCustomer(api, { reference: 'before' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'after', shoe_size: 44 } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { shoe_size: true },
      onlyErrors: true,
    });
    const read = await api.get(`/customers/${created.id}`);
    expect(read.body.data.reference).toBe('before');
    expect(read.headers.get('etag')).toBe(created.etag);
  });

  it('applies the body-shape rule on update ("is missing", "must be an object")', async () => {
    const created = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${created.id}`, {}, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { customer: ['is missing'] },
      onlyErrors: true,
    });
    expectProblem(await api.request('PATCH', `/customers/${created.id}`, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { customer: ['is missing'] },
    });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: 'x' }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { customer: ['must be an object'] },
      onlyErrors: true,
    });
  });

  it('refuses a member beside the customer key on update with 422 naming it, and leaves the record as it was', async () => {
    const created = await createCustomer(api, { reference: 'before' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'after' }, extra: { reference: 'after' } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { extra: ['is not a permitted field'] },
      onlyErrors: true,
    });
    const read = await api.get(`/customers/${created.id}`);
    expect(read.body.data.reference).toBe('before');
    expect(read.headers.get('etag')).toBe(created.etag);
    // The order of checks holds: a record that does not exist is 404 before its body is read.
    expectProblem(await api.patch('/customers/0190d6a4-5a1e-7000-8000-000000000000', { customer: {}, extra: 1 }, ifMatch(created.etag)), { status: 404, code: 'resource.not_found' });
  });

  it('answers 404 for an unknown id even with an If-Match', async () => {
    const created = await createCustomer(api);
    expectProblem(await api.patch('/customers/0190d6a4-5a1e-7000-8000-000000000000', { customer: { reference: 'x' } }, ifMatch(created.etag)), {
      status: 404,
      code: 'resource.not_found',
    });
  });
});

describe('organization uniqueness', () => {
  it('refuses an organization already used in the account, case-insensitively, with 422 errors.organization', async () => {
    const organization = uniqueOrganization('Acme Heating');
    await createCustomer(api, { organization });
    for (const clash of [organization, organization.toUpperCase(), organization.toLowerCase()]) {
      expectProblem(await api.post('/customers', { customer: { organization: clash } }), {
        status: 422,
        code: 'validation.failed',
        errors: { organization: ['has already been taken'] },
        onlyErrors: true,
      });
    }
  });

  it('refuses renaming a customer to another customer\'s organization, and allows a case change of its own', async () => {
    const first = await createCustomer(api);
    const second = await createCustomer(api);
    expectProblem(
      await api.patch(`/customers/${second.id}`, { customer: { organization: first.record.organization.toUpperCase() } }, ifMatch(second.etag)),
      { status: 422, code: 'validation.failed', errors: { organization: ['has already been taken'] }, onlyErrors: true },
    );
    const recased = await updateCustomer(api, second, { organization: second.record.organization.toUpperCase() });
    expect(recased.record.organization).toBe(second.record.organization.toUpperCase());
  });

  it('allows the same organization in another tenant', async () => {
    const organization = uniqueOrganization('Shared Name');
    await createCustomer(api, { organization });
    const other = await t.tenant();
    await createCustomer(t.client(other.token), { organization });
  });

  it('allows the organization again once the customer holding it is deleted', async () => {
    const organization = uniqueOrganization('Reborn');
    const first = await createCustomer(api, { organization });
    expect((await api.delete(`/customers/${first.id}`, ifMatch(first.etag))).status).toBe(204);
    const second = await createCustomer(api, { organization: organization.toLowerCase() });
    expect(second.id).not.toBe(first.id);
  });
});

describe('DELETE /customers/{id} (soft delete)', () => {
  it('answers 204 with no body; the customer is then 404 on GET, PATCH and DELETE and absent from lists', async () => {
    const organization = uniqueOrganization('Doomed');
    const created = await createCustomer(api, { organization });
    const res = await api.delete(`/customers/${created.id}`, ifMatch(created.etag));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await api.get(`/customers/${created.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { reference: 'x' } }, ifMatch(created.etag)), {
      status: 404,
      code: 'resource.not_found',
    });
    expectProblem(await api.delete(`/customers/${created.id}`, ifMatch(created.etag)), { status: 404, code: 'resource.not_found' });
    const byName = await api.get(`/customers?organization=${encodeURIComponent(organization)}`);
    expect(byName.body.data).toEqual([]);
    const all = await api.get('/customers?limit=100');
    expect(all.body.data.map((c: { id: string }) => c.id)).not.toContain(created.id);
    const searched = await api.get(`/customers?q=${encodeURIComponent(organization)}`);
    expect(searched.body.data).toEqual([]);
  });

  it('keeps the row (soft delete): deleted_at is set and the number stays taken', async () => {
    const created = await createCustomer(api, { number: `SOFT-${Date.now()}` });
    expect((await api.delete(`/customers/${created.id}`, ifMatch(created.etag))).status).toBe(204);
    const row = await t.database.prisma.customer.findUnique({ where: { id: created.id } });
    expect(row?.deleted_at).toBeInstanceOf(Date);
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), number: created.record.number } }), {
      status: 422,
      code: 'validation.failed',
      errors: { number: true },
    });
  });
});

describe('status', () => {
  it('moves to any live status, back again, and accepts re-sending the current one', async () => {
    const created = await createCustomer(api);
    expect(created.record.status).toBe('Active');
    const inactive = await updateCustomer(api, created, { status: 'Inactive' });
    expect(inactive.record.status).toBe('Inactive');
    const again = await updateCustomer(api, inactive, { status: 'Inactive' });
    expect(again.record.status).toBe('Inactive');
    const back = await updateCustomer(api, again, { status: 'Active' });
    expect(back.record.status).toBe('Active');
  });

  it('accepts a status the tenant configured', async () => {
    await t.app.domain.admin.addLookup('status', { accountId: tenant.accountId, relatedName: 'Customer', name: 'Key Account' });
    const created = await createCustomer(api);
    const moved = await updateCustomer(api, created, { status: 'Key Account' });
    expect(moved.record.status).toBe('Key Account');
  });

  it('refuses unknown, misspelled and wrong-case statuses with 422 status.transition_invalid naming the value', async () => {
    const created = await createCustomer(api);
    for (const status of ['Dormant', 'Inactve', 'inactive', 'ACTIVE', 'Active ', 'Estimate Sent', 'Pending']) {
      expectProblem(await api.patch(`/customers/${created.id}`, { customer: { status } }, ifMatch(created.etag)), {
        status: 422,
        code: 'status.transition_invalid',
        detail: `"${status}"`,
      });
    }
    const read = await api.get(`/customers/${created.id}`);
    expect(read.body.data.status).toBe('Active');
    expect(read.headers.get('etag')).toBe(created.etag);
  });

  it('refuses a status once it is removed from the configured statuses', async () => {
    const name = `Seasonal ${Date.now()}`;
    await t.app.domain.admin.addLookup('status', { accountId: tenant.accountId, relatedName: 'Customer', name });
    const created = await createCustomer(api);
    const moved = await updateCustomer(api, created, { status: name });
    await t.app.domain.admin.removeLookup('status', { accountId: tenant.accountId, relatedName: 'Customer', name });
    const other = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${other.id}`, { customer: { status: name } }, ifMatch(other.etag)), {
      status: 422,
      code: 'status.transition_invalid',
      detail: name,
    });
    expectProblem(await api.patch(`/customers/${moved.id}`, { customer: { status: name } }, ifMatch(moved.etag)), {
      status: 422,
      code: 'status.transition_invalid',
      detail: name,
    });
  });

  it("refuses another tenant's status", async () => {
    const other = await t.tenant();
    await t.app.domain.admin.addLookup('status', { accountId: other.accountId, relatedName: 'Customer', name: 'Only Theirs' });
    const created = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { status: 'Only Theirs' } }, ifMatch(created.etag)), {
      status: 422,
      code: 'status.transition_invalid',
      detail: 'Only Theirs',
    });
  });
});

describe('tenancy', () => {
  let mine: { id: string; etag: string; record: Record<string, any> };
  let theirs: Client;
  beforeAll(async () => {
    mine = await createCustomer(api, { reference: 'TENANCY-MINE' });
    theirs = (await t.newTenant()).api;
  });

  it("answers 404 resource.not_found to GET, PATCH and DELETE of another tenant's customer and changes nothing", async () => {
    expectProblem(await theirs.get(`/customers/${mine.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.patch(`/customers/${mine.id}`, { customer: { reference: 'HIJACKED' } }, ifMatch(mine.etag)), {
      status: 404,
      code: 'resource.not_found',
    });
    expectProblem(await theirs.delete(`/customers/${mine.id}`, ifMatch(mine.etag)), { status: 404, code: 'resource.not_found' });
    const read = await api.get(`/customers/${mine.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.reference).toBe('TENANCY-MINE');
    expect(read.headers.get('etag')).toBe(mine.etag);
  });

  it("never lists another tenant's customers, by list, filter or q", async () => {
    for (const path of ['/customers?limit=100', `/customers?organization=${encodeURIComponent(mine.record.organization)}`, '/customers?q=tenancy-mine']) {
      const res = await theirs.get(path);
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(mine.id);
    }
    const own = await api.get('/customers?q=tenancy-mine');
    expect(own.body.data.map((c: { id: string }) => c.id)).toEqual([mine.id]);
  });
});
