import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, type Tenant, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createContact, link, linkagesOf } from '../helpers/factories/contacts.ts';
import { createCustomer, customerTarget } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { type Created, deleteRecord, idsOf, ifMatch, unique, updateRecord, weakEtag } from '../helpers/factories/records.ts';
import { createSite } from '../helpers/factories/sites.ts';
import type { Client } from '../helpers/http.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Contacts over REST: every field, linking on create, the main linkage shown in linkable_id/linkable_type,
// phone_numbers (legacy entry from mobile, snapshot replace on update, ETag), delete refused while linked,
// q, filters and sorts, and that a PATCH never replaces a record's primary contact.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);

const contactCount = () => t.database.prisma.contact.count({ where: { account_id: tenant.accountId } });
const primaryOf = async (type: string, id: string) =>
  (await t.database.prisma.contactLinkage.findMany({ where: { linkable_type: type, linkable_id: id, is_primary: true } })).map((l) => l.contact_id);

describe('POST /contacts', () => {
  it('creates a contact with every field and answers 201 with Location, ETag and {data}', async () => {
    const note = (await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Contact', name: 'Birthday', type: 'date' })).id;
    const target = await customerTarget(api);
    const fields = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@example.test',
      phone: '+1 555 0100',
      mobile: '+1 555 0199',
      title: 'Engineer',
      contact_method: 'email',
      custom_fields: { [note]: '1815-12-10' },
    };
    const res = await api.post('/contacts', {
      contact: { ...fields, linkable_id: target.id, linkable_type: 'Customer', phone_numbers: [{ number: '+1 555 0111', kind: 'office', extension: '12' }] },
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const data = res.body.data;
    expect(data).toMatchObject({ ...fields, linkable_id: target.id, linkable_type: 'Customer' });
    expect(data.phone_numbers).toEqual([{ id: expect.stringMatching(uuidV7), number: '+1 555 0111', kind: 'office', extension: '12' }]);
    expect(data.id).toMatch(uuidV7);
    expect(data.updated_at).toBe(data.created_at);
    expect(res.headers.get('location')).toBe(`/api/v2/contacts/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    const read = await api.get(`/contacts/${data.id}`);
    expect(read.body).toEqual({ data });
    expect(read.headers.get('etag')).toBe(res.headers.get('etag'));
  });

  it('creates a contact with no fields at all (every field is optional)', async () => {
    const res = await api.post('/contacts', { contact: {} });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      first_name: null,
      last_name: null,
      email: null,
      phone: null,
      mobile: null,
      title: null,
      contact_method: null,
      linkable_id: null,
      linkable_type: null,
      custom_fields: {},
      phone_numbers: [],
    });
  });

  it('refuses an invalid email, unknown fields and wrongly typed values with 422 naming each', async () => {
    expectProblem(await api.post('/contacts', { contact: { email: 'not-an-email', shoe_size: 44, first_name: 7, title: ['x'] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { email: true, shoe_size: true, first_name: true, title: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/contacts', { contact: { mobile: '5'.repeat(65) } }), { status: 422, code: 'validation.failed', errors: { mobile: true }, onlyErrors: true });
  });

  it('applies the body-shape rule ("is missing", "must be an object")', async () => {
    // A field sent beside the key instead of under it is refused too (nothing is dropped silently).
    expectProblem(await api.post('/contacts', { first_name: 'Top' }), { status: 422, code: 'validation.failed', errors: { contact: ['is missing'], first_name: ['is not a permitted field'] }, onlyErrors: true });
    expectProblem(await api.post('/contacts', { contact: 'Ada' }), { status: 422, code: 'validation.failed', errors: { contact: ['must be an object'] }, onlyErrors: true });
  });
});

describe('linking on create (linkable_id / linkable_type)', () => {
  it('links the new contact to a Customer, a Lead or a Site; the first contact of a record becomes its primary', async () => {
    const customer = await customerTarget(api);
    const lead = { type: 'Lead' as const, id: (await createLead(api)).id };
    const site = { type: 'Site' as const, id: (await createSite(api, customer)).id };
    for (const target of [customer, lead, site]) {
      const contact = await createContact(api, { linkable_id: target.id, linkable_type: target.type });
      expect(contact.record).toMatchObject({ linkable_id: target.id, linkable_type: target.type });
      const linkages = await linkagesOf(api, contact.id);
      expect(linkages).toEqual([
        expect.objectContaining({ contact_id: contact.id, linkable_id: target.id, linkable_type: target.type, primary: true, relationship_type: 'associated' }),
      ]);
      expect(await primaryOf(target.type, target.id)).toEqual([contact.id]);
    }
  });

  it('makes a later contact of the record a non-primary linkage; the first stays primary', async () => {
    const customer = await customerTarget(api);
    const first = await createContact(api, { linkable_id: customer.id, linkable_type: 'Customer' });
    const second = await createContact(api, { linkable_id: customer.id, linkable_type: 'Customer' });
    expect(second.record).toMatchObject({ linkable_id: customer.id, linkable_type: 'Customer' });
    expect((await linkagesOf(api, second.id))[0].primary).toBe(false);
    expect(await primaryOf('Customer', customer.id)).toEqual([first.id]);
  });

  it('refuses linkable_id without linkable_type and the reverse with 422, creating nothing', async () => {
    const customer = await customerTarget(api);
    const before = await contactCount();
    expectProblem(await api.post('/contacts', { contact: { first_name: 'Half', linkable_id: customer.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_type: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/contacts', { contact: { first_name: 'Half', linkable_type: 'Customer' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_id: true },
      onlyErrors: true,
    });
    expect(await contactCount()).toBe(before);
  });

  it('refuses a linkable_type outside Customer, Lead, Site with 422 naming linkable_type', async () => {
    const customer = await customerTarget(api);
    for (const linkable_type of ['Contact', 'Job', 'customer', '', 1]) {
      expectProblem(await api.post('/contacts', { contact: { linkable_id: customer.id, linkable_type } }), {
        status: 422,
        code: 'validation.failed',
        errors: { linkable_type: true },
        onlyErrors: true,
      });
    }
  });

  it('refuses a linkable_id that matches no live record of that type with 422 naming linkable_id, creating nothing', async () => {
    const other = await t.newTenant();
    const theirs = await createCustomer(other.api);
    const gone = await createCustomer(api);
    await deleteRecord(api, 'customers', gone.id);
    const mine = await createCustomer(api);
    const before = await contactCount();
    for (const [linkable_type, linkable_id] of [
      ['Customer', randomUUID()],
      ['Customer', theirs.id],
      ['Customer', gone.id],
      ['Lead', mine.id],
      ['Site', mine.id],
      ['Customer', 'nope'],
    ]) {
      expectProblem(await api.post('/contacts', { contact: { first_name: 'Orphan', linkable_id, linkable_type } }), {
        status: 422,
        code: 'validation.failed',
        errors: { linkable_id: true },
        onlyErrors: true,
      });
    }
    expect(await contactCount()).toBe(before);
  });
});

describe('linkable_id / linkable_type show the main linkage', () => {
  it('refuses linkable_id and linkable_type on PATCH with 422 naming them, changing nothing', async () => {
    const a = await customerTarget(api);
    const b = await customerTarget(api);
    const contact = await createContact(api, { linkable_id: a.id, linkable_type: 'Customer' });
    expectProblem(await api.patch(`/contacts/${contact.id}`, { contact: { linkable_id: b.id, linkable_type: 'Customer' } }, ifMatch(contact.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_id: true, linkable_type: true },
      onlyErrors: true,
    });
    for (const body of [{ linkable_id: a.id }, { linkable_type: 'Customer' }, { linkable_id: null }]) {
      expectProblem(await api.patch(`/contacts/${contact.id}`, { contact: body }, ifMatch(contact.etag)), { status: 422, code: 'validation.failed' });
    }
    const read = await api.get(`/contacts/${contact.id}`);
    expect(read.body.data).toMatchObject({ linkable_id: a.id, linkable_type: 'Customer' });
    expect(read.headers.get('etag')).toBe(contact.etag);
    expect(await linkagesOf(api, contact.id)).toHaveLength(1);
  });

  it('prefers a linkage where the contact is primary, otherwise the oldest, and follows the primary as it moves', async () => {
    const c = await customerTarget(api);
    const d = await customerTarget(api);
    const holder = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' }); // primary of C
    const x = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' }); // not primary of C
    const main = async () => {
      const { linkable_id, linkable_type } = (await api.get(`/contacts/${x.id}`)).body.data;
      return { linkable_id, linkable_type };
    };
    expect(await main()).toEqual({ linkable_id: c.id, linkable_type: 'Customer' }); // oldest

    const onD = await link(api, x.id, d); // first on D: primary there
    expect(onD.primary).toBe(true);
    expect(await main()).toEqual({ linkable_id: d.id, linkable_type: 'Customer' }); // primary beats oldest

    const y = await createContact(api);
    await link(api, y.id, d, { primary: true }); // X demoted on D
    expect(await main()).toEqual({ linkable_id: c.id, linkable_type: 'Customer' }); // back to the oldest

    const onC = (await linkagesOf(api, x.id)).find((l) => l.linkable_id === c.id)!;
    const promoted = await api.patch(`/contacts/${x.id}/linkages/${onC.id}`, { linkage: { primary: true } });
    expect(promoted.status, promoted.text).toBe(200);
    expect(await main()).toEqual({ linkable_id: c.id, linkable_type: 'Customer' });
    expect((await api.get(`/contacts/${holder.id}`)).body.data).toMatchObject({ linkable_id: c.id, linkable_type: 'Customer' });

    // The holder loses C's primary role but C is still its only (so oldest) linkage.
    const site = { type: 'Site' as const, id: (await createSite(api, { type: 'Customer', id: c.id })).id };
    await link(api, holder.id, site); // primary of the new site: now the holder's main linkage
    expect((await api.get(`/contacts/${holder.id}`)).body.data).toMatchObject({ linkable_id: site.id, linkable_type: 'Site' });
  });

  it('becomes null once every linkage is removed', async () => {
    const c = await customerTarget(api);
    const primary = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    const other = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    const [linkage] = await linkagesOf(api, other.id);
    expect((await api.delete(`/contacts/${other.id}/linkages/${linkage.id}`)).status).toBe(204);
    expect((await api.get(`/contacts/${other.id}`)).body.data).toMatchObject({ linkable_id: null, linkable_type: null });
    expect((await api.get(`/contacts/${primary.id}`)).body.data).toMatchObject({ linkable_id: c.id });
  });
});

describe('phone_numbers', () => {
  it('on create without phone_numbers, makes one mobile entry from mobile (the legacy automatic entry)', async () => {
    const contact = await createContact(api, { mobile: '+1 555 0123' });
    expect(contact.record.phone_numbers).toEqual([{ id: expect.stringMatching(uuidV7), number: '+1 555 0123', kind: 'mobile', extension: null }]);
    expect((await createContact(api, { phone: '+1 555 0000' })).record.phone_numbers).toEqual([]);
    expect((await createContact(api, { mobile: null })).record.phone_numbers).toEqual([]);
  });

  it('on create with phone_numbers, keeps exactly the supplied entries and makes none from mobile', async () => {
    const supplied = await createContact(api, {
      mobile: '+1 555 0123',
      phone_numbers: [{ number: '+1 555 0200', kind: 'home' }, { number: '+1 555 0201', kind: 'fax' }, { number: '+1 555 0202' }],
    });
    expect(supplied.record.mobile).toBe('+1 555 0123');
    expect(supplied.record.phone_numbers.map((p: any) => [p.number, p.kind, p.extension])).toEqual([
      ['+1 555 0200', 'home', null],
      ['+1 555 0201', 'fax', null],
      ['+1 555 0202', 'mobile', null],
    ]);
    const none = await createContact(api, { mobile: '+1 555 0123', phone_numbers: [] });
    expect(none.record.phone_numbers).toEqual([]);
  });

  it('refuses malformed entries with 422 naming phone_numbers.<index>.<field>', async () => {
    const cases: [unknown, string][] = [
      [[{ kind: 'home' }], 'phone_numbers.0.number'],
      [[{ number: '' }], 'phone_numbers.0.number'],
      [[{ number: '1' }, { number: '2', kind: 'pager' }], 'phone_numbers.1.kind'],
      [[{ number: '1', extension: 'x'.repeat(17) }], 'phone_numbers.0.extension'],
      [[{ number: '1', colour: 'red' }], 'phone_numbers.0.colour'],
      [[{ number: '1', id: randomUUID() }], 'phone_numbers.0.id'],
      [['+1 555'], 'phone_numbers.0'],
      ['+1 555', 'phone_numbers'],
      [{ number: '1' }, 'phone_numbers'],
    ];
    const before = await contactCount();
    for (const [phone_numbers, field] of cases) {
      expectProblem(await api.post('/contacts', { contact: { first_name: 'Bad phone', phone_numbers } }), {
        status: 422,
        code: 'validation.failed',
        errors: { [field]: true },
        onlyErrors: true,
      });
    }
    expect(await contactCount()).toBe(before);
  });

  it('on update, is a snapshot replace by id: entries with id update, without id create, absent ids are removed', async () => {
    const contact = await createContact(api, { phone_numbers: [{ number: '111', kind: 'office' }, { number: '222' }, { number: '333', kind: 'home' }] });
    const [one, , three] = contact.record.phone_numbers;
    const updated = await updateRecord(api, 'contacts', 'contact', contact, {
      phone_numbers: [{ id: three.id }, { number: '444', kind: 'fax', extension: '9' }, { id: one.id, number: '111-1', extension: '7' }],
    });
    expect(updated.record.phone_numbers).toEqual([
      { id: three.id, number: '333', kind: 'home', extension: null },
      { id: expect.stringMatching(uuidV7), number: '444', kind: 'fax', extension: '9' },
      { id: one.id, number: '111-1', kind: 'office', extension: '7' },
    ]);
    expect((await api.get(`/contacts/${contact.id}`)).body.data.phone_numbers).toEqual(updated.record.phone_numbers);
  });

  it('is preserved when the key is omitted and emptied by []', async () => {
    const contact = await createContact(api, { phone_numbers: [{ number: '111' }, { number: '222' }] });
    const kept = await updateRecord(api, 'contacts', 'contact', contact, { title: 'Manager', mobile: '999' });
    expect(kept.record.phone_numbers).toEqual(contact.record.phone_numbers);
    const emptied = await updateRecord(api, 'contacts', 'contact', kept, { phone_numbers: [] });
    expect(emptied.record.phone_numbers).toEqual([]);
    const again = await updateRecord(api, 'contacts', 'contact', emptied, { title: 'Director' });
    expect(again.record.phone_numbers).toEqual([]);
  });

  it("refuses an id of another contact's phone number (or an unknown one) with 422 naming the entry, changing nothing", async () => {
    const mine = await createContact(api, { phone_numbers: [{ number: '111' }] });
    const others = await createContact(api, { phone_numbers: [{ number: '222' }] });
    const foreignTenant = await t.newTenant();
    const foreign = await createContact(foreignTenant.api, { phone_numbers: [{ number: '333' }] });
    for (const id of [others.record.phone_numbers[0].id, foreign.record.phone_numbers[0].id, randomUUID()]) {
      expectProblem(
        await api.patch(`/contacts/${mine.id}`, { contact: { phone_numbers: [{ id: mine.record.phone_numbers[0].id }, { id, number: 'stolen' }] } }, ifMatch(mine.etag)),
        { status: 422, code: 'validation.failed', errors: { 'phone_numbers.1.id': true }, onlyErrors: true },
      );
    }
    expectProblem(await api.patch(`/contacts/${mine.id}`, { contact: { phone_numbers: [{ id: 'x1' }] } }, ifMatch(mine.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { 'phone_numbers.0.id': true },
    });
    const readMine = await api.get(`/contacts/${mine.id}`);
    expect(readMine.body.data.phone_numbers).toEqual(mine.record.phone_numbers);
    expect(readMine.headers.get('etag')).toBe(mine.etag);
    expect((await api.get(`/contacts/${others.id}`)).body.data.phone_numbers).toEqual(others.record.phone_numbers);
    expect((await foreignTenant.api.get(`/contacts/${foreign.id}`)).body.data.phone_numbers).toEqual(foreign.record.phone_numbers);
  });

  it('changes the ETag when supplied, even when nothing else changes', async () => {
    const contact = await createContact(api, { phone_numbers: [{ number: '111' }] });
    const same = await updateRecord(api, 'contacts', 'contact', contact, { phone_numbers: contact.record.phone_numbers.map((p: any) => ({ id: p.id })) });
    expect(same.record.phone_numbers).toEqual(contact.record.phone_numbers);
    expect(same.etag).toMatch(weakEtag);
    expect(same.etag).not.toBe(contact.etag);
    const again = await updateRecord(api, 'contacts', 'contact', same, { phone_numbers: same.record.phone_numbers });
    expect(again.etag).not.toBe(same.etag);
    expect((await api.get(`/contacts/${contact.id}`)).headers.get('etag')).toBe(again.etag);
    expectProblem(await api.patch(`/contacts/${contact.id}`, { contact: { first_name: 'Stale' } }, ifMatch(same.etag)), { status: 412, code: 'precondition.failed' });
  });
});

describe('PATCH /contacts/{id}', () => {
  it('changes every updatable field, keeps the others, clears with null and answers 200 with a new ETag', async () => {
    const contact = await createContact(api, { email: 'a@example.test', phone: '1', mobile: '2', title: 't', contact_method: 'sms' });
    const changes = { first_name: 'Grace', last_name: 'Hopper', email: 'grace@example.test', phone: '11', mobile: '22', title: 'Admiral', contact_method: 'phone' };
    const updated = await updateRecord(api, 'contacts', 'contact', contact, changes);
    expect(updated.record).toMatchObject({ ...changes, id: contact.id, created_at: contact.record.created_at });
    expect(updated.etag).not.toBe(contact.etag);
    const partial = await updateRecord(api, 'contacts', 'contact', updated, { title: 'Rear Admiral' });
    expect(partial.record).toMatchObject({ ...changes, title: 'Rear Admiral' });
    const cleared = await updateRecord(api, 'contacts', 'contact', partial, { email: null, phone: null, mobile: null, title: null, contact_method: null, first_name: null });
    expect(cleared.record).toMatchObject({ email: null, phone: null, mobile: null, title: null, contact_method: null, first_name: null, last_name: 'Hopper' });
    expectProblem(await api.patch(`/contacts/${contact.id}`, { contact: { email: 'nope' } }, ifMatch(cleared.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { email: true },
      onlyErrors: true,
    });
  });

  it('merges custom_fields (absent kept, null clears)', async () => {
    const own = await t.newTenant();
    const a = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Contact', name: 'Shoe', type: 'number' })).id;
    const b = (await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Contact', name: 'Team', type: 'text' })).id;
    const contact = await createContact(own.api, { custom_fields: { [a]: 44 } });
    const merged = await updateRecord(own.api, 'contacts', 'contact', contact, { custom_fields: { [b]: 'Blue' } });
    expect(merged.record.custom_fields).toEqual({ [a]: 44, [b]: 'Blue' });
    const cleared = await updateRecord(own.api, 'contacts', 'contact', merged, { custom_fields: { [a]: null } });
    expect(cleared.record.custom_fields).toEqual({ [b]: 'Blue' });
    expectProblem(await own.api.patch(`/contacts/${contact.id}`, { contact: { custom_fields: { [a]: 'big' } } }, ifMatch(cleared.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { [`custom_fields.${a}`]: true },
      onlyErrors: true,
    });
  });

  it('never replaces an existing primary contact of a record', async () => {
    const c = await customerTarget(api);
    const site = { type: 'Site' as const, id: (await createSite(api, c)).id };
    const holder = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    await link(api, holder.id, site);
    let other = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    await link(api, other.id, site);
    const linkagesBefore = await t.database.prisma.contactLinkage.findMany({ where: { contact_id: { in: [holder.id, other.id] } }, orderBy: { id: 'asc' } });
    other = await updateRecord(api, 'contacts', 'contact', other, { first_name: 'Changed', title: 'Owner', phone_numbers: [{ number: '1' }] });
    await updateRecord(api, 'contacts', 'contact', holder, { last_name: 'Also changed' });
    expectProblem(await api.patch(`/contacts/${other.id}`, { contact: { linkable_id: c.id, linkable_type: 'Customer' } }, ifMatch(other.etag)), {
      status: 422,
      code: 'validation.failed',
    });
    expect(await primaryOf('Customer', c.id)).toEqual([holder.id]);
    expect(await primaryOf('Site', site.id)).toEqual([holder.id]);
    const linkagesAfter = await t.database.prisma.contactLinkage.findMany({ where: { contact_id: { in: [holder.id, other.id] } }, orderBy: { id: 'asc' } });
    expect(linkagesAfter).toEqual(linkagesBefore);
  });

  it('requires If-Match (428) and a current one (412); 404 for an unknown id', async () => {
    const contact = await createContact(api);
    expectProblem(await api.patch(`/contacts/${contact.id}`, { contact: { title: 'x' } }), { status: 428, code: 'precondition.required' });
    await updateRecord(api, 'contacts', 'contact', contact, { title: 'y' });
    expectProblem(await api.patch(`/contacts/${contact.id}`, { contact: { title: 'z' } }, ifMatch(contact.etag)), { status: 412, code: 'precondition.failed' });
    expectProblem(await api.patch(`/contacts/${randomUUID()}`, { contact: { title: 'z' } }, ifMatch(contact.etag)), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.get('/contacts/nope'), { status: 404, code: 'resource.not_found' });
  });
});

describe('DELETE /contacts/{id}', () => {
  it('answers 409 contact.has_linkages while any linkage exists and keeps the contact', async () => {
    const c = await customerTarget(api);
    const contact = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    const body = expectProblem(await api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag)), { status: 409, code: 'contact.has_linkages' });
    expect(body.detail).toContain('linkage');
    const read = await api.get(`/contacts/${contact.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(contact.etag);
    expect(await linkagesOf(api, contact.id)).toHaveLength(1);
  });

  it('answers 409 for a contact linked only as a non-primary, and 204 once every linkage is removed', async () => {
    const c = await customerTarget(api);
    const d = await customerTarget(api);
    const primary = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    await link(api, primary.id, d);
    const contact = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    const onD = await link(api, contact.id, d);
    expect(onD.primary).toBe(false);
    expectProblem(await api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag)), { status: 409, code: 'contact.has_linkages' });
    for (const linkage of await linkagesOf(api, contact.id)) {
      expect((await api.delete(`/contacts/${contact.id}/linkages/${linkage.id}`)).status).toBe(204);
    }
    const fresh = await api.get(`/contacts/${contact.id}`);
    expect(fresh.headers.get('etag')).toBe(contact.etag);
    const res = await api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag));
    expect(res.status, res.text).toBe(204);
    expect(res.text).toBe('');
    expectProblem(await api.get(`/contacts/${contact.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get('/contacts?limit=100'))).not.toContain(contact.id);
    expectProblem(await api.get(`/contacts/${contact.id}/linkages`), { status: 404, code: 'resource.not_found' });
  });

  it('lets a primary contact go once another contact takes over the primary role', async () => {
    const c = await customerTarget(api);
    const old = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    const successor = await createContact(api);
    await link(api, successor.id, c, { primary: true });
    const [linkage] = await linkagesOf(api, old.id);
    expect((await api.delete(`/contacts/${old.id}/linkages/${linkage.id}`)).status).toBe(204);
    await deleteRecord(api, 'contacts', old.id);
    expect(await primaryOf('Customer', c.id)).toEqual([successor.id]);
  });

  it('deletes an unlinked contact with its phone numbers', async () => {
    const contact = await createContact(api, { phone_numbers: [{ number: '1' }, { number: '2' }] });
    await deleteRecord(api, 'contacts', contact.id);
    expect(await t.database.prisma.contact.findUnique({ where: { id: contact.id } })).toMatchObject({ deleted_at: expect.any(Date) });
  });

  it('checks If-Match (428, 412) before the linkage rule', async () => {
    const c = await customerTarget(api);
    const contact = await createContact(api, { linkable_id: c.id, linkable_type: 'Customer' });
    expectProblem(await api.delete(`/contacts/${contact.id}`), { status: 428, code: 'precondition.required' });
    expectProblem(await api.delete(`/contacts/${contact.id}`, ifMatch('W/"1-0"')), { status: 412, code: 'precondition.failed' });
  });
});

describe('GET /contacts', () => {
  let own: { tenant: Tenant; api: Client };
  const token = unique('c');
  const made: Record<string, Created> = {};
  beforeAll(async () => {
    own = await t.newTenant();
    made.first = await createContact(own.api, { first_name: `First${token}`, last_name: 'Plain' });
    made.last = await createContact(own.api, { first_name: 'Plain', last_name: `Last${token}` });
    made.email = await createContact(own.api, { first_name: 'Plain', last_name: 'Plain', email: `mail${token}@example.test` });
    made.title = await createContact(own.api, { first_name: 'Plain', last_name: 'Plain', title: `Title${token}` });
    made.phone = await createContact(own.api, { first_name: 'Plain', last_name: 'Plain', phone: `555${token}`, contact_method: `method${token}` });
  });

  it('q covers first name, last name, email and title, case-insensitively', async () => {
    for (const key of ['first', 'last', 'email', 'title'] as const) {
      const word = { first: `First${token}`, last: `Last${token}`, email: `mail${token}`, title: `Title${token}` }[key];
      for (const q of [word, word.toUpperCase()]) expect(idsOf(await own.api.get(`/contacts?q=${encodeURIComponent(q)}`)), q).toEqual([made[key].id]);
    }
    expect(idsOf(await own.api.get(`/contacts?q=${encodeURIComponent(`First${token} Plain`)}`))).toEqual([made.first.id]);
    expect(idsOf(await own.api.get(`/contacts?q=${encodeURIComponent(`First${token} Last${token}`)}`))).toEqual([]);
  });

  it('lists newest first by default and sorts by created_at and updated_at', async () => {
    const order = ['first', 'last', 'email', 'title', 'phone'].map((k) => made[k].id);
    expect(idsOf(await own.api.get('/contacts'))).toEqual([...order].reverse());
    expect(idsOf(await own.api.get('/contacts?sort=created_at'))).toEqual(order);
    clock.advance(1000);
    made.first = await updateRecord(own.api, 'contacts', 'contact', made.first, { title: 'touched' });
    expect(idsOf(await own.api.get('/contacts?sort=-updated_at'))[0]).toBe(made.first.id);
    expect(idsOf(await own.api.get('/contacts?sort=updated_at')).at(-1)).toBe(made.first.id);
    for (const sort of ['first_name', 'email', 'created_at,updated_at']) {
      expectProblem(await own.api.get(`/contacts?sort=${sort}`), { status: 400, code: 'sort.invalid' });
    }
  });

  it('filters created_at and updated_at by range and refuses other filters with 400 filter.invalid', async () => {
    const range = await t.newTenant();
    const early = await createContact(range.api);
    clock.advance(60_000);
    const boundary = clock.now().toISOString();
    clock.advance(60_000);
    const late = await createContact(range.api);
    expect(idsOf(await range.api.get(`/contacts?created_at[gte]=${boundary}`))).toEqual([late.id]);
    expect(idsOf(await range.api.get(`/contacts?created_at[lt]=${boundary}`))).toEqual([early.id]);
    clock.advance(60_000);
    const touched = clock.now().toISOString();
    await updateRecord(range.api, 'contacts', 'contact', early, { title: 'x' });
    expect(idsOf(await range.api.get(`/contacts?updated_at[gte]=${touched}`))).toEqual([early.id]);
    expect(idsOf(await range.api.get(`/contacts?updated_at[lte]=${boundary}`))).toEqual([]);
    for (const query of [`customer_id=${randomUUID()}`, `linkable_id=${randomUUID()}`, 'email=a@b.test', 'created_at[eq]=2026-01-01', 'updated_at[gte]=soon']) {
      expectProblem(await range.api.get(`/contacts?${query}`), { status: 400, code: 'filter.invalid' });
    }
  });

  it('serves phone_numbers in lists too', async () => {
    const listed = (await own.api.get('/contacts?limit=100')).body.data.find((c: any) => c.id === made.phone.id);
    expect(listed).toEqual((await own.api.get(`/contacts/${made.phone.id}`)).body.data);
  });
});

describe('tenancy and scopes', () => {
  it("answers 404 to GET, PATCH and DELETE of another tenant's contact and never lists it", async () => {
    const contact = await createContact(api, { first_name: unique('Secret') });
    const theirs = await t.newTenant();
    expectProblem(await theirs.api.get(`/contacts/${contact.id}`), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.api.patch(`/contacts/${contact.id}`, { contact: { title: 'x' } }, ifMatch(contact.etag)), { status: 404, code: 'resource.not_found' });
    expectProblem(await theirs.api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag)), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await theirs.api.get(`/contacts?q=${encodeURIComponent(contact.record.first_name)}`))).toEqual([]);
    expect((await api.get(`/contacts/${contact.id}`)).headers.get('etag')).toBe(contact.etag);
  });

  it('needs contacts:read to read and contacts:write to write', async () => {
    const contact = await createContact(api);
    const reader = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['contacts:read'] })).token);
    expect((await reader.get(`/contacts/${contact.id}`)).status).toBe(200);
    for (const res of [
      await reader.post('/contacts', { contact: {} }),
      await reader.patch(`/contacts/${contact.id}`, { contact: { title: 'x' } }, ifMatch(contact.etag)),
      await reader.delete(`/contacts/${contact.id}`, ifMatch(contact.etag)),
    ]) {
      expect(expectProblem(res, { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('contacts:write');
    }
  });
});

describe('concurrency: deleting a contact while it is being linked', () => {
  it('never lets both a DELETE of a contact and a POST of its linkage succeed, and leaves no linkage on a deleted contact', async () => {
    const rounds = 10;
    const outcomes = new Set<string>();
    for (let round = 0; round < rounds; round += 1) {
      const target = await customerTarget(api);
      const contact = await createContact(api);
      const [deleted, linked] = await Promise.all([
        api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag)),
        api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Customer', primary: true } }),
      ]);
      const pair = `${deleted.status}/${linked.status}`;
      outcomes.add(pair);
      // Either the delete came first (the link then finds no contact) or the link did (the delete is refused).
      expect(['204/404', '409/201'], `${pair}: ${deleted.text} ${linked.text}`).toContain(pair);
      if (linked.status === 404) expectProblem(linked, { status: 404, code: 'resource.not_found' });
      if (deleted.status === 409) {
        expectProblem(deleted, { status: 409, code: 'contact.has_linkages' });
        expect(await primaryOf('Customer', target.id)).toEqual([contact.id]);
      } else {
        expect(await primaryOf('Customer', target.id)).toEqual([]);
      }
    }
    const orphans = await t.database.prisma.contactLinkage.count({ where: { account_id: tenant.accountId, contact: { deleted_at: { not: null } } } });
    expect(orphans, `outcomes: ${[...outcomes].join(', ')}`).toBe(0);
  });
});

describe("a change of the contact's main linkage", () => {
  it('is announced by contact_linkage events only, never contact.updated, and keeps the contact\'s updated_at and ETag', async () => {
    const first = await customerTarget(api);
    const second = await customerTarget(api);
    await createContact(api, { linkable_id: first.id, linkable_type: 'Customer' }); // the primary of `first`
    const contact = await createContact(api);
    const onFirst = await link(api, contact.id, first); // not primary: its oldest linkage is the main one
    const afterFirst = await api.get(`/contacts/${contact.id}`);
    expect(afterFirst.body.data).toMatchObject({ linkable_type: 'Customer', linkable_id: first.id, updated_at: contact.record.updated_at });
    expect(afterFirst.headers.get('etag')).toBe(contact.etag);
    const onSecond = await link(api, contact.id, second); // first link of `second`: primary, so it becomes the main one
    const afterSecond = await api.get(`/contacts/${contact.id}`);
    expect(afterSecond.body.data).toMatchObject({ linkable_id: second.id, updated_at: contact.record.updated_at });
    expect(afterSecond.headers.get('etag')).toBe(contact.etag);

    const topics = async (recordId: string) => (await t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } })).map((e) => e.topic);
    expect(await topics(contact.id)).toEqual(['contact.created']);
    expect(await topics(onFirst.id)).toEqual(['contact_linkage.created']);
    expect(await topics(onSecond.id)).toEqual(['contact_linkage.created']);
    // The ETag from before the linkage changes still updates the contact.
    expect((await api.patch(`/contacts/${contact.id}`, { contact: { title: 'Buyer' } }, ifMatch(contact.etag))).status).toBe(200);
  });
});
