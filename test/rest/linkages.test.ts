import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createContact, link, linkagesOf } from '../helpers/factories/contacts.ts';
import { createCustomer, customerTarget } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { deleteRecord } from '../helpers/factories/records.ts';
import { createSite } from '../helpers/factories/sites.ts';
import { uuidV7 } from '../helpers/ids.ts';
import { expectProblem } from '../helpers/problem.ts';

// Contact linkages over REST: the four endpoints, the spec's linkage rules 1–5 (first link is primary,
// primary: true moves the primary, PATCH primary: false only on a non-primary linkage, DELETE of the primary's
// linkage refused, our 409 contact.primary_linkage for rule 5), no If-Match, oldest first and unpaginated,
// tenancy, and at most one primary per record under concurrent requests (checked against the database).

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);


/** The database's view of a record's linkages (the oracle for the primary rules). */
async function linkagesOfRecord(type: string, id: string) {
  return t.database.prisma.contactLinkage.findMany({ where: { linkable_type: type, linkable_id: id }, orderBy: [{ created_at: 'asc' }, { id: 'asc' }] });
}
async function primariesOf(type: string, id: string): Promise<string[]> {
  return (await linkagesOfRecord(type, id)).filter((l) => l.is_primary).map((l) => l.contact_id);
}

describe('POST /contacts/{id}/linkages', () => {
  it('links a contact and answers 201 with {data: linkage} and its Location', async () => {
    const target = await customerTarget(api);
    const contact = await createContact(api);
    const res = await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Customer', relationship_type: 'billing' } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(uuidV7),
      contact_id: contact.id,
      linkable_id: target.id,
      linkable_type: 'Customer',
      relationship_type: 'billing',
      primary: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.headers.get('location')).toBe(`/api/v2/contacts/${contact.id}/linkages/${res.body.data.id}`);
    expect(await linkagesOf(api, contact.id)).toEqual([res.body.data]);
    expect((await api.get(`/contacts/${contact.id}`)).body.data).toMatchObject({ linkable_id: target.id, linkable_type: 'Customer' });
  });

  it('links to a Lead and to a Site as well, and defaults relationship_type to associated', async () => {
    const contact = await createContact(api);
    const lead = { type: 'Lead' as const, id: (await createLead(api)).id };
    const site = { type: 'Site' as const, id: (await createSite(api, await customerTarget(api))).id };
    for (const target of [lead, site]) {
      expect(await link(api, contact.id, target)).toMatchObject({ linkable_id: target.id, linkable_type: target.type, relationship_type: 'associated', primary: true });
    }
  });

  it('accepts every relationship_type (associated, billing, technical, decision_maker) and refuses others with 422', async () => {
    const contact = await createContact(api);
    for (const relationship_type of ['associated', 'billing', 'technical', 'decision_maker']) {
      expect((await link(api, contact.id, await customerTarget(api), { relationship_type })).relationship_type).toBe(relationship_type);
    }
    const target = await customerTarget(api);
    for (const relationship_type of ['Billing', 'owner', '', null, 3]) {
      expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Customer', relationship_type } }), {
        status: 422,
        code: 'validation.failed',
        errors: { relationship_type: true },
        onlyErrors: true,
      });
    }
  });

  it('requires linkable_id and linkable_type and validates primary, naming each field', async () => {
    const contact = await createContact(api);
    const target = await customerTarget(api);
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['linkable_id', 'linkable_type']],
      [{ linkable_id: target.id }, ['linkable_type']],
      [{ linkable_type: 'Customer' }, ['linkable_id']],
      [{ linkable_id: target.id, linkable_type: 'Job' }, ['linkable_type']],
      [{ linkable_id: target.id, linkable_type: 'customer' }, ['linkable_type']],
      [{ linkable_id: 'abc', linkable_type: 'Customer' }, ['linkable_id']],
      [{ linkable_id: target.id, linkable_type: 'Customer', primary: 'yes' }, ['primary']],
      [{ linkable_id: target.id, linkable_type: 'Customer', contact_id: contact.id }, ['contact_id']],
    ];
    for (const [linkage, fields] of cases) {
      expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage }), {
        status: 422,
        code: 'validation.failed',
        errors: Object.fromEntries(fields.map((f) => [f, true])),
        onlyErrors: true,
      });
    }
    expect(await linkagesOf(api, contact.id)).toEqual([]);
  });

  it('applies the body-shape rule to the linkage key (the fields may also be the body itself: hostile-input.test.ts)', async () => {
    const contact = await createContact(api);
    const notAnObject = await api.request('POST', `/contacts/${contact.id}/linkages`, { raw: '[]', headers: { 'content-type': 'application/json' } });
    expectProblem(notAnObject, { status: 422, code: 'validation.failed', errors: { linkage: ['is missing'] }, onlyErrors: true });
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: 'Customer' }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkage: ['must be an object'] },
      onlyErrors: true,
    });
  });

  it('refuses a linkable_id that matches no live record of that type with 422 naming linkable_id', async () => {
    const other = await t.newTenant();
    const theirCustomer = await createCustomer(other.api);
    const theirSite = await createSite(other.api, { type: 'Customer', id: theirCustomer.id });
    const theirLead = await createLead(other.api);
    const mine = await createCustomer(api);
    const deletedSite = await createSite(api, { type: 'Customer', id: mine.id });
    await deleteRecord(api, 'sites', deletedSite.id);
    const contact = await createContact(api);
    for (const [linkable_type, linkable_id] of [
      ['Customer', randomUUID()],
      ['Customer', theirCustomer.id],
      ['Site', theirSite.id],
      ['Lead', theirLead.id],
      ['Site', deletedSite.id],
      ['Lead', mine.id],
      ['Site', mine.id],
    ]) {
      expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id, linkable_type } }), {
        status: 422,
        code: 'validation.failed',
        errors: { linkable_id: true },
        onlyErrors: true,
      });
    }
    expect(await linkagesOf(api, contact.id)).toEqual([]);
  });

  it('refuses linking the same contact to the same record twice with 422 naming linkable_id', async () => {
    const target = await customerTarget(api);
    const contact = await createContact(api, { linkable_id: target.id, linkable_type: 'Customer' });
    for (const primary of [undefined, true, false]) {
      expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Customer', primary } }), {
        status: 422,
        code: 'validation.failed',
        errors: { linkable_id: true },
        onlyErrors: true,
      });
    }
    expect(await linkagesOf(api, contact.id)).toHaveLength(1);
  });
});

describe('linkage rules', () => {
  it('rule 1: the first contact linked to a record becomes its primary, even with primary: false', async () => {
    for (const primary of [false, undefined, true]) {
      const target = await customerTarget(api);
      const contact = await createContact(api);
      expect((await link(api, contact.id, target, primary === undefined ? {} : { primary })).primary).toBe(true);
      expect(await primariesOf('Customer', target.id)).toEqual([contact.id]);
    }
  });

  it('rule 1 holds per record: being primary elsewhere does not matter', async () => {
    const a = await customerTarget(api);
    const b = await customerTarget(api);
    const first = await createContact(api);
    await link(api, first.id, a);
    const second = await createContact(api);
    await link(api, second.id, a);
    expect((await link(api, second.id, b, { primary: false })).primary).toBe(true);
    expect(await primariesOf('Customer', a.id)).toEqual([first.id]);
    expect(await primariesOf('Customer', b.id)).toEqual([second.id]);
  });

  it('rule 2: later links are not primary unless primary is true', async () => {
    const target = await customerTarget(api);
    const first = await createContact(api);
    await link(api, first.id, target);
    for (const extra of [{}, { primary: false }]) {
      const later = await createContact(api);
      expect((await link(api, later.id, target, extra)).primary).toBe(false);
    }
    expect(await primariesOf('Customer', target.id)).toEqual([first.id]);
  });

  it('rule 2: primary: true moves the primary to the new link and demotes the previous one', async () => {
    const target = await customerTarget(api);
    const first = await createContact(api);
    const firstLink = await link(api, first.id, target);
    const second = await createContact(api);
    const secondLink = await link(api, second.id, target, { primary: true, relationship_type: 'decision_maker' });
    expect(secondLink.primary).toBe(true);
    expect(await primariesOf('Customer', target.id)).toEqual([second.id]);
    const [demoted] = await linkagesOf(api, first.id);
    expect(demoted).toMatchObject({ id: firstLink.id, primary: false, relationship_type: 'associated' });
    expect(new Date(demoted.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(firstLink.updated_at).getTime());
    expect(await linkagesOfRecord('Customer', target.id)).toHaveLength(2);
  });

  it('rule 3: PATCH primary: true makes the linkage primary and demotes the previous primary', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const b = await createContact(api);
    await link(api, a.id, target);
    const bLink = await link(api, b.id, target);
    const res = await api.patch(`/contacts/${b.id}/linkages/${bLink.id}`, { linkage: { primary: true } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: bLink.id, primary: true, contact_id: b.id, linkable_id: target.id });
    expect(await primariesOf('Customer', target.id)).toEqual([b.id]);
    expect((await linkagesOf(api, a.id))[0].primary).toBe(false);
    const again = await api.patch(`/contacts/${b.id}/linkages/${bLink.id}`, { linkage: { primary: true } });
    expect(again.status, again.text).toBe(200);
    expect(await primariesOf('Customer', target.id)).toEqual([b.id]);
  });

  it('rule 3: PATCH primary: false is accepted on a non-primary linkage, and relationship_type changes alone', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const b = await createContact(api);
    await link(api, a.id, target);
    const bLink = await link(api, b.id, target);
    const res = await api.patch(`/contacts/${b.id}/linkages/${bLink.id}`, { linkage: { primary: false, relationship_type: 'technical' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ id: bLink.id, primary: false, relationship_type: 'technical' });
    const relationOnly = await api.patch(`/contacts/${a.id}/linkages/${(await linkagesOf(api, a.id))[0].id}`, { linkage: { relationship_type: 'billing' } });
    expect(relationOnly.status, relationOnly.text).toBe(200);
    expect(relationOnly.body.data).toMatchObject({ primary: true, relationship_type: 'billing' });
    expect(await linkagesOf(api, b.id)).toEqual([res.body.data]);
    expect(await primariesOf('Customer', target.id)).toEqual([a.id]);
  });

  it('rule 3/5: PATCH primary: false on the primary linkage answers 409 contact.primary_linkage and changes nothing', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const aLink = await link(api, a.id, target);
    for (const body of [{ primary: false }, { primary: false, relationship_type: 'billing' }]) {
      const problem = expectProblem(await api.patch(`/contacts/${a.id}/linkages/${aLink.id}`, { linkage: body }), { status: 409, code: 'contact.primary_linkage' });
      expect(problem.detail).toMatch(/primary/);
    }
    expect(await linkagesOf(api, a.id)).toEqual([aLink]);
    expect(await primariesOf('Customer', target.id)).toEqual([a.id]);
  });

  it('PATCH refuses linkable_id, linkable_type, unknown fields and bad values with 422 naming each', async () => {
    const target = await customerTarget(api);
    const other = await customerTarget(api);
    const contact = await createContact(api);
    const linkage = await link(api, contact.id, target);
    const cases: [Record<string, unknown>, string][] = [
      [{ linkable_id: other.id }, 'linkable_id'],
      [{ linkable_type: 'Lead' }, 'linkable_type'],
      [{ contact_id: randomUUID() }, 'contact_id'],
      [{ relationship_type: 'boss' }, 'relationship_type'],
      [{ primary: 'true' }, 'primary'],
      [{ primary: null }, 'primary'],
    ];
    for (const [body, field] of cases) {
      // Under the key "linkage" and at the top level of the body alike.
      for (const sent of [{ linkage: body }, body]) {
        expectProblem(await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, sent), {
          status: 422,
          code: 'validation.failed',
          errors: { [field]: true },
          onlyErrors: true,
        });
      }
    }
    const notAnObject = await api.request('PATCH', `/contacts/${contact.id}/linkages/${linkage.id}`, { raw: '"primary"', headers: { 'content-type': 'application/json' } });
    expectProblem(notAnObject, { status: 422, code: 'validation.failed', errors: { linkage: ['is missing'] } });
    expect(await linkagesOf(api, contact.id)).toEqual([linkage]);
  });

  it('rule 4: DELETE of the primary contact\'s linkage answers 409 contact.primary_linkage; other linkages go with 204', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const b = await createContact(api);
    const aLink = await link(api, a.id, target);
    const bLink = await link(api, b.id, target);
    expectProblem(await api.delete(`/contacts/${a.id}/linkages/${aLink.id}`), { status: 409, code: 'contact.primary_linkage' });
    expect(await linkagesOf(api, a.id)).toEqual([aLink]);
    const res = await api.delete(`/contacts/${b.id}/linkages/${bLink.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await linkagesOf(api, b.id)).toEqual([]);
    expect((await api.get(`/contacts/${b.id}`)).status).toBe(200);
    expectProblem(await api.delete(`/contacts/${b.id}/linkages/${bLink.id}`), { status: 404, code: 'resource.not_found' });
    // The sole contact of a record is its primary too.
    expectProblem(await api.delete(`/contacts/${a.id}/linkages/${aLink.id}`), { status: 409, code: 'contact.primary_linkage' });
  });

  it('rule 4: a contact moves by linking it to the new record first, then unlinking the old one', async () => {
    const oldRecord = await customerTarget(api);
    const newRecord = await customerTarget(api);
    const holder = await createContact(api);
    await link(api, holder.id, oldRecord);
    const mover = await createContact(api);
    const oldLink = await link(api, mover.id, oldRecord);
    await link(api, mover.id, newRecord);
    expect((await api.delete(`/contacts/${mover.id}/linkages/${oldLink.id}`)).status).toBe(204);
    expect((await linkagesOf(api, mover.id)).map((l) => l.linkable_id)).toEqual([newRecord.id]);
    expect((await api.get(`/contacts/${mover.id}`)).body.data).toMatchObject({ linkable_id: newRecord.id, linkable_type: 'Customer' });
  });

  it('rule 4: after the primary moves to another contact, the former primary can be unlinked', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const b = await createContact(api);
    const aLink = await link(api, a.id, target);
    const bLink = await link(api, b.id, target);
    expect((await api.patch(`/contacts/${b.id}/linkages/${bLink.id}`, { linkage: { primary: true } })).status).toBe(200);
    expect((await api.delete(`/contacts/${a.id}/linkages/${aLink.id}`)).status).toBe(204);
    expect(await primariesOf('Customer', target.id)).toEqual([b.id]);
  });

  it('keeps at most one primary per record in the database itself (partial unique index)', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const b = await createContact(api);
    await link(api, a.id, target);
    const now = new Date();
    await expect(
      t.database.prisma.contactLinkage.create({
        data: { id: randomUUID(), account_id: tenant.accountId, contact_id: b.id, linkable_type: 'Customer', linkable_id: target.id, is_primary: true, created_at: now, updated_at: now },
      }),
    ).rejects.toThrow(/unique|P2002|23505|contact_linkages_one_primary/i);
    expect(await primariesOf('Customer', target.id)).toEqual([a.id]);
    // The same row as a non-primary is accepted: only the second primary was refused.
    await t.database.prisma.contactLinkage.create({
      data: { id: randomUUID(), account_id: tenant.accountId, contact_id: b.id, linkable_type: 'Customer', linkable_id: target.id, is_primary: false, created_at: now, updated_at: now },
    });
    expect(await linkagesOfRecord('Customer', target.id)).toHaveLength(2);
  });
});

describe('GET /contacts/{id}/linkages', () => {
  it('lists every linkage oldest first, unpaginated (more than a page of 25), with has_more false', async () => {
    const contact = await createContact(api);
    const made: string[] = [];
    for (let i = 0; i < 27; i++) made.push((await link(api, contact.id, await customerTarget(api))).id);
    const res = await api.get(`/contacts/${contact.id}/linkages`);
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(res.body.data.map((l: { id: string }) => l.id)).toEqual(made);
    expect(res.headers.get('link')).toBeNull();
    const stamps = res.body.data.map((l: { created_at: string }) => new Date(l.created_at).getTime());
    expect([...stamps].sort((x, y) => x - y)).toEqual(stamps);
  });

  it('answers [] for a contact without linkages', async () => {
    const contact = await createContact(api);
    expect(await linkagesOf(api, contact.id)).toEqual([]);
  });
});

describe('no If-Match on linkage endpoints', () => {
  it('PATCH and DELETE succeed without If-Match, and an If-Match header is ignored', async () => {
    const target = await customerTarget(api);
    const a = await createContact(api);
    const b = await createContact(api);
    await link(api, a.id, target);
    const bLink = await link(api, b.id, target);
    const patched = await api.patch(`/contacts/${b.id}/linkages/${bLink.id}`, { linkage: { relationship_type: 'billing' } }, { headers: { 'if-match': 'W/"1-0"' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.headers.get('etag')).toBeNull();
    const deleted = await api.delete(`/contacts/${b.id}/linkages/${bLink.id}`);
    expect(deleted.status, deleted.text).toBe(204);
  });
});

describe('not found', () => {
  it("answers 404 resource.not_found for another tenant's contact on all four endpoints", async () => {
    const theirs = await t.newTenant();
    const theirCustomer = await createCustomer(theirs.api);
    const theirContact = await createContact(theirs.api, { linkable_id: theirCustomer.id, linkable_type: 'Customer' });
    const [theirLink] = await linkagesOf(theirs.api, theirContact.id);
    const mine = await customerTarget(api);
    expectProblem(await api.get(`/contacts/${theirContact.id}/linkages`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.post(`/contacts/${theirContact.id}/linkages`, { linkage: { linkable_id: mine.id, linkable_type: 'Customer' } }), {
      status: 404,
      code: 'resource.not_found',
    });
    expectProblem(await api.patch(`/contacts/${theirContact.id}/linkages/${theirLink.id}`, { linkage: { relationship_type: 'billing' } }), {
      status: 404,
      code: 'resource.not_found',
    });
    expectProblem(await api.delete(`/contacts/${theirContact.id}/linkages/${theirLink.id}`), { status: 404, code: 'resource.not_found' });
    expect(await linkagesOf(theirs.api, theirContact.id)).toEqual([theirLink]);
  });

  it("answers 404 for another tenant's linkage id, another contact's linkage and unknown ids", async () => {
    const theirs = await t.newTenant();
    const theirCustomer = await createCustomer(theirs.api);
    const theirContact = await createContact(theirs.api, { linkable_id: theirCustomer.id, linkable_type: 'Customer' });
    const [theirLink] = await linkagesOf(theirs.api, theirContact.id);
    const target = await customerTarget(api);
    const mine = await createContact(api);
    const holder = await createContact(api);
    await link(api, holder.id, target);
    const neighbour = await createContact(api);
    const neighbourLink = await link(api, neighbour.id, target);
    for (const linkageId of [theirLink.id, neighbourLink.id, randomUUID(), 'not-a-uuid']) {
      expectProblem(await api.patch(`/contacts/${mine.id}/linkages/${linkageId}`, { linkage: { primary: true } }), { status: 404, code: 'resource.not_found' });
      expectProblem(await api.delete(`/contacts/${mine.id}/linkages/${linkageId}`), { status: 404, code: 'resource.not_found' });
    }
    expect(await linkagesOf(api, neighbour.id)).toEqual([neighbourLink]);
    expect(await primariesOf('Customer', target.id)).toEqual([holder.id]);
    for (const contactId of [randomUUID(), 'nope']) {
      expectProblem(await api.get(`/contacts/${contactId}/linkages`), { status: 404, code: 'resource.not_found' });
      expectProblem(await api.post(`/contacts/${contactId}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Customer' } }), {
        status: 404,
        code: 'resource.not_found',
      });
    }
  });

  it('answers 404 for a deleted contact', async () => {
    const contact = await createContact(api);
    await deleteRecord(api, 'contacts', contact.id);
    expectProblem(await api.get(`/contacts/${contact.id}/linkages`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: (await customerTarget(api)).id, linkable_type: 'Customer' } }), {
      status: 404,
      code: 'resource.not_found',
    });
  });
});

describe('scopes', () => {
  it('GET needs contacts:read; POST, PATCH and DELETE need contacts:write', async () => {
    const target = await customerTarget(api);
    const contact = await createContact(api);
    const linkage = await link(api, contact.id, target);
    const reader = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['contacts:read', 'customers:write'] })).token);
    const stranger = t.client((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:write'] })).token);
    expect((await reader.get(`/contacts/${contact.id}/linkages`)).status).toBe(200);
    expect(expectProblem(await stranger.get(`/contacts/${contact.id}/linkages`), { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('contacts:read');
    for (const res of [
      await reader.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: (await customerTarget(api)).id, linkable_type: 'Customer' } }),
      await reader.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, { linkage: { relationship_type: 'billing' } }),
      await reader.delete(`/contacts/${contact.id}/linkages/${linkage.id}`),
    ]) {
      expect(expectProblem(res, { status: 403, code: 'auth.scope_missing' }).required_scope).toBe('contacts:write');
    }
    expect(await linkagesOf(api, contact.id)).toEqual([linkage]);
  });
});

describe('concurrency: one primary per record', () => {
  it('20 concurrent "link as primary" requests for one record leave exactly one primary and all 20 linkages', async () => {
    const target = await customerTarget(api);
    const contacts = await Promise.all(Array.from({ length: 20 }, () => createContact(api)));
    const results = await Promise.all(
      contacts.map((c) => api.post(`/contacts/${c.id}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Customer', primary: true } })),
    );
    for (const res of results) expect(res.status, res.text).toBe(201);
    const rows = await linkagesOfRecord('Customer', target.id);
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((r) => r.contact_id))).toEqual(new Set(contacts.map((c) => c.id)));
    const primaries = rows.filter((r) => r.is_primary);
    expect(primaries).toHaveLength(1);
    // Each contact shows the record as its main linkage, and the API agrees with the database.
    for (const c of contacts) {
      const [only] = await linkagesOf(api, c.id);
      expect(only.primary).toBe(c.id === primaries[0].contact_id);
    }
  });

  it('20 concurrent PATCH primary: true on existing linkages of one record leave exactly one primary and all 20 linkages', async () => {
    const target = await customerTarget(api);
    const contacts = await Promise.all(Array.from({ length: 20 }, () => createContact(api)));
    const links: Record<string, any>[] = [];
    for (const c of contacts) links.push(await link(api, c.id, target));
    expect(await primariesOf('Customer', target.id)).toEqual([contacts[0].id]);
    const results = await Promise.all(links.map((l) => api.patch(`/contacts/${l.contact_id}/linkages/${l.id}`, { linkage: { primary: true } })));
    for (const res of results) expect(res.status, res.text).toBe(200);
    const rows = await linkagesOfRecord('Customer', target.id);
    expect(rows.map((r) => r.id).sort()).toEqual(links.map((l) => l.id).sort());
    expect(rows.filter((r) => r.is_primary)).toHaveLength(1);
  });

  it('concurrent first links of several contacts to a fresh record still make exactly one primary', async () => {
    const target = { type: 'Site' as const, id: (await createSite(api, await customerTarget(api))).id };
    const contacts = await Promise.all(Array.from({ length: 10 }, () => createContact(api)));
    const results = await Promise.all(contacts.map((c) => api.post(`/contacts/${c.id}/linkages`, { linkage: { linkable_id: target.id, linkable_type: 'Site' } })));
    for (const res of results) expect(res.status, res.text).toBe(201);
    expect(results.filter((r) => r.body.data.primary)).toHaveLength(1);
    expect(await linkagesOfRecord('Site', target.id)).toHaveLength(10);
    expect(await primariesOf('Site', target.id)).toHaveLength(1);
  });
});

describe('order of checks on linkage endpoints', () => {
  it('answers 404 for an unknown linkage or contact before validating the body (422)', async () => {
    const target = await customerTarget(api);
    const contact = await createContact(api);
    const gone = await createContact(api);
    await deleteRecord(api, 'contacts', gone.id);
    const invalid = { linkage: { primary: 'yes', linkable_id: 'x', colour: 'red' } };
    for (const body of [invalid, {}, { linkage: 'x' }]) {
      expectProblem(await api.patch(`/contacts/${contact.id}/linkages/${randomUUID()}`, body), { status: 404, code: 'resource.not_found' });
      expectProblem(await api.patch(`/contacts/${randomUUID()}/linkages/${randomUUID()}`, body), { status: 404, code: 'resource.not_found' });
      expectProblem(await api.post(`/contacts/${randomUUID()}/linkages`, body), { status: 404, code: 'resource.not_found' });
      expectProblem(await api.post(`/contacts/${gone.id}/linkages`, body), { status: 404, code: 'resource.not_found' });
    }
    // An existing linkage with the same invalid body: now the body is what is wrong.
    const linkage = await link(api, contact.id, target);
    expectProblem(await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, invalid), { status: 422, code: 'validation.failed' });
    expect(await linkagesOf(api, contact.id)).toEqual([linkage]);
  });
});
