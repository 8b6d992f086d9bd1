import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, uniqueOrganization, updateCustomer } from '../helpers/factories/customers.ts';
import { ifMatch } from '../helpers/factories/records.ts';
import { expectProblem } from '../helpers/problem.ts';

// Conventions every resource shares, exercised through customers: number, labels, custom_fields (write side),
// date values, and the events outbox.

const t = useTestApp({ rateLimits: highRateLimits });

describe('number', () => {
  it('is assigned sequentially from 1 per account', async () => {
    const a = await t.newTenant();
    const b = await t.newTenant();
    const numbersA = [];
    for (let i = 0; i < 3; i++) numbersA.push((await createCustomer(a.api)).record.number);
    expect(numbersA).toEqual(['1', '2', '3']);
    expect((await createCustomer(b.api)).record.number).toBe('1');
    expect((await createCustomer(a.api)).record.number).toBe('4');
  });

  it('keeps a client-supplied number (trimmed) and refuses a duplicate with 422 naming number', async () => {
    const { api } = await t.newTenant();
    const created = await createCustomer(api, { number: '  CUST-0042 ' });
    expect(created.record.number).toBe('CUST-0042');
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), number: 'CUST-0042' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { number: ['has already been taken'] },
      onlyErrors: true,
    });
  });

  it('allows the same client number in another tenant', async () => {
    const a = await t.newTenant();
    const b = await t.newTenant();
    await createCustomer(a.api, { number: 'SHARED-1' });
    expect((await createCustomer(b.api, { number: 'SHARED-1' })).record.number).toBe('SHARED-1');
  });

  it('refuses a blank or non-string number on create with 422 naming number', async () => {
    const { api } = await t.newTenant();
    for (const number of ['', '   ', 42, null, 'x'.repeat(65)]) {
      expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), number } }), {
        status: 422,
        code: 'validation.failed',
        errors: { number: true },
        onlyErrors: true,
      });
    }
  });

  it('skips a value a client already took when assigning the next number', async () => {
    const { api } = await t.newTenant();
    expect((await createCustomer(api)).record.number).toBe('1');
    expect((await createCustomer(api, { number: '3' })).record.number).toBe('3');
    expect((await createCustomer(api)).record.number).toBe('2');
    expect((await createCustomer(api)).record.number).toBe('4');
  });

  it('does not consume a number when a create fails', async () => {
    const { api } = await t.newTenant();
    expect((await createCustomer(api)).record.number).toBe('1');
    expectProblem(await api.post('/customers', { customer: { organization: '' } }), { status: 422, code: 'validation.failed' });
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), labels: ['No Such Label'] } }), {
      status: 422,
      code: 'validation.failed',
    });
    expect((await createCustomer(api)).record.number).toBe('2');
  });

  it('is immutable: a different number answers 422 number.immutable, the same value is a no-op', async () => {
    const { api } = await t.newTenant();
    const created = await createCustomer(api, { number: 'IMM-1' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { number: 'IMM-2' } }, ifMatch(created.etag)), {
      status: 422,
      code: 'number.immutable',
      detail: 'IMM-1',
    });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { number: 'IMM-2', reference: 'x' } }, ifMatch(created.etag)), {
      status: 422,
      code: 'number.immutable',
    });
    const read = await api.get(`/customers/${created.id}`);
    expect(read.body.data.number).toBe('IMM-1');
    expect(read.body.data.reference).toBeNull();
    const same = await api.patch(`/customers/${created.id}`, { customer: { number: 'IMM-1', reference: 'kept' } }, ifMatch(created.etag));
    expect(same.status, same.text).toBe(200);
    expect(same.body.data).toMatchObject({ number: 'IMM-1', reference: 'kept' });
    const onlyNumber = await api.patch(`/customers/${created.id}`, { customer: { number: 'IMM-1' } }, ifMatch(same.headers.get('etag')!));
    expect(onlyNumber.status, onlyNumber.text).toBe(200);
    expect(onlyNumber.body.data.number).toBe('IMM-1');
  });

  it('compares an update\'s number trimmed, as it was stored: " 42 " on number "42" is no change', async () => {
    const { api } = await t.newTenant();
    const created = await createCustomer(api, { number: ' 42 ' });
    expect(created.record.number).toBe('42');
    const padded = await api.patch(`/customers/${created.id}`, { customer: { number: '\t42 ', reference: 'padded' } }, ifMatch(created.etag));
    expect(padded.status, padded.text).toBe(200);
    expect(padded.body.data).toMatchObject({ number: '42', reference: 'padded' });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { number: ' 43 ' } }, ifMatch(padded.headers.get('etag')!)), {
      status: 422,
      code: 'number.immutable',
    });
  });

  it('refuses clearing the number with null (number.immutable)', async () => {
    const { api } = await t.newTenant();
    const created = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { number: null } }, ifMatch(created.etag)), {
      status: 422,
      code: 'number.immutable',
    });
  });
});

describe('labels', () => {
  const { api, tenant } = useTenant(t);
  beforeAll(async () => {
    for (const name of ['VIP', 'Net 30', 'Seasonal']) {
      await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Customer', name });
    }
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Job', name: 'Job Only' });
  });

  it('accepts labels from the labels lookup and collapses duplicates', async () => {
    const created = await createCustomer(api, { labels: ['VIP', 'Net 30', 'VIP'] });
    expect(created.record.labels).toEqual(['VIP', 'Net 30']);
  });

  it('refuses an unknown label, a wrong-case label and a label of another resource with 422 naming labels', async () => {
    for (const label of ['Gold', 'vip', 'Job Only']) {
      const res = expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), labels: ['VIP', label] } }), {
        status: 422,
        code: 'validation.failed',
        errors: { labels: true },
        onlyErrors: true,
      });
      expect(res.errors.labels.join(' ')).toContain(label);
    }
  });

  it('refuses a labels value that is not an array of strings', async () => {
    for (const labels of ['VIP', [1], null, { VIP: true }]) {
      expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), labels } }), {
        status: 422,
        code: 'validation.failed',
        errors: { labels: true },
        onlyErrors: true,
      });
    }
  });

  it('replaces the list on update, keeps it when omitted and clears it with []', async () => {
    const created = await createCustomer(api, { labels: ['VIP'] });
    const replaced = await updateCustomer(api, created, { labels: ['Seasonal', 'Net 30'] });
    expect(replaced.record.labels).toEqual(['Seasonal', 'Net 30']);
    const kept = await updateCustomer(api, replaced, { reference: 'no labels key' });
    expect(kept.record.labels).toEqual(['Seasonal', 'Net 30']);
    const cleared = await updateCustomer(api, kept, { labels: [] });
    expect(cleared.record.labels).toEqual([]);
    expect((await api.get(`/customers/${created.id}`)).body.data.labels).toEqual([]);
  });

  it('refuses an unknown label on update and keeps the old labels', async () => {
    const created = await createCustomer(api, { labels: ['VIP'] });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { labels: ['Nope'] } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { labels: true },
    });
    expect((await api.get(`/customers/${created.id}`)).body.data.labels).toEqual(['VIP']);
  });

  it('refuses a label once it is removed from the lookup', async () => {
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Customer', name: 'Retired' });
    await createCustomer(api, { labels: ['Retired'] });
    await t.app.domain.admin.removeLookup('label', { accountId: tenant.accountId, relatedName: 'Customer', name: 'Retired' });
    expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), labels: ['Retired'] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { labels: true },
    });
  });

  it("refuses another tenant's label", async () => {
    const other = await t.newTenant();
    expectProblem(await other.api.post('/customers', { customer: { organization: uniqueOrganization(), labels: ['VIP'] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { labels: true },
    });
  });
});

describe('custom_fields', () => {
  const { api, tenant } = useTenant(t);
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const add = async (name: string, type: string, options?: string[]) =>
      (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Customer', name, type, options })).id;
    ids.text = await add('Region', 'text');
    ids.number = await add('Fleet size', 'number');
    ids.date = await add('Contract start', 'date');
    ids.checkbox = await add('Tax exempt', 'checkbox');
    ids.select = await add('Tier', 'select', ['Bronze', 'Silver', 'Gold']);
    ids.multiselect = await add('Trades', 'multiselect', ['HVAC', 'Plumbing', 'Electrical']);
    ids.attachment = await add('Signed contract', 'attachment');
    ids.jobText = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Job', name: 'Job note', type: 'text' })).id;
  });

  it('accepts a valid value of every settable type, keyed by definition id', async () => {
    const values = {
      [ids.text]: 'North',
      [ids.number]: 12.5,
      [ids.date]: '2026-03-01',
      [ids.checkbox]: false,
      [ids.select]: 'Gold',
      [ids.multiselect]: ['HVAC', 'Electrical'],
    };
    const created = await createCustomer(api, { custom_fields: values });
    expect(created.record.custom_fields).toEqual(values);
    expect((await api.get(`/customers/${created.id}`)).body.data.custom_fields).toEqual(values);
  });

  const wrong: [string, unknown][] = [
    ['text', 5],
    ['text', ['North']],
    ['number', '5'],
    ['number', true],
    ['date', 'yesterday'],
    ['date', '2026-02-30'],
    ['date', '01/03/2026'],
    ['date', 20260301],
    ['checkbox', 'true'],
    ['checkbox', 1],
    ['select', 'Platinum'],
    ['select', 'gold'],
    ['select', ['Gold']],
    ['multiselect', 'HVAC'],
    ['multiselect', ['HVAC', 'Roofing']],
    ['multiselect', [1]],
    ['multiselect', ['HVAC', 'HVAC']],
    ['text', 'x'.repeat(10_001)],
  ];
  it.each(wrong)('refuses a wrongly typed %s value (%j) with 422 naming custom_fields.<id>', async (type, value) => {
    const body = expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), custom_fields: { [ids[type]]: value } } }), {
      status: 422,
      code: 'validation.failed',
      errors: { [`custom_fields.${ids[type]}`]: true },
      onlyErrors: true,
    });
    expect(body.detail).toContain(`custom_fields.${ids[type]}`);
  });

  it('takes a text custom field of 10,000 characters, and refuses more keys than the resource has definitions whole, with one error', async () => {
    const created = await createCustomer(api, { custom_fields: { [ids.text]: 'x'.repeat(10_000) } });
    expect(created.record.custom_fields[ids.text]).toHaveLength(10_000);
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'x']));
    const body = expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), custom_fields: many } }), { status: 422, code: 'validation.failed', onlyErrors: true });
    expect(body.errors).toEqual({ custom_fields: [expect.stringMatching(/^has 60 keys; at most \d+ \(one per custom field definition of this resource\)$/)] });
  });

  it('names an unparseable date custom field on update too, and keeps the old value', async () => {
    const created = await createCustomer(api, { custom_fields: { [ids.date]: '2026-01-15' } });
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { custom_fields: { [ids.date]: '2026-13-01' } } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { [`custom_fields.${ids.date}`]: true },
      onlyErrors: true,
    });
    expect((await api.get(`/customers/${created.id}`)).body.data.custom_fields[ids.date]).toBe('2026-01-15');
    const cleared = await updateCustomer(api, created, { custom_fields: { [ids.date]: null } });
    expect(cleared.record.custom_fields).toEqual({});
  });

  it('refuses an unknown key, a key of another resource and a key of another tenant with 422 naming it', async () => {
    const other = await t.newTenant();
    const theirs = (await t.app.domain.admin.addCustomField({ accountId: other.tenant.accountId, relatedName: 'Customer', name: 'Theirs', type: 'text' })).id;
    for (const key of [randomUUID(), 'region', ids.jobText, theirs]) {
      expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), custom_fields: { [key]: 'x' } } }), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${key}`]: true },
        onlyErrors: true,
      });
    }
  });

  it('refuses custom_fields that is not an object', async () => {
    for (const custom_fields of ['x', [], 3, null]) {
      expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), custom_fields } }), {
        status: 422,
        code: 'validation.failed',
        errors: { custom_fields: true },
        onlyErrors: true,
      });
    }
  });

  it('does not set an attachment field through the body, on create or update, not even to null', async () => {
    for (const value of ['contract.pdf', { url: 'https://x.test/a.pdf' }, null]) {
      expectProblem(await api.post('/customers', { customer: { organization: uniqueOrganization(), custom_fields: { [ids.attachment]: value } } }), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${ids.attachment}`]: true },
        onlyErrors: true,
      });
    }
    const created = await createCustomer(api);
    expectProblem(await api.patch(`/customers/${created.id}`, { customer: { custom_fields: { [ids.attachment]: 'a.pdf' } } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { [`custom_fields.${ids.attachment}`]: true },
    });
  });

  it('merges on update: absent keys are kept, sent keys replaced, null clears', async () => {
    const created = await createCustomer(api, { custom_fields: { [ids.text]: 'North', [ids.number]: 3, [ids.checkbox]: true } });
    const merged = await updateCustomer(api, created, { custom_fields: { [ids.number]: 4, [ids.select]: 'Silver' } });
    expect(merged.record.custom_fields).toEqual({ [ids.text]: 'North', [ids.number]: 4, [ids.checkbox]: true, [ids.select]: 'Silver' });
    const cleared = await updateCustomer(api, merged, { custom_fields: { [ids.text]: null, [ids.checkbox]: null } });
    expect(cleared.record.custom_fields).toEqual({ [ids.number]: 4, [ids.select]: 'Silver' });
    const untouched = await updateCustomer(api, cleared, { reference: 'no custom_fields key' });
    expect(untouched.record.custom_fields).toEqual({ [ids.number]: 4, [ids.select]: 'Silver' });
    const emptyObject = await updateCustomer(api, untouched, { custom_fields: {} });
    expect(emptyObject.record.custom_fields).toEqual({ [ids.number]: 4, [ids.select]: 'Silver' });
  });

  it('enforces required definitions on create and when an update clears them', async () => {
    const own = await t.newTenant();
    const required = (
      await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Customer', name: 'PO number', type: 'text', required: true })
    ).id;
    const optional = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Customer', name: 'Notes', type: 'text' })).id;
    const attachment = (
      await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Customer', name: 'Scan', type: 'attachment', required: true })
    ).id;
    for (const custom_fields of [undefined, {}, { [optional]: 'x' }, { [required]: null }, { [required]: '' }]) {
      expectProblem(await own.api.post('/customers', { customer: { organization: uniqueOrganization(), custom_fields } }), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${required}`]: true },
        onlyErrors: true,
      });
    }
    const created = await createCustomer(own.api, { custom_fields: { [required]: 'PO-1' } });
    expect(created.record.custom_fields).toEqual({ [required]: 'PO-1' });
    expect(created.record.custom_fields[attachment]).toBeUndefined();
    const other = await updateCustomer(own.api, created, { custom_fields: { [optional]: 'y' } });
    expect(other.record.custom_fields).toEqual({ [required]: 'PO-1', [optional]: 'y' });
    for (const value of [null, '']) {
      expectProblem(await own.api.patch(`/customers/${created.id}`, { customer: { custom_fields: { [required]: value } } }, ifMatch(other.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${required}`]: true },
        onlyErrors: true,
      });
    }
    const changed = await updateCustomer(own.api, other, { custom_fields: { [required]: 'PO-2' } });
    expect(changed.record.custom_fields[required]).toBe('PO-2');
  });

  it('enforces required definitions on every update, custom_fields sent or not: a definition made required since the record was written is named until given', async () => {
    const own = await t.newTenant();
    const created = await createCustomer(own.api);
    const required = (
      await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Customer', name: 'PO number', type: 'text', required: true })
    ).id;
    const optional = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Customer', name: 'Notes', type: 'text' })).id;
    for (const customer of [{ reference: 'R-1' }, { custom_fields: { [optional]: 'x' } }, { custom_fields: {} }]) {
      expectProblem(await own.api.patch(`/customers/${created.id}`, { customer }, ifMatch(created.etag)), {
        status: 422,
        code: 'validation.failed',
        errors: { [`custom_fields.${required}`]: ['is required (PO number)'] },
        onlyErrors: true,
      });
    }
    expect((await own.api.get(`/customers/${created.id}`)).body.data.reference).toBeNull();
    const given = await updateCustomer(own.api, created, { reference: 'R-1', custom_fields: { [required]: 'PO-1' } });
    expect(given.record).toMatchObject({ reference: 'R-1', custom_fields: { [required]: 'PO-1' } });
    const later = await updateCustomer(own.api, given, { reference: 'R-2' });
    expect(later.record.custom_fields).toEqual({ [required]: 'PO-1' });
  });

  it('reports every invalid field of one request together', async () => {
    expectProblem(
      await api.post('/customers', {
        customer: { organization: '', labels: ['Nope'], custom_fields: { [ids.number]: 'many', [ids.checkbox]: 'yes' }, status: 'Active' },
      }),
      {
        status: 422,
        code: 'validation.failed',
        errors: { organization: true, labels: true, [`custom_fields.${ids.number}`]: true, [`custom_fields.${ids.checkbox}`]: true, status: true },
        onlyErrors: true,
      },
    );
  });
});

describe('events outbox', () => {
  const { api, tenant } = useTenant(t);

  const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });
  const eventCount = () => t.database.prisma.event.count({ where: { account_id: tenant.accountId } });

  it('appends one event per create, update and delete with topic, record id, actor key and request id', async () => {
    const created = await api.post('/customers', { customer: { organization: uniqueOrganization('Evented') } }, { headers: { 'x-request-id': 'req-create-1' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const updated = await api.patch(
      `/customers/${id}`,
      { customer: { reference: 'E-1' } },
      { headers: { 'if-match': created.headers.get('etag')!, 'x-request-id': 'req-update-1' } },
    );
    expect(updated.status).toBe(200);
    const deleted = await api.delete(`/customers/${id}`, { headers: { 'if-match': updated.headers.get('etag')!, 'x-request-id': 'req-delete-1' } });
    expect(deleted.status).toBe(204);

    const events = await eventsOf(id);
    expect(events.map((e) => [e.topic, e.action, e.resource, e.request_id])).toEqual([
      ['customer.created', 'created', 'Customer', 'req-create-1'],
      ['customer.updated', 'updated', 'Customer', 'req-update-1'],
      ['customer.deleted', 'deleted', 'Customer', 'req-delete-1'],
    ]);
    for (const event of events) {
      expect(event.account_id).toBe(tenant.accountId);
      expect(event.record_id).toBe(id);
      expect(event.actor).toMatchObject({ key_id: tenant.keyId, user_id: tenant.userId });
    }
    expect(events[0].payload).toEqual(created.body.data);
    expect(events[1].payload).toEqual(updated.body.data);
    expect(new Set(events.map((e) => e.id)).size).toBe(3);
  });

  it('records the generated request id when the client sends none', async () => {
    const created = await api.post('/customers', { customer: { organization: uniqueOrganization() } });
    const [event] = await eventsOf(created.body.data.id);
    expect(event.request_id).toBe(created.headers.get('x-request-id'));
  });

  it('appends nothing when a write fails (422, 412, 428, 404)', async () => {
    const existing = await createCustomer(api, { number: `EV-${Date.now()}` });
    const before = await eventCount();
    expect((await api.post('/customers', { customer: { organization: '' } })).status).toBe(422);
    expect((await api.post('/customers', { customer: { organization: existing.record.organization } })).status).toBe(422);
    expect((await api.patch(`/customers/${existing.id}`, { customer: { number: 'OTHER' } }, ifMatch(existing.etag))).status).toBe(422);
    expect((await api.patch(`/customers/${existing.id}`, { customer: { status: 'Nope' } }, ifMatch(existing.etag))).status).toBe(422);
    expect((await api.patch(`/customers/${existing.id}`, { customer: { reference: 'x' } }, ifMatch('W/"1-0"'))).status).toBe(412);
    expect((await api.patch(`/customers/${existing.id}`, { customer: { reference: 'x' } })).status).toBe(428);
    expect((await api.delete(`/customers/${existing.id}`, ifMatch('W/"1-0"'))).status).toBe(412);
    expect((await api.delete(`/customers/${existing.id}`)).status).toBe(428);
    expect((await api.delete(`/customers/${randomUUID()}`, ifMatch(existing.etag))).status).toBe(404);
    expect(await eventCount()).toBe(before);
  });

  it('writes the change and its event in one transaction: when the event cannot be stored, create, update and delete answer 500 internal.error and change nothing', async () => {
    const existing = await createCustomer(api, { reference: 'OUTBOX-1' });
    const before = await eventCount();
    // The events table refuses rows of requests whose id carries the marker, as a failing outbox insert would.
    await t.database.prisma.$executeRawUnsafe(
      `ALTER TABLE events ADD CONSTRAINT test_refuse_marked_events CHECK (request_id IS NULL OR request_id NOT LIKE 'refuse-event%')`,
    );
    try {
      const marked = (n: string, etag?: string) => ({ headers: { 'x-request-id': `refuse-event-${n}`, ...(etag ? { 'if-match': etag } : {}) } });
      const organization = uniqueOrganization('Never Stored');
      expectProblem(await api.post('/customers', { customer: { organization } }, marked('create')), { status: 500, code: 'internal.error' });
      expectProblem(await api.patch(`/customers/${existing.id}`, { customer: { reference: 'CHANGED' } }, marked('update', existing.etag)), {
        status: 500,
        code: 'internal.error',
      });
      expectProblem(await api.delete(`/customers/${existing.id}`, marked('delete', existing.etag)), { status: 500, code: 'internal.error' });

      expect((await api.get(`/customers?organization=${encodeURIComponent(organization)}`)).body.data).toEqual([]);
      const read = await api.get(`/customers/${existing.id}`);
      expect(read.status).toBe(200);
      expect(read.headers.get('etag')).toBe(existing.etag);
      expect(read.body.data).toEqual(existing.record);
      expect(await eventCount()).toBe(before);
    } finally {
      await t.database.prisma.$executeRawUnsafe('ALTER TABLE events DROP CONSTRAINT test_refuse_marked_events');
    }
    // Without the marker the same writes go through, each with its event.
    const updated = await updateCustomer(api, existing, { reference: 'CHANGED' });
    expect(updated.record.reference).toBe('CHANGED');
    expect(await eventCount()).toBe(before + 1);
  });
});
