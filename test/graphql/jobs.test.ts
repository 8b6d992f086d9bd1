import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { codeOf, failed, graphqlRecord, ok, records, USER_ERRORS } from '../helpers/graphql.ts';

// Jobs and estimates over GraphQL: the generated CRUD with line items (decimals as exact strings), the work
// relations (customer, site, contact, system, assignees, items, tax rates, estimate <-> job), convertEstimate
// over the same service as REST, and the REST error codes: in a mutation payload's userErrors when the caller can fix
// its arguments, in extensions.code otherwise.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, gql, api: rest } = useTenant(t);

const LINE = 'id itemId description quantity unitPrice discount taxRateId taxable laborVisible discountAmount taxAmount lineTotal taxApplied';
const JOB = `id number status title customerId siteId contactId systemId scheduledStart scheduledEnd amount estimateId labels customFields
  lineitems { nodes { ${LINE} } } assignments { nodes { id userId } } createdAt updatedAt`;
const ESTIMATE = `id number status title customerId siteId contactId systemId taxRateId amount convertedJobId convertedAt lineitems { nodes { ${LINE} } } createdAt updatedAt`;

interface World {
  customerId: string;
  siteId: string;
  contactId: string;
  systemId: string;
  itemId: string;
  taxRateId: string;
  techId: number;
}

let counter = 0;
async function world(): Promise<World> {
  counter += 1;
  const r = records(gql);
  const customer = await r.customer(`Work Org ${counter}`);
  const site = await r.site(customer, 'CUSTOMER', `Plant ${counter}`);
  const contact = await r.contact({ firstName: `Dana ${counter}`, linkableId: customer.id, linkableType: 'CUSTOMER' });
  const system = ok(await gql(`mutation($input: CreateSystemInput!) { createSystem(input: $input) { system { id } } }`, { input: { siteId: site.id, systemType: 'HVAC', name: 'Rooftop unit' } }))
    .createSystem.system.id;
  const item = ok(await gql(`mutation { createItem(input: { name: "Filter ${counter}", itemType: MATERIAL, unitPrice: "12.5" }) { item { id } } }`)).createItem.item.id;
  const taxRate = ok(await gql(`mutation { createTaxRate(input: { name: "Tax ${counter}", rate: "10" }) { taxRate { id } } }`)).createTaxRate.taxRate.id;
  const tech = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: `Tech ${counter}`, email: `tech${counter}@example.test`, role: 'technician' });
  return { customerId: customer.id, siteId: site.id, contactId: contact.id, systemId: system, itemId: item, taxRateId: taxRate, techId: tech.id };
}

const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { etag job { ${JOB} } ${USER_ERRORS} } }`;
const CREATE_ESTIMATE = `mutation($input: CreateEstimateInput!) { createEstimate(input: $input) { etag estimate { ${ESTIMATE} } ${USER_ERRORS} } }`;
const UPDATE_ESTIMATE = `mutation($id: ID!, $ifMatch: String, $input: UpdateEstimateInput!) { updateEstimate(id: $id, ifMatch: $ifMatch, input: $input) { etag estimate { ${ESTIMATE} } ${USER_ERRORS} } }`;
const CONVERT = `mutation($id: ID!) { convertEstimate(id: $id) { estimate { id etag convertedJobId amount } job { id etag estimateId amount siteId lineitems { nodes { ${LINE} } } } ${USER_ERRORS} } }`;

describe('jobs', () => {
  it('creates, reads, updates and deletes a job with lines and assignments through the same service as REST, decimals as strings', async () => {
    const w = await world();
    const created = ok(
      await gql(CREATE_JOB, {
        input: {
          customerId: w.customerId,
          siteId: w.siteId,
          contactId: w.contactId,
          systemId: w.systemId,
          title: 'Replace filters',
          scheduledStart: '2030-01-07T09:00:00.000Z',
          scheduledEnd: '2030-01-07T11:00:00.000Z',
          lineitems: [
            { itemId: w.itemId, quantity: '3' },
            { description: 'Labour', quantity: 0.1, unitPrice: '0.2', taxRateId: w.taxRateId },
          ],
          assignments: [{ userId: w.techId }, { userId: tenant.userId }],
        },
      }),
    ).createJob;
    const job = created.job;
    expect(job).toMatchObject({ title: 'Replace filters', customerId: w.customerId, siteId: w.siteId, systemId: w.systemId, scheduledStart: '2030-01-07T09:00:00.000Z' });
    expect(job.lineitems.nodes).toHaveLength(2);
    expect(job.lineitems.nodes[0]).toMatchObject({ itemId: w.itemId, description: `Filter ${counter}`, quantity: '3.0000', unitPrice: '12.5000', discount: '0.0000', taxApplied: false });
    expect(job.lineitems.nodes[1]).toMatchObject({ quantity: '0.1000', unitPrice: '0.2000', taxRateId: w.taxRateId, taxApplied: true });
    for (const line of job.lineitems.nodes) for (const key of ['quantity', 'unitPrice', 'lineTotal', 'taxAmount', 'discountAmount']) expect(typeof line[key]).toBe('string');
    expect(typeof job.amount).toBe('string');
    expect(job.assignments.nodes.map((a: { userId: number }) => a.userId)).toEqual([w.techId, tenant.userId]);

    const viaRest = await rest.get(`/jobs/${job.id}`);
    expect(viaRest.headers.get('etag')).toBe(created.etag);
    expect(graphqlRecord(viaRest.body.data)).toMatchObject(job);

    const read = ok(await gql(`query($id: ID!) { job(id: $id) { ${JOB} etag } }`, { id: job.id })).job;
    expect(read).toEqual({ ...job, etag: created.etag });

    const updated = ok(
      await gql(`mutation($id: ID!, $ifMatch: String, $input: UpdateJobInput!) { updateJob(id: $id, ifMatch: $ifMatch, input: $input) { etag job { ${JOB} } } }`, {
        id: job.id,
        ifMatch: created.etag,
        input: { status: 'Scheduled', lineitems: [{ id: job.lineitems.nodes[1].id, quantity: '2' }] },
      }),
    ).updateJob;
    expect(updated.job.status).toBe('Scheduled');
    expect(updated.job.lineitems.nodes.map((l: { id: string; quantity: string }) => [l.id, l.quantity])).toEqual([[job.lineitems.nodes[1].id, '2.0000']]);
    expect(updated.job.amount).toBe(updated.job.lineitems.nodes[0].lineTotal);
    expect((await rest.get(`/jobs/${job.id}`)).body.data.lineitems).toHaveLength(1);

    const deleted = await gql(`mutation($id: ID!, $ifMatch: String) { deleteJob(id: $id, ifMatch: $ifMatch) { deletedId ${USER_ERRORS} } }`, { id: job.id, ifMatch: updated.etag });
    expect(deleted.body).toEqual({ data: { deleteJob: { deletedId: job.id, userErrors: [] } } });
    expect((await rest.get(`/jobs/${job.id}`)).status).toBe(404);
  });

  it('serves customer, site, contact, system, assignees and each line item and tax rate as relations', async () => {
    const w = await world();
    const job = ok(
      await gql(CREATE_JOB, {
        input: {
          customerId: w.customerId,
          siteId: w.siteId,
          contactId: w.contactId,
          systemId: w.systemId,
          lineitems: [{ itemId: w.itemId, quantity: '1', taxRateId: w.taxRateId }, { description: 'Free', quantity: '1', unitPrice: '0' }],
          assignments: [{ userId: w.techId }],
        },
      }),
    ).createJob.job;
    const data = ok(
      await gql(
        `query($id: ID!) { job(id: $id) {
          customer { id organization } site { id siteName systems { nodes { id } } } contact { id firstName } system { id name site { id } }
          assignees { nodes { id name email role } } estimate { id }
          lineitems { nodes { item { id name unitPrice } taxRate { id rate } } } } }`,
        { id: job.id },
      ),
    ).job;
    expect(data.customer).toEqual({ id: w.customerId, organization: expect.stringMatching(/^Work Org/) });
    expect(data.site).toEqual({ id: w.siteId, siteName: expect.any(String), systems: { nodes: [{ id: w.systemId }] } });
    expect(data.contact.id).toBe(w.contactId);
    expect(data.system).toEqual({ id: w.systemId, name: 'Rooftop unit', site: { id: w.siteId } });
    expect(data.assignees.nodes).toEqual([{ id: w.techId, name: expect.stringMatching(/^Tech/), email: expect.stringContaining('@example.test'), role: 'TECHNICIAN' }]);
    expect(data.estimate).toBeNull();
    expect(data.lineitems.nodes).toEqual([
      { item: { id: w.itemId, name: expect.stringMatching(/^Filter/), unitPrice: '12.5000' }, taxRate: { id: w.taxRateId, rate: expect.stringMatching(/^10(\.0+)?$/) } },
      { item: null, taxRate: null },
    ]);

    const customer = ok(await gql(`query($id: ID!) { customer(id: $id) { jobs { nodes { id } } estimates { nodes { id } } } }`, { id: w.customerId })).customer;
    expect(customer).toEqual({ jobs: { nodes: [{ id: job.id }] }, estimates: { nodes: [] } });
  });

  it('answers a relation the key has no read scope for with null and auth.scope_missing, keeping the job', async () => {
    const w = await world();
    const job = ok(await gql(CREATE_JOB, { input: { customerId: w.customerId, siteId: w.siteId, systemId: w.systemId } })).createJob.job;
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const res = await gql(`query($id: ID!) { job(id: $id) { id customer { id } } }`, { id: job.id }, { token: key.token });
    expect(res.body.data).toEqual({ job: { id: job.id, customer: null } });
    expect(codeOf(res)).toBe('auth.scope_missing');
  });
});

describe('estimates', () => {
  it('creates an estimate with lines, computes amount with tax, and serves its relations', async () => {
    const w = await world();
    const created = ok(
      await gql(CREATE_ESTIMATE, {
        input: { customerId: w.customerId, siteId: w.siteId, contactId: w.contactId, systemId: w.systemId, taxRateId: w.taxRateId, title: 'New unit', lineitems: [{ description: 'Unit', quantity: '1', unitPrice: '100' }] },
      }),
    ).createEstimate;
    expect(created.estimate).toMatchObject({ status: 'Draft', taxRateId: w.taxRateId, amount: '110.00' });
    expect(created.estimate.lineitems.nodes[0]).toMatchObject({ taxRateId: w.taxRateId, taxAmount: '10.00', lineTotal: '110.00', taxApplied: true });
    expect(graphqlRecord((await rest.get(`/estimates/${created.estimate.id}`)).body.data)).toMatchObject(created.estimate);

    const data = ok(
      await gql(`query($id: ID!) { estimate(id: $id) { customer { id } site { id } contact { id } system { id } taxRate { id name } convertedJob { id } } }`, { id: created.estimate.id }),
    ).estimate;
    expect(data).toEqual({ customer: { id: w.customerId }, site: { id: w.siteId }, contact: { id: w.contactId }, system: { id: w.systemId }, taxRate: { id: w.taxRateId, name: expect.any(String) }, convertedJob: null });
  });

  it('converts an accepted estimate into a job with the same lines and links them both ways', async () => {
    const w = await world();
    const created = ok(
      await gql(CREATE_ESTIMATE, { input: { customerId: w.customerId, siteId: w.siteId, systemId: w.systemId, lineitems: [{ itemId: w.itemId, quantity: '2', discount: '100' }, { description: 'Work', quantity: '0.3333', unitPrice: '3' }] } }),
    ).createEstimate;
    const accepted = ok(await gql(UPDATE_ESTIMATE, { id: created.estimate.id, ifMatch: created.etag, input: { status: 'Accepted' } })).updateEstimate;
    expect(accepted.estimate.status).toBe('Accepted');

    const converted = ok(await gql(CONVERT, { id: created.estimate.id })).convertEstimate;
    expect(converted.estimate.convertedJobId).toBe(converted.job.id);
    expect(converted.job.estimateId).toBe(created.estimate.id);
    expect(converted.job.amount).toBe(converted.estimate.amount);
    expect(converted.job.lineitems.nodes.map((l: { quantity: string; lineTotal: string }) => [l.quantity, l.lineTotal])).toEqual(
      created.estimate.lineitems.nodes.map((l: { quantity: string; lineTotal: string }) => [l.quantity, l.lineTotal]),
    );
    expect(converted.estimate.etag).toBe((await rest.get(`/estimates/${created.estimate.id}`)).headers.get('etag'));
    expect(converted.job.etag).toBe((await rest.get(`/jobs/${converted.job.id}`)).headers.get('etag'));

    const linked = ok(await gql(`query($id: ID!) { estimate(id: $id) { convertedJob { id estimate { id } } } }`, { id: created.estimate.id })).estimate;
    expect(linked.convertedJob).toEqual({ id: converted.job.id, estimate: { id: created.estimate.id } });

    const again = await gql(CONVERT, { id: created.estimate.id });
    expect(again.body.data).toEqual({ convertEstimate: { estimate: null, job: null, userErrors: [{ field: null, message: expect.any(String), code: 'estimate.already_converted' }] } });
    failed(again, 'estimate.already_converted');
  });

  it('refuses to convert an estimate that is not accepted with estimate.not_accepted', async () => {
    const w = await world();
    const draft = ok(await gql(CREATE_ESTIMATE, { input: { customerId: w.customerId, siteId: w.siteId } })).createEstimate.estimate;
    const res = await gql(CONVERT, { id: draft.id });
    expect(res.body.data).toEqual({ convertEstimate: { estimate: null, job: null, userErrors: [{ field: null, message: expect.any(String), code: 'estimate.not_accepted' }] } });
    failed(res, 'estimate.not_accepted');
  });

  it('needs jobs:write besides estimates:write to convert', async () => {
    const w = await world();
    const draft = ok(await gql(CREATE_ESTIMATE, { input: { customerId: w.customerId, siteId: w.siteId } })).createEstimate.estimate;
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['estimates:write'] });
    const res = await gql(CONVERT, { id: draft.id }, { token: key.token });
    expect(codeOf(res)).toBe('auth.scope_missing');
    expect(res.body.errors?.[0]?.extensions?.requiredScope).toBe('jobs:write');
  });

  it('answers auth.permission_denied in extensions.code when a technician moves an estimate to Sent', async () => {
    const w = await world();
    const created = ok(await gql(CREATE_ESTIMATE, { input: { customerId: w.customerId, siteId: w.siteId } })).createEstimate;
    const key = await t.app.domain.admin.createKey({ userId: w.techId });
    const tech = t.graphql(key.token);
    const res = await tech(UPDATE_ESTIMATE, { id: created.estimate.id, ifMatch: created.etag, input: { status: 'Sent' } });
    expect(res.body.data).toEqual({ updateEstimate: null });
    expect(codeOf(res)).toBe('auth.permission_denied');
    expect((await rest.get(`/estimates/${created.estimate.id}`)).body.data.status).toBe('Draft');
    // Other changes stay open to the technician.
    expect(ok(await tech(UPDATE_ESTIMATE, { id: created.estimate.id, ifMatch: created.etag, input: { title: 'Checked' } })).updateEstimate.estimate.title).toBe('Checked');
  });
});

describe('systems', () => {
  it('answers system.duplicate in the userErrors of createSystem for a second system of a type on the site', async () => {
    const w = await world();
    const res = await gql(`mutation($input: CreateSystemInput!) { createSystem(input: $input) { system { id } ${USER_ERRORS} } }`, { input: { siteId: w.siteId, systemType: 'HVAC', name: 'Another' } });
    expect(res.body.data).toEqual({ createSystem: { system: null, userErrors: [{ field: null, message: expect.any(String), code: 'system.duplicate' }] } });
    failed(res, 'system.duplicate');
  });
});
