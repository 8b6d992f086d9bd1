import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Deals and tasks over GraphQL: the generated types, lists with their filters and mutations with userErrors (the
// same rules and codes as REST), and the relations both ways: Deal.customer / lead / owner / estimates / tasks,
// Customer.deals, Lead.deals, Estimate.deal, Task.assignee, Task.taskable (a union over the taskable types) and
// tasks on each taskable type; each needs the read scope of what it returns.

const t = useTestApp({ rateLimits: highRateLimits });

const DEAL_FIELDS = 'id number name customerId leadId valueAmount expectedCloseDate probabilityPercent ownerId status labels customFields etag';
const CREATE_DEAL = `mutation($input: CreateDealInput!) { createDeal(input: $input) { deal { ${DEAL_FIELDS} } ${USER_ERRORS} } }`;
const TASK_FIELDS = 'id number title priority dueDate assigneeId taskableType taskableId status completedAt etag';
const CREATE_TASK = `mutation($input: CreateTaskInput!) { createTask(input: $input) { task { ${TASK_FIELDS} } ${USER_ERRORS} } }`;

describe('deals over GraphQL', () => {
  it('createDeal, updateDeal and deleteDeal serve the record as REST does, with userErrors naming both parties or a bad value', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const customer = await make.customer(`Org ${Math.random()}`);
    const created = ok(await gql(CREATE_DEAL, { input: { name: 'Chiller', customerId: customer.id, valueAmount: '900.5', probabilityPercent: 30, ownerId: tenant.userId, expectedCloseDate: '2026-10-01' } })).createDeal;
    expect(created.userErrors).toEqual([]);
    const deal = created.deal;
    expect(deal).toMatchObject({ name: 'Chiller', customerId: customer.id, leadId: null, valueAmount: '900.50', probabilityPercent: 30, status: 'Prospecting' });
    const rest = await t.client(tenant.token).get(`/deals/${deal.id}`);
    expect(rest.body.data).toMatchObject({ id: deal.id, value_amount: '900.50', probability_percent: 30, owner_id: tenant.userId });
    expect(deal.etag).toBe(rest.headers.get('etag'));

    expectError(await gql(CREATE_DEAL, { input: { name: 'Nobody' } }), 'validation.failed', [['input', 'customerId'], ['input', 'leadId']]);
    expectError(await gql(CREATE_DEAL, { input: { name: 'Odds', customerId: customer.id, probabilityPercent: 150 } }), 'validation.failed', [['input', 'probabilityPercent']]);

    const updated = ok(
      await gql(`mutation($id: ID!, $m: String) { updateDeal(id: $id, ifMatch: $m, input: { status: "Won", valueAmount: "1000" }) { deal { status valueAmount } etag ${USER_ERRORS} } }`, { id: deal.id, m: deal.etag }),
    ).updateDeal;
    expect(updated).toMatchObject({ deal: { status: 'Won', valueAmount: '1000.00' }, userErrors: [] });
    const listed = ok(await gql(`{ deals(filter: { status: "Won", valueAmountGte: "999.99", valueAmountLt: 1000.01 }) { nodes { id } } }`)).deals.nodes;
    expect(listed).toEqual([{ id: deal.id }]);
    expect(ok(await gql(`{ deals(filter: { valueAmountGt: "1000" }) { nodes { id } } }`)).deals.nodes).toEqual([]);
    const deleted = ok(await gql(`mutation($id: ID!, $m: String) { deleteDeal(id: $id, ifMatch: $m) { deletedId ${USER_ERRORS} } }`, { id: deal.id, m: updated.etag })).deleteDeal;
    expect(deleted).toEqual({ deletedId: deal.id, userErrors: [] });
    expectError(await gql(`query($id: ID!) { deal(id: $id) { id } }`, { id: deal.id }), 'resource.not_found', 404);
  });

  it('Deal.customer / lead / owner / estimates / tasks, Customer.deals, Lead.deals and Estimate.deal resolve both ways; each needs the read scope of what it returns', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const customer = await make.customer(`Org ${Math.random()}`);
    const site = await make.site(customer, 'CUSTOMER', 'HQ');
    const lead = ok(await gql(`mutation { createLead(input: { organization: "Prospect Co" }) { lead { id } } }`)).createLead.lead;
    const deal = ok(await gql(CREATE_DEAL, { input: { name: 'Boilers', customerId: customer.id, ownerId: tenant.userId } })).createDeal.deal;
    const leadDeal = ok(await gql(CREATE_DEAL, { input: { name: 'Maybe', leadId: lead.id } })).createDeal.deal;
    const estimate = ok(
      await gql(`mutation($input: CreateEstimateInput!) { createEstimate(input: $input) { estimate { id dealId } ${USER_ERRORS} } }`, { input: { customerId: customer.id, siteId: site.id, dealId: deal.id } }),
    ).createEstimate;
    expect(estimate).toMatchObject({ estimate: { dealId: deal.id }, userErrors: [] });
    const refused = await gql(`mutation($input: CreateEstimateInput!) { createEstimate(input: $input) { estimate { id } ${USER_ERRORS} } }`, { input: { customerId: customer.id, siteId: site.id, dealId: leadDeal.id } });
    expectError(refused, 'validation.failed', [['input', 'dealId']]);
    const task = ok(await gql(CREATE_TASK, { input: { title: 'Call back', taskableType: 'DEAL', taskableId: deal.id } })).createTask.task;

    const read = ok(
      await gql(`query($d: ID!, $c: ID!, $l: ID!, $e: ID!) {
        deal(id: $d) { customer { id } lead { id } owner { id } estimates { nodes { id } } tasks { nodes { id } } }
        customer(id: $c) { deals { nodes { id } } }
        lead(id: $l) { deals { nodes { id lead { id } } } }
        estimate(id: $e) { deal { id name } }
      }`, { d: deal.id, c: customer.id, l: lead.id, e: estimate.estimate.id }),
    );
    expect(read.deal).toEqual({ customer: { id: customer.id }, lead: null, owner: { id: tenant.userId }, estimates: { nodes: [{ id: estimate.estimate.id }] }, tasks: { nodes: [{ id: task.id }] } });
    expect(read.customer.deals.nodes).toEqual([{ id: deal.id }]);
    expect(read.lead.deals.nodes).toEqual([{ id: leadDeal.id, lead: { id: lead.id } }]);
    expect(read.estimate.deal).toEqual({ id: deal.id, name: 'Boilers' });

    const dealsOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['deals:read'] });
    const res = await t.graphql(dealsOnly.token)(`query($d: ID!) { deal(id: $d) { name customer { id } } }`, { d: deal.id });
    expect(res.body.data.deal).toEqual({ name: 'Boilers', customer: null });
    expect(res.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'customers:read' })]);
    const customersOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] });
    const other = await t.graphql(customersOnly.token)(`query($c: ID!) { customer(id: $c) { deals { nodes { id } } } }`, { c: customer.id });
    expect(other.body.data.customer).toEqual({ deals: null });
    expect(other.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'deals:read' })]);
  });
});

describe('tasks over GraphQL', () => {
  it('createTask and updateTask: priority and taskable type as enums, the parent pair checked (userErrors), completedAt following Done', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const customer = await make.customer(`Org ${Math.random()}`);
    const created = ok(await gql(CREATE_TASK, { input: { title: 'Inspect', priority: 'URGENT', dueDate: '2026-08-01', assigneeId: tenant.userId, taskableType: 'CUSTOMER', taskableId: customer.id } })).createTask;
    expect(created.userErrors).toEqual([]);
    expect(created.task).toMatchObject({ title: 'Inspect', priority: 'URGENT', taskableType: 'CUSTOMER', taskableId: customer.id, status: 'Open', completedAt: null });
    expectError(await gql(CREATE_TASK, { input: { title: 'Half', taskableType: 'CUSTOMER' } }), 'validation.failed', [['input', 'taskableId']]);
    expectError(await gql(CREATE_TASK, { input: { title: 'Wrong', taskableType: 'LEAD', taskableId: customer.id } }), 'validation.failed', [['input', 'taskableId']]);

    const done = ok(
      await gql(`mutation($id: ID!, $m: String) { updateTask(id: $id, ifMatch: $m, input: { status: "Done" }) { task { status completedAt } ${USER_ERRORS} } }`, { id: created.task.id, m: created.task.etag }),
    ).updateTask;
    expect(done.userErrors).toEqual([]);
    expect(done.task.completedAt).toEqual(expect.any(String));
    const listed = ok(await gql(`query($c: ID!) { tasks(filter: { taskableType: CUSTOMER, taskableId: $c, status: "Done", priorityIn: [URGENT] }) { nodes { id } } }`, { c: customer.id })).tasks.nodes;
    expect(listed).toEqual([{ id: created.task.id }]);
    expect(ok(await gql(`{ tasks(sort: { field: PRIORITY, direction: DESC }) { nodes { priority } } }`)).tasks.nodes[0]).toEqual({ priority: 'URGENT' });
  });

  it('Task.taskable resolves to the record of its type (a union), Task.assignee to the user, and each taskable type lists its tasks', async () => {
    const { tenant, gql, make } = await graphqlTenant(t);
    const customer = await make.customer(`Org ${Math.random()}`);
    const site = await make.site(customer, 'CUSTOMER', 'HQ');
    const lead = ok(await gql(`mutation { createLead(input: { organization: "Union Lead" }) { lead { id } } }`)).createLead.lead;
    const onCustomer = ok(await gql(CREATE_TASK, { input: { title: 'A', taskableType: 'CUSTOMER', taskableId: customer.id, assigneeId: tenant.userId } })).createTask.task;
    const onSite = ok(await gql(CREATE_TASK, { input: { title: 'B', taskableType: 'SITE', taskableId: site.id } })).createTask.task;
    const onLead = ok(await gql(CREATE_TASK, { input: { title: 'C', taskableType: 'LEAD', taskableId: lead.id } })).createTask.task;
    const loose = ok(await gql(CREATE_TASK, { input: { title: 'D' } })).createTask.task;
    const read = ok(
      await gql(`{ tasks(sort: { field: TITLE }) { nodes { id assignee { id } taskable { __typename ... on Customer { organization } ... on Site { siteName } ... on Lead { leadOrganization: organization } } } } }`),
    ).tasks.nodes;
    expect(read).toEqual([
      { id: onCustomer.id, assignee: { id: tenant.userId }, taskable: { __typename: 'Customer', organization: expect.stringMatching(/^Org /) } },
      { id: onSite.id, assignee: null, taskable: { __typename: 'Site', siteName: 'HQ' } },
      { id: onLead.id, assignee: null, taskable: { __typename: 'Lead', leadOrganization: 'Union Lead' } },
      { id: loose.id, assignee: null, taskable: null },
    ]);
    const parents = ok(
      await gql(`query($c: ID!, $s: ID!, $l: ID!) { customer(id: $c) { tasks { nodes { id } } } site(id: $s) { tasks { nodes { id } } } lead(id: $l) { tasks { nodes { id } } } }`, { c: customer.id, s: site.id, l: lead.id }),
    );
    expect(parents).toEqual({ customer: { tasks: { nodes: [{ id: onCustomer.id }] } }, site: { tasks: { nodes: [{ id: onSite.id }] } }, lead: { tasks: { nodes: [{ id: onLead.id }] } } });
    const tasksOnly = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['tasks:read'] });
    const res = await t.graphql(tasksOnly.token)(`query($id: ID!) { task(id: $id) { title taskable { __typename } } }`, { id: onCustomer.id });
    expect(res.body.data.task).toEqual({ title: 'A', taskable: null });
    expect(res.body.errors?.map((error) => error.extensions)).toEqual([expect.objectContaining({ code: 'auth.scope_missing', requiredScope: 'customers:read' })]);
  });
});
