import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Assets over GraphQL: the generated type, list and mutations with userErrors (the same rules as REST), a job's
// assetIds (a list of ids, written as a snapshot), and the relations both ways: Asset.site, customer, system,
// jobs and serviceHistory; Site.assets, Customer.assets, System.assets and Job.assets, each needing the read scope
// of what it returns.

const t = useTestApp({ rateLimits: highRateLimits });

const ASSET_FIELDS = 'id siteId customerId systemId name make model serialNumber installDate warrantyExpiresOn locationNote status labels customFields etag';
const CREATE_ASSET = `mutation($input: CreateAssetInput!) { createAsset(input: $input) { asset { ${ASSET_FIELDS} } ${USER_ERRORS} } }`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id assetIds etag } ${USER_ERRORS} } }`;

async function place(gql: Awaited<ReturnType<typeof graphqlTenant>>['gql'], make: Awaited<ReturnType<typeof graphqlTenant>>['make'], name: string) {
  const customer = await make.customer(name);
  const site = await make.site(customer, 'CUSTOMER', `${name} HQ`);
  const system = ok(await gql(`mutation($input: CreateSystemInput!) { createSystem(input: $input) { system { id } ${USER_ERRORS} } }`, { input: { siteId: site.id, systemType: 'HVAC', name: 'Main HVAC' } })).createSystem.system;
  return { customer, site, system };
}

describe('assets over GraphQL', () => {
  it('createAsset, updateAsset and deleteAsset serve the record as REST does, with userErrors for the same rules', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const { customer, site, system } = await place(gql, make, 'Graph Plaza');
    const created = ok(
      await gql(CREATE_ASSET, { input: { siteId: site.id, systemId: system.id, name: 'Condenser', serialNumber: 'CN-1', installDate: '2023-04-01', warrantyExpiresOn: '2028-04-01' } }),
    ).createAsset;
    expect(created.userErrors).toEqual([]);
    const asset = created.asset;
    expect(asset).toMatchObject({ siteId: site.id, customerId: customer.id, systemId: system.id, name: 'Condenser', status: 'Active', labels: [], customFields: {} });
    const rest = await t.client(tenant.token).get(`/assets/${asset.id}`);
    expect(rest.body.data).toMatchObject({ id: asset.id, customer_id: customer.id, serial_number: 'CN-1', install_date: '2023-04-01', warranty_expires_on: '2028-04-01' });
    expect(asset.etag).toBe(rest.headers.get('etag'));

    expectError(await gql(CREATE_ASSET, { input: { siteId: site.id, name: 'Twin', serialNumber: 'cn-1' } }), 'validation.failed', [['input', 'serialNumber']]);
    expectError(await gql(CREATE_ASSET, { input: { siteId: site.id, name: 'Early', installDate: '2024-01-02', warrantyExpiresOn: '2024-01-01' } }), 'validation.failed', [['input', 'warrantyExpiresOn']]);
    const other = await place(gql, make, 'Elsewhere Inc');
    expectError(await gql(CREATE_ASSET, { input: { siteId: site.id, name: 'Stray', systemId: other.system.id } }), 'validation.failed', [['input', 'systemId']]);

    const updated = ok(
      await gql(`mutation($id: ID!, $m: String) { updateAsset(id: $id, ifMatch: $m, input: { status: "Retired", locationNote: "Roof" }) { asset { status locationNote } etag ${USER_ERRORS} } }`, {
        id: asset.id,
        m: asset.etag,
      }),
    ).updateAsset;
    expect(updated).toMatchObject({ asset: { status: 'Retired', locationNote: 'Roof' }, userErrors: [] });
    const listed = ok(await gql(`query($c: ID!) { assets(filter: { customerId: $c, warrantyExpiresOnGte: "2028-01-01" }) { nodes { id } } }`, { c: customer.id })).assets.nodes;
    expect(listed).toEqual([{ id: asset.id }]);
    const deleted = ok(await gql(`mutation($id: ID!, $m: String) { deleteAsset(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: asset.id, m: updated.etag })).deleteAsset;
    expect(deleted).toEqual({ deletedId: asset.id, userErrors: [] });
    expectError(await gql(`query($id: ID!) { asset(id: $id) { id } }`, { id: asset.id }), 'resource.not_found', 404);
  });

  it("a job's assetIds: written on create and as a snapshot on update (the ETag changes), refused with a userError naming the entry", async () => {
    const { gql, make } = await graphqlTenant(t);
    const { customer, site } = await place(gql, make, 'Snapshot Co');
    const a = ok(await gql(CREATE_ASSET, { input: { siteId: site.id, name: 'A' } })).createAsset.asset;
    const b = ok(await gql(CREATE_ASSET, { input: { siteId: site.id, name: 'B' } })).createAsset.asset;
    const elsewhere = await place(gql, make, 'Other Site Co');
    const stray = ok(await gql(CREATE_ASSET, { input: { siteId: elsewhere.site.id, name: 'Stray' } })).createAsset.asset;
    const job = ok(await gql(CREATE_JOB, { input: { customerId: customer.id, siteId: site.id, assetIds: [b.id, a.id] } })).createJob;
    expect(job).toMatchObject({ job: { assetIds: [b.id, a.id] }, userErrors: [] });
    const UPDATE = `mutation($id: ID!, $m: String, $ids: [ID!]) { updateJob(id: $id, ifMatch: $m, input: { assetIds: $ids }) { job { assetIds } etag ${USER_ERRORS} } }`;
    const same = ok(await gql(UPDATE, { id: job.job.id, m: job.job.etag, ids: [b.id, a.id] })).updateJob;
    expect(same.job.assetIds).toEqual([b.id, a.id]);
    expect(same.etag).not.toBe(job.job.etag);
    const refused = expectError(await gql(UPDATE, { id: job.job.id, m: same.etag, ids: [a.id, stray.id] }), 'validation.failed', [['input', 'assetIds', '1']]);
    expect(refused[0].message).toMatch(/another site/);
    const filtered = ok(await gql(`query($a: ID!) { jobs(filter: { assetId: $a }) { nodes { id } } }`, { a: a.id })).jobs.nodes;
    expect(filtered).toEqual([{ id: job.job.id }]);
  });

  it('relations both ways: Asset.site, customer, system, jobs and serviceHistory; Site, Customer, System and Job .assets; each needs the read scope of what it returns', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const { customer, site, system } = await place(gql, make, 'Relations Ltd');
    const asset = ok(await gql(CREATE_ASSET, { input: { siteId: site.id, systemId: system.id, name: 'Boiler' } })).createAsset.asset;
    const later = ok(await gql(CREATE_JOB, { input: { customerId: customer.id, siteId: site.id, assetIds: [asset.id], scheduledStart: '2026-05-01T09:00:00Z' } })).createJob.job;
    const earlier = ok(await gql(CREATE_JOB, { input: { customerId: customer.id, siteId: site.id, assetIds: [asset.id], scheduledStart: '2026-01-01T09:00:00Z' } })).createJob.job;
    const unscheduled = ok(await gql(CREATE_JOB, { input: { customerId: customer.id, siteId: site.id, assetIds: [asset.id] } })).createJob.job;
    await gql(CREATE_JOB, { input: { customerId: customer.id, siteId: site.id } });

    const read = ok(
      await gql(`query($id: ID!) { asset(id: $id) { site { id } customer { id } system { id } jobs { nodes { id } } serviceHistory { nodes { id scheduledStart } } } }`, { id: asset.id }),
    ).asset;
    expect(read).toMatchObject({ site: { id: site.id }, customer: { id: customer.id }, system: { id: system.id } });
    expect(read.jobs.nodes.map((j: { id: string }) => j.id)).toEqual([later.id, earlier.id, unscheduled.id]);
    expect(read.serviceHistory.nodes.map((j: { id: string }) => j.id)).toEqual([later.id, earlier.id, unscheduled.id]);

    const back = ok(
      await gql(`query($s: ID!, $c: ID!, $y: ID!, $j: ID!) { site(id: $s) { assets { nodes { id } } } customer(id: $c) { assets { nodes { id } } } system(id: $y) { assets { nodes { id } } } job(id: $j) { assets { nodes { id name } } } }`, {
        s: site.id,
        c: customer.id,
        y: system.id,
        j: earlier.id,
      }),
    );
    expect(back.site.assets.nodes).toEqual([{ id: asset.id }]);
    expect(back.customer.assets.nodes).toEqual([{ id: asset.id }]);
    expect(back.system.assets.nodes).toEqual([{ id: asset.id }]);
    expect(back.job.assets.nodes).toEqual([{ id: asset.id, name: 'Boiler' }]);

    const jobsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const res = await t.graphql(jobsOnly.token)(`query($j: ID!) { job(id: $j) { assetIds assets { nodes { id } } } }`, { j: earlier.id });
    expect(res.body.data.job).toEqual({ assetIds: [asset.id], assets: null });
    expect(res.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'assets:read' })]);
    const assetsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['assets:read'] });
    const other = await t.graphql(assetsOnly.token)(`query($a: ID!) { asset(id: $a) { name serviceHistory { nodes { id } } } }`, { a: asset.id });
    expect(other.body.data.asset).toEqual({ name: 'Boiler', serviceHistory: null });
    expect(other.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'jobs:read' })]);
  });
});
