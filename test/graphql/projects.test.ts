import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Projects over GraphQL: the generated type and mutations with userErrors (the same rules as REST), the team as
// userIds (a snapshot that changes the ETag), jobs and estimates naming projectId, and the relations: Project.jobs,
// estimates, team, customer, site and rollup (jobs count and invoiced amount, computed when selected),
// Customer.projects and Job.project / Estimate.project.

const t = useTestApp({ rateLimits: highRateLimits });

const CREATE_PROJECT = `mutation($input: CreateProjectInput!) { createProject(input: $input) { project { id number name status customerId siteId userIds budgetAmount etag } ${USER_ERRORS} } }`;

describe('projects over GraphQL', () => {
  it('createProject and updateProject with userIds; userErrors name the field or the entry', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Project Co');
    const site = await make.site(customer, 'CUSTOMER', 'Project HQ');
    const other = await make.customer('Other Co');
    const created = ok(await gql(CREATE_PROJECT, { input: { name: 'Refit', customerId: customer.id, siteId: site.id, budgetAmount: '5000', userIds: [tenant.userId] } })).createProject;
    expect(created.userErrors).toEqual([]);
    expect(created.project).toMatchObject({ name: 'Refit', status: 'Planned', customerId: customer.id, siteId: site.id, userIds: [tenant.userId], budgetAmount: '5000.00' });
    const rest = await t.client(tenant.token).get(`/projects/${created.project.id}`);
    expect(rest.body.data).toMatchObject({ number: created.project.number, user_ids: [tenant.userId] });
    expect(rest.headers.get('etag')).toBe(created.project.etag);
    expectError(await gql(CREATE_PROJECT, { input: { name: 'Stray', customerId: other.id, siteId: site.id } }), 'validation.failed', [['input', 'siteId']]);
    expectError(await gql(CREATE_PROJECT, { input: { name: 'Late', customerId: customer.id, startDate: '2026-02-02', endDate: '2026-02-01' } }), 'validation.failed', [['input', 'endDate']]);
    const UPDATE = `mutation($id: ID!, $m: String, $ids: [SafeInt!]) { updateProject(id: $id, ifMatch: $m, input: { userIds: $ids }) { project { userIds } etag ${USER_ERRORS} } }`;
    const same = ok(await gql(UPDATE, { id: created.project.id, m: created.project.etag, ids: [tenant.userId] })).updateProject;
    expect(same.project.userIds).toEqual([tenant.userId]);
    expect(same.etag).not.toBe(created.project.etag);
    expectError(await gql(UPDATE, { id: created.project.id, m: same.etag, ids: [tenant.userId, 987654] }), 'validation.failed', [['input', 'userIds', '1']]);
  });

  it('relations: Project.jobs, estimates, team, customer and rollup; Customer.projects, Job.project and Estimate.project', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const customer = await make.customer('Rollup Co');
    const site = await make.site(customer, 'CUSTOMER', 'Rollup HQ');
    const project = ok(await gql(CREATE_PROJECT, { input: { name: 'Campus', customerId: customer.id, userIds: [tenant.userId] } })).createProject.project;
    const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { job { id projectId } ${USER_ERRORS} } }`;
    const lines = [{ description: 'Labour', quantity: '2', unitPrice: '50' }];
    const first = ok(await gql(CREATE_JOB, { input: { siteId: site.id, projectId: project.id, lineitems: lines } })).createJob.job;
    const second = ok(await gql(CREATE_JOB, { input: { siteId: site.id, projectId: project.id } })).createJob.job;
    expect(first.projectId).toBe(project.id);
    const estimate = ok(await gql(`mutation($input: CreateEstimateInput!) { createEstimate(input: $input) { estimate { id } ${USER_ERRORS} } }`, { input: { siteId: site.id, projectId: project.id } })).createEstimate.estimate;
    const invoiced = await t.client(tenant.token).post(`/jobs/${first.id}/invoice`, undefined, { headers: { 'idempotency-key': randomUUID() } });
    expect(invoiced.status, invoiced.text).toBe(201);

    const read = ok(
      await gql(`query($id: ID!) { project(id: $id) { customer { id } jobs { nodes { id } } estimates { nodes { id } } team { nodes { id } } rollup { jobsCount invoicedAmount } } }`, { id: project.id }),
    ).project;
    expect(read).toEqual({
      customer: { id: customer.id },
      jobs: { nodes: [{ id: first.id }, { id: second.id }] },
      estimates: { nodes: [{ id: estimate.id }] },
      team: { nodes: [{ id: tenant.userId }] },
      rollup: { jobsCount: 2, invoicedAmount: invoiced.body.data.invoice.amount },
    });
    const back = ok(
      await gql(`query($c: ID!, $j: ID!, $e: ID!) { customer(id: $c) { projects { nodes { id } } } job(id: $j) { project { id name } } estimate(id: $e) { project { id } } }`, {
        c: customer.id,
        j: second.id,
        e: estimate.id,
      }),
    );
    expect(back).toEqual({ customer: { projects: { nodes: [{ id: project.id }] } }, job: { project: { id: project.id, name: 'Campus' } }, estimate: { project: { id: project.id } } });
    const listed = ok(await gql(`query($p: ID!) { jobs(filter: { projectId: $p }) { nodes { id } } }`, { p: project.id })).jobs.nodes;
    expect(listed.map((j: { id: string }) => j.id).sort()).toEqual([first.id, second.id].sort());
    const jobsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read'] });
    const res = await t.graphql(jobsOnly.token)(`query($j: ID!) { job(id: $j) { projectId project { id } } }`, { j: second.id });
    expect(res.body.data.job).toEqual({ projectId: project.id, project: null });
    expect(res.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'projects:read' })]);
  });
});
