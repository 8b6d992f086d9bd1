import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { setModules, userClient } from '../helpers/factories/accounts.ts';
import { createContact, link } from '../helpers/factories/contacts.ts';
import { createRecord, deleteRecord, idsOf, ifMatch, readRecord, unique, updateRecord, weakEtag, type Created } from '../helpers/factories/records.ts';
import { createPlace, createSite, type Place } from '../helpers/factories/sites.ts';
import { expectProblem } from '../helpers/problem.ts';

// Tickets over REST: a customer's service request with its site and contact (both the customer's), priority and
// channel vocabularies, the number, status, labels and custom field conventions, lists (filters, sorts, q), soft
// delete and events; POST /tickets/{id}/convert: a job made from the ticket, linked both ways, the ticket moved
// to Resolved, refused once converted (ticket.already_converted) or Closed (ticket.closed), a site required by the
// job's rules, 10 concurrent conversions giving one job. Also the labels that sites, contacts and systems gained,
// and the purchase orders' q over the vendor's name.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const eventsOf = (recordId: string) => t.database.prisma.event.findMany({ where: { record_id: recordId }, orderBy: { seq: 'asc' } });

let place: Place;
let contact: Created;
beforeAll(async () => {
  place = await createPlace(api);
  contact = await createContact(api);
  await link(api, contact.id, { type: 'Customer', id: place.customer.id });
  await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Ticket', name: 'Warranty' });
  for (const relatedName of ['Site', 'Contact', 'System']) await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName, name: 'Key account' });
});

function ticket(fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'tickets', 'ticket', { subject: unique('No heat '), customer_id: place.customer.id, site_id: place.site.id, ...fields });
}

describe('tickets: the five endpoints', () => {
  it('creates a ticket with every field, numbered, New, and answers 201 with Location, ETag and {data}', async () => {
    const definition = await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Ticket', name: 'Callback window', type: 'text' });
    const res = await api.post('/tickets', {
      ticket: {
        subject: 'Furnace makes a banging noise',
        description: 'Started after the filter change; loudest at start-up.',
        customer_id: place.customer.id,
        site_id: place.site.id,
        contact_id: contact.id,
        priority: 'high',
        channel: 'phone',
        assignee_id: tenant.userId,
        labels: ['Warranty'],
        custom_fields: { [definition.id]: 'after 3pm' },
      },
    });
    expect(res.status, res.text).toBe(201);
    const data = res.body.data;
    expect(data).toMatchObject({
      subject: 'Furnace makes a banging noise',
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      priority: 'high',
      channel: 'phone',
      assignee_id: tenant.userId,
      status: 'New',
      labels: ['Warranty'],
      custom_fields: { [definition.id]: 'after 3pm' },
      converted_job_id: null,
      converted_at: null,
    });
    expect(data.number).toMatch(/^\d+$/);
    expect(res.headers.get('location')).toBe(`/api/v2/tickets/${data.id}`);
    expect(res.headers.get('etag')).toMatch(weakEtag);
    expect((await api.get(`/tickets/${data.id}`)).body).toEqual({ data });
    expect((await eventsOf(data.id)).map((e) => e.topic)).toEqual(['ticket.created']);
  });

  it('creates from a subject and a customer alone: priority normal, channel, site, contact and assignee null', async () => {
    const created = await createRecord(api, 'tickets', 'ticket', { subject: 'Leaking tap', customer_id: place.customer.id });
    expect(created.record).toMatchObject({ priority: 'normal', channel: null, site_id: null, contact_id: null, assignee_id: null, description: null, labels: [], custom_fields: {} });
  });

  it('requires the subject and the customer, and refuses an unknown priority, channel or label, naming each', async () => {
    expectProblem(await api.post('/tickets', { ticket: {} }), { status: 422, code: 'validation.failed', errors: { subject: true, customer_id: true }, onlyErrors: true });
    expectProblem(await api.post('/tickets', { ticket: { subject: '  ', customer_id: place.customer.id } }), { status: 422, code: 'validation.failed', errors: { subject: true }, onlyErrors: true });
    expectProblem(await api.post('/tickets', { ticket: { subject: 'x', customer_id: place.customer.id, priority: 'critical', channel: 'fax', labels: ['Nope'] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { priority: true, channel: true, labels: true },
      onlyErrors: true,
    });
    expectProblem(await api.post('/tickets', { ticket: { subject: 'x', customer_id: place.customer.id, priority: null } }), { status: 422, code: 'validation.failed', errors: { priority: true }, onlyErrors: true });
  });

  it("refuses another tenant's customer, a site of another customer and a contact not linked to the customer or its sites; a contact of one of its sites is the customer's", async () => {
    const theirs = await t.newTenant();
    const foreign = await createPlace(theirs.api);
    expectProblem(await api.post('/tickets', { ticket: { subject: 'x', customer_id: foreign.customer.id } }), { status: 422, code: 'validation.failed', errors: { customer_id: true }, onlyErrors: true });
    const other = await createPlace(api);
    const stranger = await createContact(api);
    const res = expectProblem(await api.post('/tickets', { ticket: { subject: 'x', customer_id: place.customer.id, site_id: other.site.id, contact_id: stranger.id } }), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: true, contact_id: true },
      onlyErrors: true,
    });
    expect(res.errors.site_id[0]).toContain('does not belong to customer_id');
    const onSite = await createContact(api);
    await link(api, onSite.id, { type: 'Site', id: place.site.id });
    expect((await ticket({ contact_id: onSite.id })).record.contact_id).toBe(onSite.id);
    // Moving the ticket to another customer without its site is refused the same way.
    const created = await ticket();
    expectProblem(await api.patch(`/tickets/${created.id}`, { ticket: { customer_id: other.customer.id } }, ifMatch(created.etag)), {
      status: 422,
      code: 'validation.failed',
      errors: { site_id: true },
      onlyErrors: true,
    });
    const moved = await updateRecord(api, 'tickets', 'ticket', created, { customer_id: other.customer.id, site_id: other.site.id });
    expect(moved.record).toMatchObject({ customer_id: other.customer.id, site_id: other.site.id });
  });

  it('updates with If-Match: status moves between the tenant statuses (ticket.status_changed), an unknown one is status.transition_invalid, the number and converted_job_id are not writable', async () => {
    const created = await ticket();
    expectProblem(await api.patch(`/tickets/${created.id}`, { ticket: { status: 'Open' } }, ifMatch('W/"1-1"')), { status: 412, code: 'precondition.failed' });
    const open = await updateRecord(api, 'tickets', 'ticket', created, { status: 'Open', priority: 'urgent' });
    expect(open.record).toMatchObject({ status: 'Open', priority: 'urgent' });
    expect((await eventsOf(created.id)).map((e) => e.topic)).toEqual(['ticket.created', 'ticket.updated', 'ticket.status_changed']);
    expectProblem(await api.patch(`/tickets/${created.id}`, { ticket: { status: 'Escalated' } }, ifMatch(open.etag)), { status: 422, code: 'status.transition_invalid' });
    expectProblem(await api.patch(`/tickets/${created.id}`, { ticket: { number: '999999' } }, ifMatch(open.etag)), { status: 422, code: 'number.immutable' });
    expectProblem(await api.patch(`/tickets/${created.id}`, { ticket: { converted_job_id: randomUUID() } }, ifMatch(open.etag)), { status: 422, code: 'validation.failed', errors: { converted_job_id: true } });
    await deleteRecord(api, 'tickets', created.id);
    expectProblem(await api.get(`/tickets/${created.id}`), { status: 404, code: 'resource.not_found' });
    expect((await eventsOf(created.id)).map((e) => e.topic).at(-1)).toBe('ticket.deleted');
  });
});

describe('tickets: lists', () => {
  it('filters by status, customer, site, assignee, priority, channel and created_at; sorts; q searches subject, description and number', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const q = await createPlace(oapi);
    const word = unique('zebra').toLowerCase();
    const make = (fields: Record<string, unknown>) => createRecord(oapi, 'tickets', 'ticket', { subject: 'Boiler', customer_id: p.customer.id, ...fields });
    const a = await make({ priority: 'urgent', channel: 'email', site_id: p.site.id, subject: `Boiler ${word}` });
    const b = await make({ assignee_id: own.userId, channel: 'portal', description: `the ${word} pump` });
    const c = await createRecord(oapi, 'tickets', 'ticket', { subject: 'Thermostat', customer_id: q.customer.id, channel: 'phone' });
    const open = await updateRecord(oapi, 'tickets', 'ticket', c, { status: 'Open' });
    expect(idsOf(await oapi.get('/tickets'))).toEqual([c.id, b.id, a.id]);
    expect(idsOf(await oapi.get('/tickets?sort=created_at'))).toEqual([a.id, b.id, c.id]);
    expect(idsOf(await oapi.get('/tickets?sort=-number'))).toEqual([c.id, b.id, a.id]);
    expect(idsOf(await oapi.get('/tickets?status=Open'))).toEqual([open.id]);
    expect(idsOf(await oapi.get('/tickets?status[in]=New,Open&sort=created_at'))).toEqual([a.id, b.id, c.id]);
    expect(idsOf(await oapi.get(`/tickets?customer_id=${p.customer.id}&sort=created_at`))).toEqual([a.id, b.id]);
    expect(idsOf(await oapi.get(`/tickets?site_id=${p.site.id}`))).toEqual([a.id]);
    expect(idsOf(await oapi.get(`/tickets?assignee_id=${own.userId}`))).toEqual([b.id]);
    expect(idsOf(await oapi.get('/tickets?priority=urgent'))).toEqual([a.id]);
    expect(idsOf(await oapi.get('/tickets?priority[in]=normal,low&sort=created_at'))).toEqual([b.id, c.id]);
    expect(idsOf(await oapi.get('/tickets?channel[in]=email,phone&sort=created_at'))).toEqual([a.id, c.id]);
    expect(idsOf(await oapi.get(`/tickets?created_at[gte]=${encodeURIComponent(b.record.created_at)}&sort=created_at`))).toEqual([b.id, c.id]);
    expect(idsOf(await oapi.get(`/tickets?q=${word}&sort=created_at`))).toEqual([a.id, b.id]);
    expect(idsOf(await oapi.get(`/tickets?q=${c.record.number}`))).toContain(c.id);
    expectProblem(await oapi.get('/tickets?sort=subject'), { status: 400, code: 'sort.invalid' });
  });
});

describe('tickets: convert', () => {
  it("makes a job of the ticket (customer, site, contact, title, scope of work, priority), links both ways, moves the ticket to Resolved and announces ticket.converted", async () => {
    const created = await ticket({ contact_id: contact.id, description: 'Pilot light keeps going out', priority: 'urgent', channel: 'phone' });
    const res = await api.post(`/tickets/${created.id}/convert`, undefined, { headers: { 'x-request-id': 'ticket-convert-1' } });
    expect(res.status, res.text).toBe(201);
    const { ticket: converted, job } = res.body.data;
    expect(job).toMatchObject({
      customer_id: place.customer.id,
      site_id: place.site.id,
      contact_id: contact.id,
      title: created.record.subject,
      scope_of_work: 'Pilot light keeps going out',
      priority: 'Urgent',
      ticket_id: created.id,
      estimate_id: null,
      status: 'Pending',
    });
    expect(converted).toMatchObject({ converted_job_id: job.id, converted_at: expect.any(String), status: 'Resolved' });
    expect(res.headers.get('location')).toBe(`/api/v2/jobs/${job.id}`);
    expect((await readRecord(api, 'tickets', created.id)).record).toEqual(converted);
    expect((await readRecord(api, 'jobs', job.id)).record).toEqual(job);
    const conversion = (await eventsOf(created.id)).filter((e) => e.request_id === 'ticket-convert-1');
    expect(conversion.map((e) => [e.topic, e.details])).toEqual([
      ['ticket.updated', { changed_fields: ['converted_at', 'converted_job_id', 'status'] }],
      ['ticket.status_changed', { previous_status: 'New', status: 'Resolved' }],
      ['ticket.converted', { converted_to: { job_id: job.id } }],
    ]);
    expect((await eventsOf(job.id)).map((e) => [e.topic, e.request_id])).toEqual([['job.created', 'ticket-convert-1']]);
    expect(idsOf(await api.get(`/jobs?customer_id=${place.customer.id}`))).toContain(job.id);
  });

  it('converts once: again is ticket.already_converted naming the job, also after the job was deleted', async () => {
    const created = await ticket();
    const first = await api.post(`/tickets/${created.id}/convert`);
    expect(first.status, first.text).toBe(201);
    const jobId = first.body.data.job.id;
    const again = expectProblem(await api.post(`/tickets/${created.id}/convert`), { status: 409, code: 'ticket.already_converted' });
    expect(again.detail).toContain(jobId);
    await deleteRecord(api, 'jobs', jobId);
    expectProblem(await api.post(`/tickets/${created.id}/convert`), { status: 409, code: 'ticket.already_converted' });
    expect((await readRecord(api, 'tickets', created.id)).record.converted_job_id).toBe(jobId);
  });

  it('refuses a Closed ticket with ticket.closed; reopened, it converts', async () => {
    const created = await ticket();
    const closed = await updateRecord(api, 'tickets', 'ticket', created, { status: 'Closed' });
    expectProblem(await api.post(`/tickets/${created.id}/convert`), { status: 409, code: 'ticket.closed' });
    expect((await readRecord(api, 'tickets', created.id)).record.converted_job_id).toBeNull();
    await updateRecord(api, 'tickets', 'ticket', closed, { status: 'Open' });
    expect((await api.post(`/tickets/${created.id}/convert`)).status).toBe(201);
  });

  it("a ticket without a site converts when the body names the job's site, or when the AddressRequired module is No; otherwise validation.failed names site_id and nothing is written", async () => {
    const created = await ticket({ site_id: null });
    expectProblem(await api.post(`/tickets/${created.id}/convert`), { status: 422, code: 'validation.failed', errors: { site_id: true }, onlyErrors: true });
    expect((await readRecord(api, 'tickets', created.id)).record).toEqual(created.record);
    const other = await createPlace(api);
    expectProblem(await api.post(`/tickets/${created.id}/convert`, { job: { site_id: other.site.id } }), { status: 422, code: 'validation.failed', errors: { site_id: true }, onlyErrors: true });
    expectProblem(await api.post(`/tickets/${created.id}/convert`, { job: { customer_id: other.customer.id } }), { status: 422, code: 'validation.failed', errors: { customer_id: true } });
    expectProblem(await api.post(`/tickets/${created.id}/convert`, { job: { site_id: place.site.id, lineitems: [{ description: 'Visit', quantity: 1, unit_price: '80' }], assignments: [{ user_id: tenant.userId }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { lineitems: true, assignments: true },
      onlyErrors: true,
    });
    const second = await createSite(api, { type: 'Customer', id: place.customer.id });
    const res = await api.post(`/tickets/${created.id}/convert`, { job: { site_id: second.id, job_type: 'Repair', scheduled_start: '2031-03-01T09:00:00Z', priority: 'Low' } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.job).toMatchObject({ site_id: second.id, job_type: 'Repair', scheduled_start: '2031-03-01T09:00:00.000Z', priority: 'Low', ticket_id: created.id });
    // The ticket keeps what it said (no site); the job says where the work is.
    expect(res.body.data.ticket.site_id).toBeNull();

    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    await setModules(t, own, { AddressRequired: 'No' });
    const siteless = await createRecord(oapi, 'tickets', 'ticket', { subject: 'Call me back', customer_id: p.customer.id });
    const done = await oapi.post(`/tickets/${siteless.id}/convert`);
    expect(done.status, done.text).toBe(201);
    expect(done.body.data.job).toMatchObject({ site_id: null, customer_id: p.customer.id });
  });

  it('moves the ticket to Resolved only when that status is live; refuses an unknown body field; 404 for an unknown or another tenant\'s ticket', async () => {
    const { tenant: own, api: oapi } = await t.newTenant();
    const p = await createPlace(oapi);
    const resolved = await t.database.prisma.status.findFirst({ where: { account_id: own.accountId, related_name: 'Ticket', display_name: 'Resolved' } });
    await t.database.prisma.status.update({ where: { id: resolved!.id }, data: { deleted_at: new Date() } });
    const created = await createRecord(oapi, 'tickets', 'ticket', { subject: 'Noisy fan', customer_id: p.customer.id, site_id: p.site.id });
    expectProblem(await oapi.post(`/tickets/${created.id}/convert`, { job: { colour: 'red' } }), { status: 422, code: 'validation.failed', errors: { colour: true } });
    const res = await oapi.post(`/tickets/${created.id}/convert`);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.ticket.status).toBe('New');
    expectProblem(await api.post(`/tickets/${created.id}/convert`), { status: 404, code: 'resource.not_found' });
    expectProblem(await api.post(`/tickets/${randomUUID()}/convert`), { status: 404, code: 'resource.not_found' });
  });

  it('needs tickets:write and jobs:write', async () => {
    const created = await ticket();
    for (const [scopes, missing] of [[['tickets:write', 'jobs:read'], 'jobs:write'], [['jobs:write', 'tickets:read'], 'tickets:write']] as const) {
      const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes });
      const body = expectProblem(await t.client(key.token).post(`/tickets/${created.id}/convert`), { status: 403, code: 'auth.scope_missing' });
      expect(body.required_scope).toBe(missing);
    }
    const { api: reader } = await userClient(t, tenant, 'admin', undefined, ['tickets:read']);
    expectProblem(await reader.post('/tickets', { ticket: { subject: 'x', customer_id: place.customer.id } }), { status: 403, code: 'auth.scope_missing' });
    expect((await reader.get(`/tickets/${created.id}`)).status).toBe(200);
  });

  it('10 concurrent conversions of one ticket give one job: one 201, nine ticket.already_converted', async () => {
    const created = await ticket();
    const results = await Promise.all(Array.from({ length: 10 }, () => api.post(`/tickets/${created.id}/convert`)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.code).toBe('ticket.already_converted');
    const jobs = await t.database.prisma.job.findMany({ where: { ticket_id: created.id } });
    expect(jobs).toHaveLength(1);
    expect((await readRecord(api, 'tickets', created.id)).record.converted_job_id).toBe(jobs[0].id);
    expect((await eventsOf(created.id)).filter((e) => e.topic === 'ticket.converted')).toHaveLength(1);
  });
});

describe('labels on sites, contacts and systems', () => {
  it('accepts the labels of the Site, Contact and System lookups, replaces them on update and refuses an unknown one', async () => {
    const site = await createSite(api, { type: 'Customer', id: place.customer.id }, { labels: ['Key account'] });
    expect(site.record.labels).toEqual(['Key account']);
    const cleared = await updateRecord(api, 'sites', 'site', site, { labels: [] });
    expect(cleared.record.labels).toEqual([]);
    const person = await createContact(api, { labels: ['Key account'] });
    expect(person.record.labels).toEqual(['Key account']);
    const system = await createRecord(api, 'systems', 'system', { site_id: site.id, system_type: 'Furnace', name: unique('Furnace '), labels: ['Key account'] });
    expect(system.record.labels).toEqual(['Key account']);
    expect((await readRecord(api, 'systems', system.id)).record.labels).toEqual(['Key account']);
    for (const [plural, key, fields] of [
      ['sites', 'site', { site_name: 'x', street: '1 Elm', city: 'Springfield', state: 'IL', siteable_type: 'Customer', siteable_id: place.customer.id }],
      ['contacts', 'contact', { first_name: 'Pat' }],
      ['systems', 'system', { site_id: site.id, system_type: 'Boiler', name: unique('Boiler ') }],
    ] as const) {
      expectProblem(await api.post(`/${plural}`, { [key]: { ...fields, labels: ['Warranty'] } }), { status: 422, code: 'validation.failed', errors: { labels: true }, onlyErrors: true });
    }
  });
});

describe("purchase orders: q covers the vendor's name", () => {
  it("finds an order by its vendor's name, by the new name after a rename (not the old), without moving the order's ETag", async () => {
    const { api: oapi } = await t.newTenant();
    const [before, after] = [unique('acme').toLowerCase(), unique('zenith').toLowerCase()];
    const vendor = await createRecord(oapi, 'vendors', 'vendor', { name: `Supply ${before}` });
    const order = await createRecord(oapi, 'purchase_orders', 'purchase_order', { vendor_id: vendor.id, memo: 'valves' });
    await createRecord(oapi, 'purchase_orders', 'purchase_order', { vendor_id: (await createRecord(oapi, 'vendors', 'vendor', { name: unique('Other ') })).id });
    expect(idsOf(await oapi.get(`/purchase_orders?q=${before}`))).toEqual([order.id]);
    expect(idsOf(await oapi.get('/purchase_orders?q=valves'))).toEqual([order.id]);
    await updateRecord(oapi, 'vendors', 'vendor', vendor, { name: `Supply ${after}` });
    expect(idsOf(await oapi.get(`/purchase_orders?q=${after}`))).toEqual([order.id]);
    expect(idsOf(await oapi.get(`/purchase_orders?q=${before}`))).toEqual([]);
    expect((await readRecord(oapi, 'purchase_orders', order.id)).etag).toBe(order.etag);
    // The order's own writes keep it: a new memo and status are searched, and the vendor still is.
    const moved = await updateRecord(oapi, 'purchase_orders', 'purchase_order', order, { memo: 'gaskets', status: 'Ordered' });
    expect(idsOf(await oapi.get(`/purchase_orders?q=gaskets ${after}`))).toEqual([moved.id]);
  });
});
