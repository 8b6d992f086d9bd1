import { beforeAll, describe, expect, it } from 'vitest';
import { type Tenant, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { camelRecord, codeOf, failed, fieldsOf, type Gql, USER_ERRORS } from '../helpers/graphql.ts';
import type { Client } from '../helpers/http.ts';

const clock = new TestClock();
const t = useTestApp({ clock });
const { tenant, gql, api: rest } = useTenant(t);

const FIELDS = 'id number organization mainPhone fax website description reference assigneeId customerNotes priceAdjustment status labels customFields createdAt updatedAt etag';
const CREATE = `mutation Create($input: CreateCustomerInput!) { createCustomer(input: $input) { etag customer { ${FIELDS} } ${USER_ERRORS} } }`;
const UPDATE = `mutation Update($id: ID!, $ifMatch: String, $input: UpdateCustomerInput!) {
  updateCustomer(id: $id, ifMatch: $ifMatch, input: $input) { etag customer { ${FIELDS} } ${USER_ERRORS} } }`;
const DELETE = `mutation Delete($id: ID!, $ifMatch: String) { deleteCustomer(id: $id, ifMatch: $ifMatch) { deletedId ${USER_ERRORS} } }`;
const GET = `query Get($id: ID!) { customer(id: $id) { ${FIELDS} } }`;

async function create(input: Record<string, unknown>, using: Gql = gql) {
  const res = await using(CREATE, { input });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.body.data.createCustomer.userErrors).toEqual([]);
  return res.body.data.createCustomer as { etag: string; customer: Record<string, any> };
}

describe('customer mutations and queries', () => {
  it('creates, reads, updates and soft-deletes a customer through the same service as REST', async () => {
    const created = await create({ organization: 'Acme HVAC', mainPhone: '+1 555 0100', reference: 'ERP-1', assigneeId: tenant.userId });
    expect(created.customer).toMatchObject({ organization: 'Acme HVAC', mainPhone: '+1 555 0100', assigneeId: tenant.userId, status: 'Active', labels: [], customFields: {} });
    expect(created.etag).toMatch(/^W\/"\d+-0"$/);
    expect(created.customer.etag).toBe(created.etag);

    const viaRest = await rest.get(`/customers/${created.customer.id}`);
    expect(viaRest.headers.get('etag')).toBe(created.etag);
    expect({ ...camelRecord(viaRest.body.data), etag: created.etag }).toEqual(created.customer);

    const read = await gql(GET, { id: created.customer.id });
    expect(read.body.data.customer).toEqual(created.customer);

    const updated = await gql(UPDATE, { id: created.customer.id, ifMatch: created.etag, input: { reference: 'ERP-2', status: 'Inactive', fax: null } });
    expect(updated.body.errors).toBeUndefined();
    const payload = updated.body.data.updateCustomer;
    expect(payload.userErrors).toEqual([]);
    expect(payload.customer).toMatchObject({ reference: 'ERP-2', status: 'Inactive', organization: 'Acme HVAC', mainPhone: '+1 555 0100', fax: null });
    expect(payload.etag).not.toBe(created.etag);
    expect((await rest.get(`/customers/${created.customer.id}`)).headers.get('etag')).toBe(payload.etag);

    const deleted = await gql(DELETE, { id: created.customer.id, ifMatch: payload.etag });
    expect(deleted.body).toEqual({ data: { deleteCustomer: { deletedId: created.customer.id, userErrors: [] } } });
    expect((await rest.get(`/customers/${created.customer.id}`)).status).toBe(404);
    const gone = await gql(GET, { id: created.customer.id });
    expect(gone.body.data.customer).toBeNull();
    expect(codeOf(gone)).toBe('resource.not_found');
  });

  it('writes labels and custom fields, merging custom fields on update', async () => {
    const own = await t.tenant();
    const admin = t.app.domain.admin;
    await admin.addLookup('label', { accountId: own.accountId, relatedName: 'Customer', name: 'VIP' });
    const tier = await admin.addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Tier', type: 'text' });
    const since = await admin.addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Since', type: 'date' });
    const ownGql = t.graphql(own.token);
    const created = await create({ organization: 'Labelled', labels: ['VIP'], customFields: { [tier.id]: 'Gold' } }, ownGql);
    expect(created.customer).toMatchObject({ labels: ['VIP'], customFields: { [tier.id]: 'Gold' } });
    const updated = await ownGql(UPDATE, { id: created.customer.id, ifMatch: created.etag, input: { labels: [], customFields: { [since.id]: '2020-01-31' } } });
    expect(updated.body.data.updateCustomer.customer).toMatchObject({ labels: [], customFields: { [tier.id]: 'Gold', [since.id]: '2020-01-31' } });
  });

  it('records the X-Request-Id of the mutation on its outbox event', async () => {
    const res = await gql(CREATE, { input: { organization: 'Traced Ltd' } }, { headers: { 'x-request-id': 'gql-trace-7' } });
    const id = res.body.data.createCustomer.customer.id;
    const event = await t.database.prisma.event.findFirst({ where: { record_id: id, action: 'created' } });
    expect(event?.request_id).toBe('gql-trace-7');
  });
});

describe('errors of customer operations carry the REST codes: in userErrors of mutations, in extensions.code of queries', () => {
  it('validation.failed with field errors named in camelCase', async () => {
    await create({ organization: 'Taken Inc' });
    const res = await gql(CREATE, { input: { organization: 'TAKEN INC', mainPhone: 'x'.repeat(65), assigneeId: 987654 } });
    expect(res.status).toBe(200);
    expect(res.body.data.createCustomer).toMatchObject({ customer: null, etag: null });
    const errors = failed(res, 'validation.failed');
    expect(fieldsOf(errors)).toEqual([['input', 'assigneeId'], ['input', 'mainPhone'], ['input', 'organization']]);
    expect(errors.filter((error) => error.field![1] === 'organization')).toEqual([
      { field: ['input', 'organization'], message: 'organization has already been taken', code: 'validation.failed' },
    ]);
  });

  it('validation.failed names an unparseable custom field date', async () => {
    const own = await t.tenant();
    const since = await t.app.domain.admin.addCustomField({ accountId: own.accountId, relatedName: 'Customer', name: 'Since', type: 'date' });
    const res = await t.graphql(own.token)(CREATE, { input: { organization: 'Dated', customFields: { [since.id]: 'someday' } } });
    expect(fieldsOf(failed(res, 'validation.failed'))).toEqual([['input', 'customFields', since.id]]);
  });

  it('precondition.required without ifMatch and precondition.failed with a stale one', async () => {
    const { customer, etag } = await create({ organization: 'Guarded' });
    const missing = await gql(UPDATE, { id: customer.id, input: { reference: 'x' } });
    expect(fieldsOf(failed(missing, 'precondition.required'))).toEqual([['ifMatch']]);
    await gql(UPDATE, { id: customer.id, ifMatch: etag, input: { reference: 'first' } });
    const stale = await gql(UPDATE, { id: customer.id, ifMatch: etag, input: { reference: 'second' } });
    expect(fieldsOf(failed(stale, 'precondition.failed'))).toEqual([['ifMatch']]);
    const staleDelete = await gql(DELETE, { id: customer.id, ifMatch: etag });
    expect(fieldsOf(failed(staleDelete, 'precondition.failed'))).toEqual([['ifMatch']]);
  });

  it('resource.not_found for an unknown id and for another tenant\'s customer', async () => {
    const other = await t.tenant();
    const theirs = await create({ organization: 'Not Yours' }, t.graphql(other.token));
    for (const id of [theirs.customer.id, '01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556', 'not-a-uuid']) {
      const read = await gql(GET, { id });
      expect(read.body.data.customer).toBeNull();
      expect(codeOf(read)).toBe('resource.not_found');
    }
    const write = await gql(UPDATE, { id: theirs.customer.id, ifMatch: theirs.etag, input: { reference: 'mine' } });
    expect(fieldsOf(failed(write, 'resource.not_found'))).toEqual([['id']]);
  });

  it('number.immutable when the number changes, and the same number is a no-op', async () => {
    const { customer, etag } = await create({ organization: 'Numbered', number: 'C-100' });
    expect(customer.number).toBe('C-100');
    const same = await gql(UPDATE, { id: customer.id, ifMatch: etag, input: { number: 'C-100', reference: 'ok' } });
    expect(same.body.errors).toBeUndefined();
    expect(same.body.data.updateCustomer.userErrors).toEqual([]);
    const changed = await gql(UPDATE, { id: customer.id, ifMatch: same.body.data.updateCustomer.etag, input: { number: 'C-101' } });
    expect(fieldsOf(failed(changed, 'number.immutable'))).toEqual([['input', 'number']]);
  });

  it('status.transition_invalid naming a status that is not configured', async () => {
    const { customer, etag } = await create({ organization: 'Statused' });
    const res = await gql(UPDATE, { id: customer.id, ifMatch: etag, input: { status: 'Frozen' } });
    const [error] = failed(res, 'status.transition_invalid');
    expect(error.field).toEqual(['input', 'status']);
    expect(error.message).toContain('Frozen');
  });

  it('auth.scope_missing with requiredScope and grantedScopes, per field', async () => {
    const readOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const noCustomers = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:write'] });
    const write = await t.graphql(readOnly.token)(CREATE, { input: { organization: 'Scoped' } });
    expect(write.status).toBe(200);
    expect(write.body.errors![0].extensions).toMatchObject({
      code: 'auth.scope_missing',
      status: 403,
      requiredScope: 'customers:write',
      grantedScopes: ['customers:read'],
    });
    const read = await t.graphql(noCustomers.token)('{ me { apiVersion } customers { nodes { id } } }');
    expect(read.body.data).toEqual({ me: { apiVersion: '2026-04-30' }, customers: null });
    expect(read.body.errors![0]).toMatchObject({
      path: ['customers'],
      extensions: { code: 'auth.scope_missing', requiredScope: 'customers:read', grantedScopes: ['jobs:write'] },
    });
    const listed = await t.graphql(readOnly.token)('{ customers(first: 1) { nodes { id } } }');
    expect(listed.body.errors).toBeUndefined();
  });
});

describe('customers list', () => {
  let owner: Tenant;
  let ownGql: Gql;
  let ownRest: Client;
  const LIST = `query List($first: Int, $after: String, $filter: CustomerFilter, $sort: CustomerSort) {
    customers(first: $first, after: $after, filter: $filter, sort: $sort) {
      nodes { id organization number status etag }
      pageInfo { hasNextPage hasPreviousPage endCursor }
    }
  }`;
  type Page = { nodes: Record<string, any>[]; pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null } };
  const list = async (variables: Record<string, unknown>) => {
    const res = await ownGql(LIST, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data.customers as Page;
  };
  const names = (page: { nodes: Record<string, any>[] }) => page.nodes.map((n) => n.organization);
  let tierId: string;

  beforeAll(async () => {
    owner = await t.tenant();
    ownGql = t.graphql(owner.token);
    ownRest = t.client(owner.token);
    tierId = (await t.app.domain.admin.addCustomField({ accountId: owner.accountId, relatedName: 'Customer', name: 'Tier', type: 'text' })).id;
    for (const [i, organization] of ['Delta Air', 'Alpha Heating', 'Charlie Plumbing', 'Bravo Electric', 'Echo Cooling'].entries()) {
      const made = await create({ organization, reference: `REF-${i}`, customFields: i % 2 === 0 ? { [tierId]: 'Gold' } : {} }, ownGql);
      if (organization === 'Bravo Electric') {
        await ownGql(UPDATE, { id: made.customer.id, ifMatch: made.etag, input: { status: 'Inactive' } });
      }
    }
  });

  it('pages with first and after in the default order (-created_at), with hasNextPage and hasPreviousPage', async () => {
    const first = await list({ first: 2 });
    expect(names(first)).toEqual(['Echo Cooling', 'Bravo Electric']);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(first.nodes[0].etag).toMatch(/^W\/"\d+-\d+"$/);
    const second = await list({ first: 2, after: first.pageInfo.endCursor });
    expect(names(second)).toEqual(['Charlie Plumbing', 'Alpha Heating']);
    expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const third = await list({ first: 2, after: second.pageInfo.endCursor });
    expect(names(third)).toEqual(['Delta Air']);
    // The last page still has an endCursor: resuming after it gives an empty page that says it is the end.
    expect(third.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, endCursor: expect.any(String) });
    const beyond = await list({ first: 2, after: third.pageInfo.endCursor });
    expect(beyond).toEqual({ nodes: [], pageInfo: { hasNextPage: false, hasPreviousPage: true, endCursor: null } });
  });

  it('sorts by one field in either direction, and keeps the cursor\'s order on later pages', async () => {
    expect(names(await list({ sort: { field: 'ORGANIZATION' } }))).toEqual(['Alpha Heating', 'Bravo Electric', 'Charlie Plumbing', 'Delta Air', 'Echo Cooling']);
    expect(names(await list({ sort: { field: 'ORGANIZATION', direction: 'ASC' } }))).toEqual(['Alpha Heating', 'Bravo Electric', 'Charlie Plumbing', 'Delta Air', 'Echo Cooling']);
    const first = await list({ sort: { field: 'ORGANIZATION', direction: 'DESC' }, first: 3 });
    expect(names(first)).toEqual(['Echo Cooling', 'Delta Air', 'Charlie Plumbing']);
    const next = await list({ sort: { field: 'CREATED_AT' }, first: 3, after: first.pageInfo.endCursor });
    expect(names(next)).toEqual(['Bravo Electric', 'Alpha Heating']);
  });

  it('filters by organization, number, status, statusIn, created_at range, q and custom fields', async () => {
    expect(names(await list({ filter: { organization: 'Delta Air' } }))).toEqual(['Delta Air']);
    const all = await list({ sort: { field: 'ORGANIZATION' } });
    const alpha = all.nodes[0];
    expect(names(await list({ filter: { number: alpha.number } }))).toEqual(['Alpha Heating']);
    expect(names(await list({ filter: { status: 'Inactive' } }))).toEqual(['Bravo Electric']);
    expect(names(await list({ filter: { statusIn: ['Inactive', 'Active'] }, sort: { field: 'ORGANIZATION' }, first: 2 }))).toEqual(['Alpha Heating', 'Bravo Electric']);
    expect(names(await list({ filter: { q: 'plumb' } }))).toEqual(['Charlie Plumbing']);
    expect(names(await list({ filter: { q: 'ref-4' } }))).toEqual(['Echo Cooling']);
    expect(names(await list({ filter: { customFields: [{ id: tierId, value: 'Gold' }] }, sort: { field: 'ORGANIZATION' } }))).toEqual(['Charlie Plumbing', 'Delta Air', 'Echo Cooling']);
    expect(names(await list({ filter: { createdAtLt: '2000-01-01T00:00:00Z' } }))).toEqual([]);
    expect((await list({ filter: { createdAtGte: '2000-01-01T00:00:00Z' } })).nodes).toHaveLength(5);
  });

  it('returns the same page as REST for the same parameters', async () => {
    const gqlPage = await list({ sort: { field: 'ORGANIZATION' }, filter: { statusIn: ['Active'] }, first: 2 });
    const restPage = await ownRest.get('/customers?sort=organization&status[in]=Active&limit=2');
    expect(gqlPage.nodes.map((n) => n.id)).toEqual(restPage.body.data.map((r: any) => r.id));
    expect(gqlPage.pageInfo.hasNextPage).toBe(restPage.body.has_more);
  });

  it('issues cursors that REST accepts, and accepts the cursors REST issues', async () => {
    const first = await list({ sort: { field: 'ORGANIZATION' }, first: 2, filter: { q: 'i' } });
    const restNext = await ownRest.get(`/customers?q=i&limit=2&cursor=${encodeURIComponent(first.pageInfo.endCursor!)}`);
    expect(restNext.status).toBe(200);
    const gqlNext = await list({ sort: { field: 'ORGANIZATION' }, first: 2, filter: { q: 'i' }, after: first.pageInfo.endCursor });
    expect(restNext.body.data.map((r: any) => r.id)).toEqual(gqlNext.nodes.map((n) => n.id));

    const restFirst = await ownRest.get('/customers?sort=-organization&limit=2&status=Active');
    const link = /<([^>]+)>; rel="next"/.exec(restFirst.headers.get('link')!)![1];
    const restCursor = new URL(link, t.url).searchParams.get('cursor')!;
    const fromRest = await list({ first: 2, filter: { status: 'Active' }, after: restCursor });
    const restSecond = await ownRest.get(`/customers?limit=2&status=Active&cursor=${encodeURIComponent(restCursor)}`);
    expect(names(fromRest)).toEqual(['Charlie Plumbing', 'Alpha Heating']);
    expect(fromRest.nodes.map((n) => n.id)).toEqual(restSecond.body.data.map((r: any) => r.id));
  });

  it('answers the REST list error codes', async () => {
    const errorOf = async (variables: Record<string, unknown>) => {
      const res = await ownGql(LIST, variables);
      expect(res.body.data.customers).toBeNull();
      return res.body.errors![0].extensions!;
    };
    const tooMany = await ownGql(LIST, { first: 101 });
    expect(tooMany.body.data.customers).toBeNull();
    expect(tooMany.body.errors![0].message).toContain('first');
    expect(tooMany.body.errors![0].extensions).toMatchObject({ code: 'pagination.limit_too_large', status: 400, maxLimit: 100 });
    const none = await ownGql(LIST, { first: 0 });
    expect(none.body.data.customers).toBeNull();
    expect(none.body.errors![0].message).toContain('first');
    expect(none.body.errors![0].extensions).toMatchObject({ code: 'filter.invalid', status: 400 });
    // A sort field outside the enum, or more than one field, cannot be asked: the schema refuses it before anything runs.
    const unsortable = await ownGql(LIST, { sort: { field: 'WEBSITE' } });
    expect(unsortable.status).toBe(400);
    expect(unsortable.body.data).toBeUndefined();
    expect(unsortable.body.errors![0].message).toContain('CustomerSortField');
    const twoFields = await ownGql(LIST, { sort: [{ field: 'ORGANIZATION' }, { field: 'NUMBER' }] });
    expect(twoFields.status).toBe(400);
    expect(twoFields.body.data).toBeUndefined();
    expect(await errorOf({ filter: { createdAtGte: 'last tuesday' } })).toMatchObject({ code: 'filter.invalid', status: 400 });
    expect(await errorOf({ filter: { customFields: [{ id: '01a1fe4d-11c6-7d2f-9ac3-0e3240b7c556', value: 'x' }] } })).toMatchObject({ code: 'filter.invalid' });
    expect(await errorOf({ after: 'garbage.cursor' })).toMatchObject({ code: 'cursor.invalid', status: 400 });
    const first = await list({ first: 1, filter: { q: 'a' } });
    const tampered = `${first.pageInfo.endCursor!.slice(0, -2)}AA`;
    expect(await errorOf({ first: 1, filter: { q: 'a' }, after: tampered })).toMatchObject({ code: 'cursor.invalid' });
    expect(await errorOf({ first: 1, filter: { q: 'e' }, after: first.pageInfo.endCursor })).toMatchObject({ code: 'cursor.invalid_filters' });
  });

  it('answers cursor.expired, as REST does, for a cursor older than 24 hours', async () => {
    const DAY_MS = 24 * 60 * 60 * 1000;
    const cursor = (await list({ first: 2 })).pageInfo.endCursor!;
    let moved = 0;
    const advance = (ms: number) => {
      clock.advance(ms);
      moved += ms;
    };
    try {
      advance(DAY_MS - 60_000);
      expect((await list({ first: 2, after: cursor })).nodes).toHaveLength(2);
      advance(60_000 + 1_000);
      const expired = await ownGql(LIST, { first: 2, after: cursor });
      expect(expired.status).toBe(200);
      expect(expired.body.data.customers).toBeNull();
      expect(expired.body.errors![0]).toMatchObject({ path: ['customers'], extensions: { code: 'cursor.expired', status: 400 } });
      expect((await ownRest.get(`/customers?limit=2&cursor=${encodeURIComponent(cursor)}`)).body.code).toBe('cursor.expired');
      // A fresh first page issues a cursor that works again.
      const fresh = (await list({ first: 2 })).pageInfo.endCursor!;
      expect((await list({ first: 2, after: fresh })).nodes.length).toBeGreaterThan(0);
    } finally {
      clock.advance(-moved);
    }
  });
});
