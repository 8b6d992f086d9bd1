import { Client, fetchExchange, gql as urqlGql } from '@urql/core';
import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { createPlace } from '../helpers/factories/sites.ts';
import { ok } from '../helpers/graphql.ts';

// Mutation payloads carry userErrors: what the caller can fix in its arguments is answered in the payload (field
// path in GraphQL names, message, catalog code), nothing is written and the payload's record is null; what it
// cannot fix by changing them (authentication, scope, rate limits, internal errors) stays a top-level error.

const t = useTestApp();
const { tenant, api, gql } = useTenant(t);

const USER_ERRORS = 'userErrors { field message code }';

describe('userErrors in mutation payloads', () => {
  it('validation errors name the argument path in GraphQL names, one per message, and nothing is written', async () => {
    const { site } = await createPlace(api);
    const res = await gql(
      `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id } etag ${USER_ERRORS} } }`,
      { i: { siteId: site.id, scheduledStart: '2026-12-01T10:00:00Z', scheduledEnd: '2026-12-01T09:00:00Z', lineitems: [{ description: 'Labour', quantity: '1', unitPrice: '10' }, { description: 'No quantity', unitPrice: '5' }] } },
    );
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    const payload = res.body.data.createJob;
    expect(payload.job).toBeNull();
    expect(payload.etag).toBeNull();
    expect(payload.userErrors).toEqual(
      expect.arrayContaining([
        { field: ['input', 'scheduledEnd'], message: 'scheduledEnd must not be before scheduledStart', code: 'validation.failed' },
        { field: ['input', 'lineitems', '1', 'quantity'], message: 'lineitems.1.quantity is missing', code: 'validation.failed' },
      ]),
    );
    const jobs = ok(await gql(`{ jobs { nodes { id } } }`)).jobs.nodes;
    expect(jobs).toEqual([]);
  });

  it('a stale ETag points at ifMatch, an unknown status at input.status, an unknown id at id; a success has no userErrors', async () => {
    const { site } = await createPlace(api);
    const created = ok(await gql(`mutation($s: ID!) { createJob(input: { siteId: $s, title: "A" }) { job { id } etag ${USER_ERRORS} } }`, { s: site.id })).createJob;
    expect(created.userErrors).toEqual([]);
    const update = `mutation($id: ID!, $m: String, $i: UpdateJobInput!) { updateJob(id: $id, ifMatch: $m, input: $i) { job { id title } etag ${USER_ERRORS} } }`;
    const moved = ok(await gql(update, { id: created.job.id, m: created.etag, i: { title: 'B' } })).updateJob;
    expect(moved).toMatchObject({ job: { title: 'B' }, userErrors: [] });

    const stale = ok(await gql(update, { id: created.job.id, m: created.etag, i: { title: 'C' } })).updateJob;
    expect(stale).toMatchObject({ job: null, etag: null, userErrors: [{ field: ['ifMatch'], code: 'precondition.failed' }] });
    const status = ok(await gql(update, { id: created.job.id, m: moved.etag, i: { status: 'Bogus' } })).updateJob;
    expect(status.userErrors).toEqual([{ field: ['input', 'status'], message: expect.stringContaining(`"Bogus"`), code: 'status.transition_invalid' }]);
    const missing = ok(await gql(`mutation($id: ID!) { deleteJob(id: $id, ifMatch: "W/\\"1-0\\"") { deletedId ${USER_ERRORS} } }`, { id: '01900000-0000-7000-8000-000000000000' })).deleteJob;
    expect(missing).toEqual({ deletedId: null, userErrors: [{ field: ['id'], message: 'Job not found', code: 'resource.not_found' }] });
    const deleted = ok(await gql(`mutation($id: ID!, $m: String) { deleteJob(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: created.job.id, m: moved.etag })).deleteJob;
    expect(deleted).toEqual({ deletedId: created.job.id, userErrors: [] });
  });

  it('conflicts of the records an action names are userErrors of its payload', async () => {
    const { customer } = await createPlace(api);
    const made = await api.post('/contacts', { contact: { first_name: 'Pat', linkable_id: customer.id, linkable_type: 'Customer' } });
    expect(made.status).toBe(201);
    const contact = made.body.data as { id: string };
    const linkages = ok(await gql(`query($id: ID!) { contact(id: $id) { linkages { nodes { id } } } }`, { id: contact.id })).contact.linkages.nodes;
    const unlink = ok(await gql(`mutation($c: ID!, $l: ID!) { unlinkContact(contactId: $c, linkageId: $l) { deletedId ${USER_ERRORS} } }`, { c: contact.id, l: linkages[0].id })).unlinkContact;
    expect(unlink).toMatchObject({ deletedId: null, userErrors: [{ field: null, code: 'contact.primary_linkage' }] });
  });

  it('a missing scope stays a top-level error, not a userError', async () => {
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const res = await t.graphql(key.token)(`mutation { createCustomer(input: { organization: "Nope" }) { customer { id } ${USER_ERRORS} } }`);
    expect(res.body.data.createCustomer).toBeNull();
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'auth.scope_missing', requiredScope: 'customers:write' });
  });

  it('a client library reads userErrors from the payload (urql)', async () => {
    const client = new Client({ url: `${t.url}/graphql`, exchanges: [fetchExchange], fetchOptions: { headers: { authorization: `Bearer ${tenant.token}` } } });
    const CREATE = urqlGql`mutation Create($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id organization } userErrors { field message code } } }`;
    const first = await client.mutation<{ createCustomer: { customer: { id: string } | null; userErrors: unknown[] } }>(CREATE, { input: { organization: 'Unique Heating' } }).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data!.createCustomer.userErrors).toEqual([]);
    const again = await client.mutation<{ createCustomer: { customer: { id: string } | null; userErrors: unknown[] } }>(CREATE, { input: { organization: 'unique heating' } }).toPromise();
    expect(again.error).toBeUndefined();
    expect(again.data!.createCustomer).toEqual({ customer: null, userErrors: [{ field: ['input', 'organization'], message: 'organization has already been taken', code: 'validation.failed' }] });
  });
});
