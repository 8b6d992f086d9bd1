import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { ok } from '../helpers/graphql.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { readRecord } from '../helpers/factories/records.ts';
import { createPlace } from '../helpers/factories/sites.ts';

// Every record type carries its ETag wherever it appears (by id, in lists, through relations, on the dispatch
// board), the same ETag REST sends for the record, so a client can update what it has just read.

const t = useTestApp();
const { api, gql } = useTenant(t);

describe('status filters', () => {
  it('follow one rule on both APIs: a status no record holds (never configured, misspelt, deleted) matches nothing', async () => {
    const { site } = await createPlace(api);
    const job = await createJob(api, { site_id: site.id, title: 'Boiler service' });
    const status = String((await api.get(`/jobs/${job.id}`)).body.data.status);
    const viaGraphql = ok(await gql(`{ jobs(filter: { statusIn: ["Bogus", "${status}"] }) { nodes { id } } }`)).jobs.nodes.map((node: { id: string }) => node.id);
    const viaRest = (await api.get(`/jobs?status[in]=Bogus,${encodeURIComponent(status)}`)).body.data.map((record: { id: string }) => record.id);
    expect(viaGraphql).toEqual([job.id]);
    expect(viaRest).toEqual(viaGraphql);
    expect(ok(await gql(`{ jobs(filter: { status: "Bogus" }) { nodes { id } } }`)).jobs.nodes).toEqual([]);
    expect((await api.get('/jobs?status=Bogus')).body.data).toEqual([]);
  });
});

describe('ETags everywhere', () => {
  it('lists, relations and the board serve the ETag REST sends, and it updates the record without another read', async () => {
    const { customer, site } = await createPlace(api);
    const job = await createJob(api, { site_id: site.id, title: 'Boiler service', scheduled_start: '2026-12-01T09:00:00Z', scheduled_end: '2026-12-01T10:00:00Z' });
    const rest = {
      customer: (await readRecord(api, 'customers', customer.id)).etag,
      site: (await readRecord(api, 'sites', site.id)).etag,
      job: (await readRecord(api, 'jobs', job.id)).etag,
    };

    const read = ok(
      await gql(`query($id: ID!) {
        customers(first: 5) { nodes { id etag } }
        customer(id: $id) { etag sites { nodes { etag } } jobs { edges { node { etag site { etag } } } } }
        dispatchBoard(from: "2026-12-01T00:00:00Z", to: "2026-12-02T00:00:00Z") { jobs { id etag customer { etag } } }
      }`, { id: customer.id }),
    );
    expect(read.customers.nodes.find((node: { id: string }) => node.id === customer.id).etag).toBe(rest.customer);
    expect(read.customer).toEqual({ etag: rest.customer, sites: { nodes: [{ etag: rest.site }] }, jobs: { edges: [{ node: { etag: rest.job, site: { etag: rest.site } } }] } });
    expect(read.dispatchBoard.jobs).toEqual([{ id: job.id, etag: rest.job, customer: { etag: rest.customer } }]);

    const moved = ok(
      await gql(`mutation($id: ID!, $m: String) { updateJob(id: $id, ifMatch: $m, input: { scheduledStart: "2026-12-01T11:00:00Z", scheduledEnd: "2026-12-01T12:00:00Z" }) { etag job { etag scheduledStart } } }`, {
        id: job.id,
        m: read.dispatchBoard.jobs[0].etag,
      }),
    ).updateJob;
    expect(moved.job.etag).toBe(moved.etag);
    expect(moved.etag).not.toBe(rest.job);
    expect((await readRecord(api, 'jobs', job.id)).etag).toBe(moved.etag);
  });
});
