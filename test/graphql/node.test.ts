import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { ok } from '../helpers/graphql.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { deleteRecord } from '../helpers/factories/records.ts';
import { createPlace } from '../helpers/factories/sites.ts';

// node(id) and nodes(ids): any record by its id alone (Relay refetching, agents holding bare ids).

const t = useTestApp();
const { tenant, api, gql } = useTenant(t);
const other = useTenant(t);

describe('node and nodes', () => {
  it('node(id) answers the record of any resource by its id, typed by its resource, with its ETag', async () => {
    const { customer, site } = await createPlace(api);
    const job = await createJob(api, { site_id: site.id, title: 'Refetch me' });
    const read = ok(
      await gql(`query($c: ID!, $j: ID!) {
        c: node(id: $c) { __typename id ... on Customer { organization etag } }
        j: node(id: $j) { __typename id ... on Job { title lineitems { nodes { id } } site { id } } }
      }`, { c: customer.id, j: job.id.toUpperCase() }),
    );
    expect(read.c).toEqual({ __typename: 'Customer', id: customer.id, organization: customer.record.organization, etag: customer.etag });
    expect(read.j).toEqual({ __typename: 'Job', id: job.id, title: 'Refetch me', lineitems: { nodes: [] }, site: { id: site.id } });
  });

  it("nodes(ids) keeps the order given and answers null for unknown, deleted, malformed and other accounts' ids", async () => {
    const { customer, site } = await createPlace(api);
    const gone = await createPlace(api);
    await deleteRecord(api, 'sites', gone.site.id);
    const foreign = await createPlace(other.api);
    const ids = [site.id, '01900000-0000-7000-8000-000000000000', gone.site.id, 'not-a-uuid', foreign.customer.id, customer.id];
    const read = ok(await gql(`query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, { ids }));
    expect(read.nodes).toEqual([{ __typename: 'Site', id: site.id }, null, null, null, null, { __typename: 'Customer', id: customer.id }]);
  });

  it('a record whose resource the key may not read is null with auth.scope_missing; the others stand', async () => {
    const { customer, site } = await createPlace(api);
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['sites:read'] });
    const res = await t.graphql(key.token)(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [customer.id, site.id] });
    expect(res.body.data.nodes).toEqual([null, { id: site.id }]);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({ path: ['nodes', 0], extensions: { code: 'auth.scope_missing', requiredScope: 'customers:read' } });
  });

  it('nodes takes at most 100 ids (pagination.limit_too_large)', async () => {
    const ids = Array.from({ length: 101 }, () => '01900000-0000-7000-8000-000000000000');
    const res = await gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids });
    expect(res.body.errors![0].extensions).toMatchObject({ code: 'pagination.limit_too_large', maxLimit: 100 });
  });
});
