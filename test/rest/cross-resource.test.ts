import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createContact, link, linkagesOf } from '../helpers/factories/contacts.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { deleteRecord, idsOf, ifMatch } from '../helpers/factories/records.ts';
import { createSite, siteFields } from '../helpers/factories/sites.ts';
import { expectProblem } from '../helpers/problem.ts';

// Rules that span sites, contacts, linkages, leads and customers: references to another tenant's records
// (422 naming the field) and path ids of another tenant (404), what deleting a customer, a lead or a site does
// to their sites and linkages (contacts stay), and an events row for every write.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const { tenant: other, api: theirs } = useTenant(t);

const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });
const topicsOf = async (recordId: string) => (await eventsOf(recordId)).map((e) => e.topic);

describe("references to another tenant's records", () => {
  let foreign: { customer: string; lead: string; site: string; contact: string; linkage: string; phone: string };
  beforeAll(async () => {
    const customer = await createCustomer(theirs);
    const lead = await createLead(theirs);
    const site = await createSite(theirs, { type: 'Customer', id: customer.id });
    const contact = await createContact(theirs, { linkable_id: customer.id, linkable_type: 'Customer', mobile: '555' });
    const [linkage] = await linkagesOf(theirs, contact.id);
    foreign = { customer: customer.id, lead: lead.id, site: site.id, contact: contact.id, linkage: linkage.id, phone: contact.record.phone_numbers[0].id };
  });

  it('are 422 validation.failed naming the field, in every body that carries a reference', async () => {
    const mine = await createCustomer(api);
    const contact = await createContact(api);
    const site = await createSite(api, { type: 'Customer', id: mine.id });
    const checks: [Promise<any>, string][] = [
      [api.post('/sites', { site: siteFields({ type: 'Customer', id: foreign.customer }) }), 'siteable_id'],
      [api.post('/sites', { site: siteFields({ type: 'Lead', id: foreign.lead }) }), 'siteable_id'],
      [api.post('/contacts', { contact: { linkable_id: foreign.customer, linkable_type: 'Customer' } }), 'linkable_id'],
      [api.post('/contacts', { contact: { linkable_id: foreign.lead, linkable_type: 'Lead' } }), 'linkable_id'],
      [api.post('/contacts', { contact: { linkable_id: foreign.site, linkable_type: 'Site' } }), 'linkable_id'],
      [api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: foreign.customer, linkable_type: 'Customer' } }), 'linkable_id'],
      [api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: foreign.lead, linkable_type: 'Lead' } }), 'linkable_id'],
      [api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: foreign.site, linkable_type: 'Site' } }), 'linkable_id'],
      [api.patch(`/contacts/${contact.id}`, { contact: { phone_numbers: [{ id: foreign.phone, number: '1' }] } }, ifMatch(contact.etag)), 'phone_numbers.0.id'],
      [api.post('/leads', { lead: { organization: 'Ref', assignee_id: other.userId } }), 'assignee_id'],
      [api.patch(`/sites/${site.id}`, { site: { siteable_id: foreign.customer } }, ifMatch(site.etag)), 'siteable_id'],
    ];
    for (const [request, field] of checks) {
      expectProblem(await request, { status: 422, code: 'validation.failed', errors: { [field]: true }, onlyErrors: true });
    }
    expect(await linkagesOf(api, contact.id)).toEqual([]);
    expect(await linkagesOf(theirs, foreign.contact)).toHaveLength(1);
    expect(idsOf(await theirs.get(`/sites?customer_id=${foreign.customer}`))).toEqual([foreign.site]);
  });

  it('are 422 naming the field for ids that match no record at all', async () => {
    const contact = await createContact(api);
    for (const [request, field] of [
      [api.post('/sites', { site: siteFields({ type: 'Customer', id: randomUUID() }) }), 'siteable_id'],
      [api.post('/contacts', { contact: { linkable_id: randomUUID(), linkable_type: 'Site' } }), 'linkable_id'],
      [api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: randomUUID(), linkable_type: 'Lead' } }), 'linkable_id'],
      [api.post('/sites', { site: siteFields({ type: 'Customer', id: (await createCustomer(api)).id }, { system_option_id: randomUUID() }) }), 'system_option_id'],
    ] as const) {
      expectProblem(await request, { status: 422, code: 'validation.failed', errors: { [field]: true }, onlyErrors: true });
    }
  });

  it('in a path are 404 resource.not_found on every endpoint of sites, contacts, linkages and leads', async () => {
    const etag = 'W/"1-0"';
    const requests = [
      api.get(`/sites/${foreign.site}`),
      api.patch(`/sites/${foreign.site}`, { site: { city: 'x' } }, ifMatch(etag)),
      api.delete(`/sites/${foreign.site}`, ifMatch(etag)),
      api.get(`/contacts/${foreign.contact}`),
      api.patch(`/contacts/${foreign.contact}`, { contact: { title: 'x' } }, ifMatch(etag)),
      api.delete(`/contacts/${foreign.contact}`, ifMatch(etag)),
      api.get(`/contacts/${foreign.contact}/linkages`),
      api.post(`/contacts/${foreign.contact}/linkages`, { linkage: { linkable_id: foreign.customer, linkable_type: 'Customer' } }),
      api.patch(`/contacts/${foreign.contact}/linkages/${foreign.linkage}`, { linkage: { primary: true } }),
      api.delete(`/contacts/${foreign.contact}/linkages/${foreign.linkage}`),
      api.get(`/leads/${foreign.lead}`),
      api.patch(`/leads/${foreign.lead}`, { lead: { source: 'x' } }, ifMatch(etag)),
      api.delete(`/leads/${foreign.lead}`, ifMatch(etag)),
      api.post(`/leads/${foreign.lead}/convert`),
    ];
    for (const res of await Promise.all(requests)) expectProblem(res, { status: 404, code: 'resource.not_found' });
    expect((await theirs.get(`/leads/${foreign.lead}`)).body.data.converted_customer_id).toBeNull();
    expect(await linkagesOf(theirs, foreign.contact)).toHaveLength(1);
  });
});

describe('deleting a customer', () => {
  it('soft-deletes its sites, removes the linkages to it and to its sites, and keeps the contacts', async () => {
    const customer = await createCustomer(api);
    const elsewhere = await createCustomer(api);
    const siteA = await createSite(api, { type: 'Customer', id: customer.id });
    const siteB = await createSite(api, { type: 'Customer', id: customer.id });
    const otherSite = await createSite(api, { type: 'Customer', id: elsewhere.id });
    const primary = await createContact(api, { linkable_id: customer.id, linkable_type: 'Customer' });
    const secondary = await createContact(api, { linkable_id: customer.id, linkable_type: 'Customer' });
    const onSite = await createContact(api, { linkable_id: siteA.id, linkable_type: 'Site' });
    await link(api, secondary.id, { type: 'Site', id: siteB.id });
    const keptLink = await link(api, secondary.id, { type: 'Customer', id: elsewhere.id });
    const keptSiteLink = await link(api, onSite.id, { type: 'Site', id: otherSite.id });
    const doomedLinks = await t.database.prisma.contactLinkage.findMany({ where: { linkable_id: { in: [customer.id, siteA.id, siteB.id] } } });
    expect(doomedLinks).toHaveLength(4);

    await deleteRecord(api, 'customers', customer.id);

    for (const site of [siteA, siteB]) {
      expectProblem(await api.get(`/sites/${site.id}`), { status: 404, code: 'resource.not_found' });
      expect((await t.database.prisma.site.findUnique({ where: { id: site.id } }))?.deleted_at).toBeInstanceOf(Date);
    }
    expect(idsOf(await api.get(`/sites?customer_id=${customer.id}`))).toEqual([]);
    expect(idsOf(await api.get('/sites?limit=100'))).not.toContain(siteA.id);
    expect(idsOf(await api.get(`/sites?q=${encodeURIComponent(siteA.record.site_name)}`))).toEqual([]);
    expect((await api.get(`/sites/${otherSite.id}`)).status).toBe(200);

    expect(await t.database.prisma.contactLinkage.count({ where: { linkable_id: { in: [customer.id, siteA.id, siteB.id] } } })).toBe(0);
    expect(await linkagesOf(api, primary.id)).toEqual([]);
    expect(await linkagesOf(api, secondary.id)).toEqual([keptLink]);
    expect(await linkagesOf(api, onSite.id)).toEqual([keptSiteLink]);

    // The contacts stay, their main linkage follows what is left, and the unlinked one can now be deleted.
    expect((await api.get(`/contacts/${primary.id}`)).body.data).toMatchObject({ linkable_id: null, linkable_type: null });
    expect((await api.get(`/contacts/${secondary.id}`)).body.data).toMatchObject({ linkable_id: elsewhere.id, linkable_type: 'Customer' });
    expect((await api.get(`/contacts/${onSite.id}`)).body.data).toMatchObject({ linkable_id: otherSite.id, linkable_type: 'Site' });
    await deleteRecord(api, 'contacts', primary.id);

    // Nothing can be attached to the deleted customer or its sites any more.
    expectProblem(await api.post('/sites', { site: siteFields({ type: 'Customer', id: customer.id }) }), { status: 422, code: 'validation.failed', errors: { siteable_id: true } });
    expectProblem(await api.post(`/contacts/${secondary.id}/linkages`, { linkage: { linkable_id: siteA.id, linkable_type: 'Site' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_id: true },
    });

    // Events: customer.deleted, site.deleted for each site, contact_linkage.deleted for each removed linkage.
    expect(await topicsOf(customer.id)).toContain('customer.deleted');
    for (const site of [siteA, siteB]) expect((await topicsOf(site.id)).at(-1)).toBe('site.deleted');
    for (const linkage of doomedLinks) expect((await topicsOf(linkage.id)).at(-1)).toBe('contact_linkage.deleted');
  });

  it('is undone by nothing: the same organization can be reused and the old sites stay gone', async () => {
    const customer = await createCustomer(api);
    const site = await createSite(api, { type: 'Customer', id: customer.id });
    await deleteRecord(api, 'customers', customer.id);
    const reborn = await createCustomer(api, { organization: customer.record.organization });
    expect(idsOf(await api.get(`/sites?customer_id=${reborn.id}`))).toEqual([]);
    expectProblem(await api.get(`/sites/${site.id}`), { status: 404, code: 'resource.not_found' });
  });
});

describe('deleting a lead', () => {
  it('soft-deletes its sites and removes the linkages to it and its sites; the contacts stay', async () => {
    const lead = await createLead(api);
    const site = await createSite(api, { type: 'Lead', id: lead.id });
    const onLead = await createContact(api, { linkable_id: lead.id, linkable_type: 'Lead' });
    const onSite = await createContact(api, { linkable_id: site.id, linkable_type: 'Site' });
    const links = [...(await linkagesOf(api, onLead.id)), ...(await linkagesOf(api, onSite.id))];
    await deleteRecord(api, 'leads', lead.id);
    expectProblem(await api.get(`/sites/${site.id}`), { status: 404, code: 'resource.not_found' });
    expect(idsOf(await api.get(`/sites?lead_id=${lead.id}`))).toEqual([]);
    expect(await linkagesOf(api, onLead.id)).toEqual([]);
    expect(await linkagesOf(api, onSite.id)).toEqual([]);
    for (const contact of [onLead, onSite]) expect((await api.get(`/contacts/${contact.id}`)).status).toBe(200);
    expect((await topicsOf(site.id)).at(-1)).toBe('site.deleted');
    for (const linkage of links) expect((await topicsOf(linkage.id)).at(-1)).toBe('contact_linkage.deleted');
    expect((await topicsOf(lead.id)).at(-1)).toBe('lead.deleted');
  });
});

describe('deleting a site', () => {
  it("removes the linkages to it (the primary's included), keeps the contacts and the customer's other links", async () => {
    const customer = await createCustomer(api);
    const site = await createSite(api, { type: 'Customer', id: customer.id });
    const contact = await createContact(api, { linkable_id: site.id, linkable_type: 'Site' });
    const second = await createContact(api, { linkable_id: site.id, linkable_type: 'Site' });
    const customerLink = await link(api, second.id, { type: 'Customer', id: customer.id });
    const [siteLink] = await linkagesOf(api, contact.id);
    expect(siteLink.primary).toBe(true);
    await deleteRecord(api, 'sites', site.id);
    expect(await linkagesOf(api, contact.id)).toEqual([]);
    expect(await linkagesOf(api, second.id)).toEqual([customerLink]);
    expect((await api.get(`/contacts/${contact.id}`)).body.data).toMatchObject({ linkable_id: null });
    expect((await api.get(`/contacts/${second.id}`)).body.data).toMatchObject({ linkable_id: customer.id, linkable_type: 'Customer' });
    expect((await api.get(`/customers/${customer.id}`)).status).toBe(200);
    expect((await topicsOf(siteLink.id)).at(-1)).toBe('contact_linkage.deleted');
  });
});

describe('events', () => {
  it('records site.created/updated/deleted with the record as served, the actor and the request id', async () => {
    const customer = await createCustomer(api);
    const created = await api.post('/sites', { site: siteFields({ type: 'Customer', id: customer.id }) }, { headers: { 'x-request-id': 'site-create-1' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const updated = await api.patch(`/sites/${id}`, { site: { city: 'Evented' } }, { headers: { 'if-match': created.headers.get('etag')!, 'x-request-id': 'site-update-1' } });
    expect(updated.status).toBe(200);
    expect((await api.delete(`/sites/${id}`, { headers: { 'if-match': updated.headers.get('etag')!, 'x-request-id': 'site-delete-1' } })).status).toBe(204);
    const events = await eventsOf(id);
    expect(events.map((e) => [e.topic, e.resource, e.action, e.request_id])).toEqual([
      ['site.created', 'Site', 'created', 'site-create-1'],
      ['site.updated', 'Site', 'updated', 'site-update-1'],
      ['site.deleted', 'Site', 'deleted', 'site-delete-1'],
    ]);
    expect(events[0].payload).toEqual(created.body.data);
    expect(events[1].payload).toEqual(updated.body.data);
    // The update names the fields whose values moved (updated_at, which always moves, left out).
    expect(events.map((e) => e.details)).toEqual([null, { changed_fields: ['city'] }, null]);
    for (const e of events) expect(e).toMatchObject({ account_id: tenant.accountId, actor: { key_id: tenant.keyId, user_id: tenant.userId } });
  });

  it('records contact.created/updated/deleted, with contact_linkage.created for a link made on create', async () => {
    const customer = await createCustomer(api);
    const created = await api.post('/contacts', { contact: { first_name: 'Ev', linkable_id: customer.id, linkable_type: 'Customer' } }, { headers: { 'x-request-id': 'contact-create-1' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const [linkage] = await linkagesOf(api, id);
    const linkEvents = await eventsOf(linkage.id);
    expect(linkEvents.map((e) => [e.topic, e.resource, e.request_id])).toEqual([['contact_linkage.created', 'ContactLinkage', 'contact-create-1']]);
    expect(linkEvents[0].payload).toEqual(linkage);
    const updated = await api.patch(`/contacts/${id}`, { contact: { phone_numbers: [{ number: '1' }] } }, ifMatch(created.headers.get('etag')!));
    expect(updated.status).toBe(200);
    const successor = await createContact(api);
    await link(api, successor.id, { type: 'Customer', id: customer.id }, { primary: true });
    expect((await api.delete(`/contacts/${id}/linkages/${linkage.id}`)).status).toBe(204);
    await deleteRecord(api, 'contacts', id);
    const events = await eventsOf(id);
    expect(events.map((e) => e.topic)).toEqual(['contact.created', 'contact.updated', 'contact.deleted']);
    expect(events[0].payload).toEqual(created.body.data);
    expect(events[1].payload).toEqual(updated.body.data);
    expect(events[0].request_id).toBe('contact-create-1');
  });

  it('records contact_linkage.created, .updated (also for the demoted primary) and .deleted', async () => {
    const customer = await createCustomer(api);
    const a = await createContact(api);
    const b = await createContact(api);
    const aLink = await link(api, a.id, { type: 'Customer', id: customer.id });
    const bLink = await link(api, b.id, { type: 'Customer', id: customer.id });
    const patched = await api.patch(`/contacts/${b.id}/linkages/${bLink.id}`, { linkage: { primary: true } }, { headers: { 'x-request-id': 'promote-1' } });
    expect(patched.status).toBe(200);
    expect((await api.delete(`/contacts/${a.id}/linkages/${aLink.id}`)).status).toBe(204);
    const aEvents = await eventsOf(aLink.id);
    expect(aEvents.map((e) => e.topic)).toEqual(['contact_linkage.created', 'contact_linkage.updated', 'contact_linkage.deleted']);
    expect(aEvents[1]).toMatchObject({ request_id: 'promote-1', payload: { id: aLink.id, primary: false } });
    const bEvents = await eventsOf(bLink.id);
    expect(bEvents.map((e) => e.topic)).toEqual(['contact_linkage.created', 'contact_linkage.updated']);
    expect(bEvents[1].payload).toEqual(patched.body.data);
  });

  it('records lead.created/updated, and on convert customer.created, lead.updated, lead.status_changed, lead.converted, site.updated and contact_linkage.updated', async () => {
    const lead = await createLead(api);
    const updatedLead = await api.patch(`/leads/${lead.id}`, { lead: { source: 'Fair' } }, ifMatch(lead.etag));
    expect(updatedLead.status).toBe(200);
    const site = await createSite(api, { type: 'Lead', id: lead.id });
    const contact = await createContact(api, { linkable_id: lead.id, linkable_type: 'Lead' });
    const [linkage] = await linkagesOf(api, contact.id);
    const res = await api.post(`/leads/${lead.id}/convert`, undefined, { headers: { 'x-request-id': 'convert-1' } });
    expect(res.status, res.text).toBe(201);
    const { customer, lead: converted } = res.body.data;
    expect(converted).toMatchObject({ status: 'Converted', converted_customer_id: customer.id });
    const leadEvents = await eventsOf(lead.id);
    // Every update names the fields whose values moved (wire names; updated_at left out). The conversion is an
    // update that moves the status from New to Converted (so also lead.status_changed, with both statuses), and
    // lead.converted names the customer the lead became.
    expect(leadEvents.map((e) => [e.topic, e.details])).toEqual([
      ['lead.created', null],
      ['lead.updated', { changed_fields: ['source'] }],
      ['lead.updated', { changed_fields: ['converted_at', 'converted_customer_id', 'status'] }],
      ['lead.status_changed', { previous_status: 'New', status: 'Converted' }],
      ['lead.converted', { converted_to: { customer_id: customer.id } }],
    ]);
    for (const e of leadEvents.slice(2)) {
      expect(e.request_id).toBe('convert-1');
      expect(e.payload).toEqual(converted);
    }
    const customerEvents = await eventsOf(customer.id);
    expect(customerEvents.map((e) => [e.topic, e.request_id])).toEqual([['customer.created', 'convert-1']]);
    // The lead's site and linkage move to the customer.
    const siteEvents = await eventsOf(site.id);
    expect(siteEvents.map((e) => [e.topic, e.details])).toEqual([
      ['site.created', null],
      ['site.updated', { changed_fields: ['customer_id', 'lead_id', 'siteable_id', 'siteable_type'] }],
    ]);
    expect(siteEvents[1].request_id).toBe('convert-1');
    expect(siteEvents[1].payload).toEqual((await api.get(`/sites/${site.id}`)).body.data);
    const linkEvents = await eventsOf(linkage.id);
    expect(linkEvents.map((e) => [e.topic, e.details])).toEqual([
      ['contact_linkage.created', null],
      ['contact_linkage.updated', { changed_fields: ['linkable_id', 'linkable_type'] }],
    ]);
    expect(linkEvents[1].request_id).toBe('convert-1');
    expect(linkEvents[1].payload).toEqual((await linkagesOf(api, contact.id))[0]);
  });

  it('appends nothing when a write of these resources fails', async () => {
    const customer = await createCustomer(api);
    const contact = await createContact(api, { linkable_id: customer.id, linkable_type: 'Customer' });
    const [linkage] = await linkagesOf(api, contact.id);
    const lead = await createLead(api);
    await api.post(`/leads/${lead.id}/convert`);
    const count = () => t.database.prisma.event.count({ where: { account_id: tenant.accountId } });
    const before = await count();
    const failures = [
      await api.post('/sites', { site: { site_name: 'x' } }),
      await api.post('/contacts', { contact: { linkable_id: randomUUID(), linkable_type: 'Customer' } }),
      await api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag)),
      await api.delete(`/contacts/${contact.id}/linkages/${linkage.id}`),
      await api.patch(`/contacts/${contact.id}/linkages/${linkage.id}`, { linkage: { primary: false } }),
      await api.post(`/contacts/${contact.id}/linkages`, { linkage: { linkable_id: customer.id, linkable_type: 'Customer' } }),
      await api.post('/leads', { lead: {} }),
      await api.post(`/leads/${lead.id}/convert`),
    ];
    expect(failures.map((r) => r.status)).toEqual([422, 422, 409, 409, 409, 422, 422, 409]);
    expect(await count()).toBe(before);
  });
});

describe('concurrent writes that lock the same rows in opposite orders', () => {
  // DELETE /customers/{id} locks the customer, then its sites; PATCH /sites/{id} locks the site, then (through the
  // primary site address) the customer. Whichever order PostgreSQL meets them in, each request answers as if
  // alone: the delete succeeds, the site edit succeeds first or finds the site gone (404) or changed (412).
  it('a customer delete racing edits of its sites never answers 500, and leaves no live site of a deleted customer', async () => {
    for (let round = 0; round < 8; round += 1) {
      const customer = await createCustomer(api);
      const sites = [await createSite(api, { type: 'Customer', id: customer.id }), await createSite(api, { type: 'Customer', id: customer.id })];
      const current = await api.get(`/customers/${customer.id}`);
      const [deleted, ...edits] = await Promise.all([
        api.delete(`/customers/${customer.id}`, ifMatch(current.headers.get('etag')!)),
        ...sites.map((site, i) => api.patch(`/sites/${site.id}`, { site: { street: `${round}${i} Race Road` } }, ifMatch(site.etag))),
      ]);
      expect(deleted.status, deleted.text).toBe(204);
      for (const edit of edits) expect([200, 404, 412], edit.text).toContain(edit.status);
      const live = await t.database.prisma.site.count({ where: { customer_id: customer.id, deleted_at: null } });
      expect(live).toBe(0);
    }
  });
});
