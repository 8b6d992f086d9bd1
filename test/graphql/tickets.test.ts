import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { createContact, link } from '../helpers/factories/contacts.ts';
import { createRecord, unique } from '../helpers/factories/records.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Tickets over GraphQL: the generated type with its vocabularies (TicketPriority, TicketChannel), list filters,
// the mutations with userErrors (the same rules and codes as REST), convertTicket, and the relations both ways:
// Ticket.customer/site/contact/assignee/job, Customer.tickets, Site.tickets, Job.ticket (each needing the read
// scope of what it returns). Also Job.purchaseOrders / PurchaseOrder.job and the labels of sites, contacts and systems.

const t = useTestApp({ rateLimits: highRateLimits });

const TICKET_FIELDS = 'id number subject description customerId siteId contactId priority channel assigneeId status labels customFields convertedJobId convertedAt etag';
const CREATE = `mutation($input: CreateTicketInput!) { createTicket(input: $input) { ticket { ${TICKET_FIELDS} } ${USER_ERRORS} } }`;
const CONVERT = `mutation($id: ID!, $job: ConvertTicketJobInput) { convertTicket(id: $id, job: $job) {
  ticket { id status convertedJobId convertedAt job { id } } job { id title scopeOfWork priority customerId siteId contactId ticketId ticket { id subject } } ${USER_ERRORS} } }`;

async function world() {
  const { tenant, gql } = await graphqlTenant(t);
  const api = t.client(tenant.token);
  const place = await createPlace(api);
  const contact = await createContact(api);
  await link(api, contact.id, { type: 'Customer', id: place.customer.id });
  return { tenant, gql, api, place, contact };
}

describe('tickets over GraphQL', () => {
  it('createTicket, updateTicket and deleteTicket serve the record as REST does, with userErrors naming the fields', async () => {
    const { tenant, gql, api, place, contact } = await world();
    const created = ok(
      await gql(CREATE, { input: { subject: 'No hot water', description: 'Since Monday', customerId: place.customer.id, siteId: place.site.id, contactId: contact.id, priority: 'HIGH', channel: 'PORTAL', assigneeId: tenant.userId } }),
    ).createTicket;
    expect(created.userErrors).toEqual([]);
    const ticket = created.ticket;
    expect(ticket).toMatchObject({ subject: 'No hot water', priority: 'HIGH', channel: 'PORTAL', status: 'New', labels: [], customFields: {}, convertedJobId: null });
    const rest = await api.get(`/tickets/${ticket.id}`);
    expect(rest.body.data).toMatchObject({ id: ticket.id, number: ticket.number, priority: 'high', channel: 'portal', assignee_id: tenant.userId });
    expect(ticket.etag).toBe(rest.headers.get('etag'));

    const other = await createPlace(api);
    expectError(await gql(CREATE, { input: { subject: 'x', customerId: place.customer.id, siteId: other.site.id } }), 'validation.failed', [['input', 'siteId']]);
    expectError(await gql(CREATE, { input: { subject: ' ', customerId: place.customer.id } }), 'validation.failed', [['input', 'subject']]);

    const updated = ok(
      await gql(`mutation($id: ID!, $m: String) { updateTicket(id: $id, ifMatch: $m, input: { status: "Open", priority: URGENT, channel: null }) { ticket { status priority channel } etag ${USER_ERRORS} } }`, {
        id: ticket.id,
        m: ticket.etag,
      }),
    ).updateTicket;
    expect(updated).toMatchObject({ ticket: { status: 'Open', priority: 'URGENT', channel: null }, userErrors: [] });
    const bad = await gql(`mutation($id: ID!, $m: String) { updateTicket(id: $id, ifMatch: $m, input: { status: "Escalated" }) { ticket { id } ${USER_ERRORS} } }`, { id: ticket.id, m: updated.etag });
    expectError(bad, 'status.transition_invalid');
    const listed = ok(await gql(`{ tickets(filter: { priority: URGENT, statusIn: ["Open"] }) { nodes { id } } }`)).tickets.nodes;
    expect(listed).toEqual([{ id: ticket.id }]);
    expect(ok(await gql(`{ tickets(filter: { channelIn: [PHONE, EMAIL] }) { nodes { id } } }`)).tickets.nodes).toEqual([]);
    const deleted = ok(await gql(`mutation($id: ID!, $m: String) { deleteTicket(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: ticket.id, m: updated.etag })).deleteTicket;
    expect(deleted).toEqual({ deletedId: ticket.id, userErrors: [] });
    expectError(await gql(`query($id: ID!) { ticket(id: $id) { id } }`, { id: ticket.id }), 'resource.not_found', 404);
  });

  it('Ticket.customer, site, contact and assignee, and Customer.tickets and Site.tickets, resolve both ways', async () => {
    const { tenant, gql, place, contact } = await world();
    const a = ok(await gql(CREATE, { input: { subject: 'A', customerId: place.customer.id, siteId: place.site.id, contactId: contact.id, assigneeId: tenant.userId } })).createTicket.ticket;
    const b = ok(await gql(CREATE, { input: { subject: 'B', customerId: place.customer.id } })).createTicket.ticket;
    const read = ok(
      await gql(`query($id: ID!, $c: ID!, $s: ID!) {
        ticket(id: $id) { customer { id } site { id } contact { id } assignee { id } job { id } }
        customer(id: $c) { tickets { nodes { id } } }
        site(id: $s) { tickets { nodes { id } } } }`, { id: a.id, c: place.customer.id, s: place.site.id }),
    );
    expect(read.ticket).toEqual({ customer: { id: place.customer.id }, site: { id: place.site.id }, contact: { id: contact.id }, assignee: { id: tenant.userId }, job: null });
    expect(read.customer.tickets.nodes).toEqual([{ id: a.id }, { id: b.id }]);
    expect(read.site.tickets.nodes).toEqual([{ id: a.id }]);
  });

  it('convertTicket makes the job as REST does; Ticket.job and Job.ticket link both ways; a second conversion and a Closed ticket are userErrors', async () => {
    const { tenant, gql, api, place, contact } = await world();
    const ticket = ok(await gql(CREATE, { input: { subject: 'Boiler pressure low', description: 'Gauge under 1 bar', customerId: place.customer.id, siteId: place.site.id, contactId: contact.id, priority: 'LOW' } })).createTicket.ticket;
    const converted = ok(await gql(CONVERT, { id: ticket.id })).convertTicket;
    expect(converted.userErrors).toEqual([]);
    const job = converted.job;
    expect(job).toMatchObject({ title: 'Boiler pressure low', scopeOfWork: 'Gauge under 1 bar', priority: 'Low', customerId: place.customer.id, siteId: place.site.id, contactId: contact.id, ticketId: ticket.id, ticket: { id: ticket.id, subject: 'Boiler pressure low' } });
    expect(converted.ticket).toMatchObject({ status: 'Resolved', convertedJobId: job.id, job: { id: job.id } });
    expect((await api.get(`/jobs/${job.id}`)).body.data.ticket_id).toBe(ticket.id);

    const again = await gql(CONVERT, { id: ticket.id });
    expect(again.body.data.convertTicket.userErrors.map((e: { code: string }) => e.code)).toEqual(['ticket.already_converted']);

    const closed = ok(await gql(CREATE, { input: { subject: 'Old', customerId: place.customer.id, siteId: place.site.id } })).createTicket.ticket;
    ok(await gql(`mutation($id: ID!, $m: String) { updateTicket(id: $id, ifMatch: $m, input: { status: "Closed" }) { ticket { status } } }`, { id: closed.id, m: closed.etag }));
    expectError(await gql(CONVERT, { id: closed.id }), 'ticket.closed');

    const siteless = ok(await gql(CREATE, { input: { subject: 'Where?', customerId: place.customer.id } })).createTicket.ticket;
    expectError(await gql(CONVERT, { id: siteless.id }), 'validation.failed', [['job', 'siteId']]);
    const placed = ok(await gql(CONVERT, { id: siteless.id, job: { siteId: place.site.id, jobType: 'Inspection' } })).convertTicket;
    expect(placed).toMatchObject({ userErrors: [], job: { siteId: place.site.id, ticketId: siteless.id } });

    // Ticket.job needs jobs:read; Job.ticket needs tickets:read.
    const ticketsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['tickets:read'] });
    const res = await t.graphql(ticketsOnly.token)(`query($id: ID!) { ticket(id: $id) { convertedJobId job { id } } }`, { id: ticket.id });
    expect(res.body.data.ticket).toEqual({ convertedJobId: job.id, job: null });
    expect(res.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'jobs:read' })]);
    const jobsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const other = await t.graphql(jobsOnly.token)(`query($id: ID!) { job(id: $id) { ticketId ticket { id } } }`, { id: job.id });
    expect(other.body.data.job).toEqual({ ticketId: ticket.id, ticket: null });
    expect(other.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'tickets:read' })]);
    const noJobs = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['tickets:write'] });
    expectError(await t.graphql(noJobs.token)(CONVERT, { id: closed.id }), 'auth.scope_missing', 403);
  });
});

describe('Job.purchaseOrders and labels of sites, contacts and systems over GraphQL', () => {
  it('Job.purchaseOrders lists the live orders placed for the job, and PurchaseOrder.job names it', async () => {
    const { gql, api, place } = await world();
    const job = await createRecord(api, 'jobs', 'job', { site_id: place.site.id });
    const vendor = await createRecord(api, 'vendors', 'vendor', { name: unique('Vendor ') });
    const first = await createRecord(api, 'purchase_orders', 'purchase_order', { vendor_id: vendor.id, job_id: job.id });
    const second = await createRecord(api, 'purchase_orders', 'purchase_order', { vendor_id: vendor.id, job_id: job.id });
    await createRecord(api, 'purchase_orders', 'purchase_order', { vendor_id: vendor.id });
    const gone = await createRecord(api, 'purchase_orders', 'purchase_order', { vendor_id: vendor.id, job_id: job.id });
    expect((await api.delete(`/purchase_orders/${gone.id}`, { headers: { 'if-match': gone.etag } })).status).toBe(204);
    const read = ok(await gql(`query($j: ID!, $p: ID!) { job(id: $j) { purchaseOrders { nodes { id } } } purchaseOrder(id: $p) { job { id } } }`, { j: job.id, p: first.id }));
    expect(read.job.purchaseOrders.nodes).toEqual([{ id: first.id }, { id: second.id }]);
    expect(read.purchaseOrder.job).toEqual({ id: job.id });
  });

  it('sites, contacts and systems serve and write labels', async () => {
    const { tenant, gql, place } = await world();
    for (const relatedName of ['Site', 'Contact', 'System']) await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName, name: 'Priority care' });
    const contact = ok(await gql(`mutation { createContact(input: { firstName: "Robin", labels: ["Priority care"] }) { contact { id labels } ${USER_ERRORS} } }`)).createContact;
    expect(contact).toMatchObject({ contact: { labels: ['Priority care'] }, userErrors: [] });
    const system = ok(
      await gql(`mutation($s: ID!) { createSystem(input: { siteId: $s, systemType: "Furnace", name: "Main", labels: ["Priority care"] }) { system { id labels } ${USER_ERRORS} } }`, { s: place.site.id }),
    ).createSystem;
    expect(system).toMatchObject({ system: { labels: ['Priority care'] }, userErrors: [] });
    const site = ok(await gql(`query($s: ID!) { site(id: $s) { labels systems { nodes { labels } } } }`, { s: place.site.id })).site;
    expect(site).toEqual({ labels: [], systems: { nodes: [{ labels: ['Priority care'] }] } });
    expectError(await gql(`mutation { createContact(input: { firstName: "Robin", labels: ["Unknown"] }) { contact { id } ${USER_ERRORS} } }`), 'validation.failed', [['input', 'labels']]);
  });
});
