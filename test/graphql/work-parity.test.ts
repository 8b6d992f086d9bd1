import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { tenantWith } from '../helpers/factories/accounts.ts';
import { camelRecord, failed, fieldsOf, type Gql, type GraphqlResponse, graphqlRecord, ok, records, succeeded, USER_ERRORS } from '../helpers/graphql.ts';
import { StatementLog, verifyEveryRequest } from '../helpers/statements.ts';

// Jobs and estimates over GraphQL follow the same rules as over REST (they run the same services): module
// settings and the ownership of site and system, the status, number, labels and custom field conventions, line
// items as a snapshot with customer pricing, list filters and q, tenancy, and the system options catalog with
// the System.systemOption / Site.systemOption relations (batched). Errors carry the REST codes: a mutation's
// input errors in its payload's userErrors (validation.failed naming the GraphQL field path), others in
// extensions.code.

const statements = new StatementLog();
const t = useTestApp({ onQuery: statements.onQuery, rateLimits: highRateLimits, env: verifyEveryRequest });
const { tenant, gql, api: rest } = useTenant(t);

const LINE = 'id itemId description quantity unitPrice discount taxRateId taxable laborVisible discountAmount taxAmount lineTotal taxApplied';
const JOB = `id number status title customerId siteId systemId scheduledStart amount labels customFields lineitems { nodes { ${LINE} } } assignments { nodes { userId } } updatedAt`;
const ESTIMATE = `id number status title customerId siteId systemId amount labels customFields lineitems { nodes { ${LINE} } } updatedAt`;
const CREATE_JOB = `mutation($input: CreateJobInput!) { createJob(input: $input) { etag job { ${JOB} } ${USER_ERRORS} } }`;
const UPDATE_JOB = `mutation($id: ID!, $ifMatch: String, $input: UpdateJobInput!) { updateJob(id: $id, ifMatch: $ifMatch, input: $input) { etag job { ${JOB} } ${USER_ERRORS} } }`;
const CREATE_ESTIMATE = `mutation($input: CreateEstimateInput!) { createEstimate(input: $input) { etag estimate { ${ESTIMATE} } ${USER_ERRORS} } }`;
const UPDATE_ESTIMATE = `mutation($id: ID!, $ifMatch: String, $input: UpdateEstimateInput!) { updateEstimate(id: $id, ifMatch: $ifMatch, input: $input) { etag estimate { ${ESTIMATE} } ${USER_ERRORS} } }`;

type Kind = 'job' | 'estimate';
const kinds: Kind[] = ['job', 'estimate'];
const documents = { job: { create: CREATE_JOB, update: UPDATE_JOB }, estimate: { create: CREATE_ESTIMATE, update: UPDATE_ESTIMATE } };
const capital = (kind: Kind) => (kind === 'job' ? 'Job' : 'Estimate');

interface Written {
  id: string;
  etag: string;
  record: Record<string, any>;
}

async function create(g: Gql, kind: Kind, input: Record<string, unknown>): Promise<Written> {
  const data = succeeded(await g(documents[kind].create, { input }))[`create${capital(kind)}`];
  return { id: data[kind].id, etag: data.etag, record: data[kind] };
}

async function update(g: Gql, kind: Kind, current: { id: string; etag: string }, input: Record<string, unknown>): Promise<Written> {
  const data = succeeded(await g(documents[kind].update, { id: current.id, ifMatch: current.etag, input }))[`update${capital(kind)}`];
  return { id: data[kind].id, etag: data.etag, record: data[kind] };
}

/**
 * The fields the validation.failed userErrors of a mutation name, as paths below its input argument, sorted and
 * each once (["input", "lineitems", "0", "id"] is lineitems.0.id); each message starts with that path.
 */
function invalidFields(res: GraphqlResponse): string[] {
  const paths = failed(res, 'validation.failed').map((error) => {
    expect(error.field?.[0], JSON.stringify(error)).toBe('input');
    const path = error.field!.slice(1).join('.');
    expect(error.message.startsWith(`${path} `), JSON.stringify(error)).toBe(true);
    return path;
  });
  return [...new Set(paths)].sort();
}

let counter = 0;
/** A customer (optionally with fields such as priceAdjustment) with one site, made over GraphQL. */
async function place(g: Gql = gql, customer: Record<string, unknown> = {}, site: Record<string, unknown> = {}): Promise<{ customerId: string; siteId: string }> {
  counter += 1;
  const created = ok(
    await g(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }`, {
      input: { organization: `Parity Org ${counter} ${randomUUID().slice(0, 8)}`, ...customer },
    }),
  ).createCustomer.customer.id;
  const made = await records(g).site({ id: created }, 'CUSTOMER', `Parity Site ${counter}`, site);
  return { customerId: created, siteId: made.id };
}

async function system(g: Gql, siteId: string, input: Record<string, unknown> = {}): Promise<string> {
  counter += 1;
  return ok(
    await g(`mutation($input: CreateSystemInput!) { createSystem(input: $input) { system { id } } }`, {
      input: { siteId, systemType: `Type ${counter}`, name: `Unit ${counter}`, ...input },
    }),
  ).createSystem.system.id;
}

describe('module settings over GraphQL', () => {
  for (const kind of kinds) {
    it(`AddressRequired Yes (the default): create${capital(kind)} without siteId is validation.failed naming siteId only; No: created without a site`, async () => {
      const { customerId, siteId } = await place();
      expect(invalidFields(await gql(documents[kind].create, { input: { customerId } }))).toEqual(['siteId']);
      const rec = await create(gql, kind, { siteId });
      expect(rec.record.customerId).toBe(customerId);
      expect(invalidFields(await gql(documents[kind].update, { id: rec.id, ifMatch: rec.etag, input: { siteId: null } }))).toEqual(['siteId']);

      const relaxed = await tenantWith(t, { AddressRequired: 'No' });
      const theirs = await place(relaxed.gql);
      expect((await create(relaxed.gql, kind, { customerId: theirs.customerId })).record).toMatchObject({ customerId: theirs.customerId, siteId: null });
    });
  }

  it('System module on: createJob without systemId is validation.failed naming systemId; siteId and customerId come from the system', async () => {
    const own = await tenantWith(t, { System: 'on' });
    const p = await place(own.gql);
    expect(invalidFields(await own.gql(CREATE_JOB, { input: { siteId: p.siteId } }))).toEqual(['systemId']);
    const systemId = await system(own.gql, p.siteId);
    expect((await create(own.gql, 'job', { systemId })).record).toMatchObject({ systemId, siteId: p.siteId, customerId: p.customerId });
    // Estimates need a system only when they have a site.
    expect(invalidFields(await own.gql(CREATE_ESTIMATE, { input: { siteId: p.siteId } }))).toEqual(['systemId']);
  });

  for (const kind of kinds) {
    it(`${kind}s: a site of another customer is validation.failed naming siteId, a system of another site naming systemId`, async () => {
      const a = await place();
      const b = await place();
      const systemOfB = await system(gql, b.siteId);
      expect(invalidFields(await gql(documents[kind].create, { input: { customerId: a.customerId, siteId: b.siteId } }))).toEqual(['siteId']);
      expect(invalidFields(await gql(documents[kind].create, { input: { siteId: a.siteId, systemId: systemOfB } }))).toEqual(['systemId']);
      const rec = await create(gql, kind, { siteId: a.siteId });
      expect(invalidFields(await gql(documents[kind].update, { id: rec.id, ifMatch: rec.etag, input: { systemId: systemOfB } }))).toEqual(['systemId']);
      const moved = await update(gql, kind, rec, { customerId: b.customerId, siteId: b.siteId, systemId: systemOfB });
      expect(moved.record).toMatchObject({ customerId: b.customerId, siteId: b.siteId, systemId: systemOfB });
    });
  }

  it("refuses another tenant's siteId and systemId on jobs with validation.failed naming the field, on create and on update", async () => {
    const other = await t.newTenant();
    const theirs = await place(other.gql);
    const theirSystem = await system(other.gql, theirs.siteId);
    const mine = await place();
    expect(invalidFields(await gql(CREATE_JOB, { input: { siteId: theirs.siteId } }))).toEqual(['siteId']);
    expect(invalidFields(await gql(CREATE_JOB, { input: { siteId: mine.siteId, systemId: theirSystem } }))).toEqual(['systemId']);
    const job = await create(gql, 'job', { siteId: mine.siteId });
    expect(invalidFields(await gql(UPDATE_JOB, { id: job.id, ifMatch: job.etag, input: { siteId: theirs.siteId } }))).toEqual(['siteId']);
    expect(invalidFields(await gql(UPDATE_JOB, { id: job.id, ifMatch: job.etag, input: { systemId: theirSystem } }))).toEqual(['systemId']);
    expect(ok(await other.gql(`{ jobs { nodes { id } } }`)).jobs.nodes).toEqual([]);
  });
});

describe('conventions over GraphQL', () => {
  for (const kind of kinds) {
    it(`${kind}s: any configured status may follow any other, re-sending the current one succeeds, an unknown one is status.transition_invalid and changes nothing`, async () => {
      const { siteId } = await place();
      let rec = await create(gql, kind, { siteId });
      const statuses = kind === 'job' ? ['Scheduled', 'Scheduled', 'Pending', 'Completed'] : ['Draft', 'Declined', 'Declined', 'Draft'];
      for (const status of statuses) {
        rec = await update(gql, kind, rec, { status });
        expect(rec.record.status).toBe(status);
      }
      const bad = await gql(documents[kind].update, { id: rec.id, ifMatch: rec.etag, input: { status: 'Nonexistent' } });
      expect(failed(bad, 'status.transition_invalid')).toEqual([{ field: ['input', 'status'], message: expect.stringContaining('Nonexistent'), code: 'status.transition_invalid' }]);
      expect((await rest.get(`/${kind}s/${rec.id}`)).body.data.status).toBe(statuses.at(-1));
    });
  }

  it('number: a supplied number is kept, a taken one is validation.failed naming number, a change is number.immutable', async () => {
    const { siteId } = await place();
    const number = `J-${randomUUID().slice(0, 8)}`;
    const job = await create(gql, 'job', { siteId, number });
    expect(job.record.number).toBe(number);
    expect(invalidFields(await gql(CREATE_JOB, { input: { siteId, number } }))).toEqual(['number']);
    expect(fieldsOf(failed(await gql(UPDATE_JOB, { id: job.id, ifMatch: job.etag, input: { number: `${number}-2` } }), 'number.immutable'))).toEqual([['input', 'number']]);
    const automatic = await create(gql, 'job', { siteId });
    expect(automatic.record.number).toMatch(/^\d+$/);
  });

  it('labels: configured Job labels replace the list, an unknown one is validation.failed naming labels', async () => {
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Job', name: 'Parity Urgent' });
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Job', name: 'Parity Warranty' });
    const { siteId } = await place();
    const job = await create(gql, 'job', { siteId, labels: ['Parity Urgent'] });
    expect(job.record.labels).toEqual(['Parity Urgent']);
    expect((await update(gql, 'job', job, { labels: ['Parity Warranty'] })).record.labels).toEqual(['Parity Warranty']);
    expect(invalidFields(await gql(CREATE_JOB, { input: { siteId, labels: ['Nope'] } }))).toEqual(['labels']);
  });

  it('required custom fields: missing on create, or cleared on update, is validation.failed naming customFields.<id>', async () => {
    const own = await t.newTenant();
    const def = await t.app.domain.admin.addCustomField({ accountId: own.tenant.accountId, relatedName: 'Job', name: 'Permit', type: 'text', required: true });
    const { siteId } = await place(own.gql);
    expect(invalidFields(await own.gql(CREATE_JOB, { input: { siteId } }))).toEqual([`customFields.${def.id}`]);
    const job = await create(own.gql, 'job', { siteId, customFields: { [def.id]: 'P-1' } });
    expect(job.record.customFields).toEqual({ [def.id]: 'P-1' });
    expect(invalidFields(await own.gql(UPDATE_JOB, { id: job.id, ifMatch: job.etag, input: { customFields: { [def.id]: null } } }))).toEqual([`customFields.${def.id}`]);
    expect((await update(own.gql, 'job', job, { title: 'kept' })).record.customFields).toEqual({ [def.id]: 'P-1' });
  });
});

describe('line items over GraphQL', () => {
  for (const kind of kinds) {
    it(`${kind}s: omitting lineitems keeps the lines, sending the same lines moves the ETag, [] removes them all`, async () => {
      const { siteId } = await place();
      const rec = await create(gql, kind, { siteId, lineitems: [{ description: 'a', quantity: '2', unitPrice: '5' }, { description: 'b', quantity: '1', unitPrice: '0.1' }] });
      expect(rec.record.amount).toBe('10.10');
      const untouched = await update(gql, kind, rec, { title: 'no lines sent' });
      expect(untouched.record.lineitems).toEqual(rec.record.lineitems);
      const resent = await update(gql, kind, untouched, { lineitems: untouched.record.lineitems.nodes.map((line: { id: string }) => ({ id: line.id })) });
      expect(resent.etag).not.toBe(untouched.etag);
      expect(resent.record.lineitems).toEqual(rec.record.lineitems);
      expect(fieldsOf(failed(await gql(documents[kind].update, { id: rec.id, ifMatch: untouched.etag, input: { title: 'stale' } }), 'precondition.failed'))).toEqual([['ifMatch']]);
      const emptied = await update(gql, kind, resent, { lineitems: [] });
      expect(emptied.record).toMatchObject({ lineitems: { nodes: [] }, amount: '0.00' });
      expect((await rest.get(`/${kind}s/${rec.id}`)).headers.get('etag')).toBe(emptied.etag);
    });

    it(`${kind}s: a line id of another record (or an unknown one) is validation.failed naming lineitems.0.id and changes nothing`, async () => {
      const { siteId } = await place();
      const a = await create(gql, kind, { siteId, lineitems: [{ description: 'a', quantity: '1', unitPrice: '1' }] });
      const b = await create(gql, kind, { siteId, lineitems: [{ description: 'b', quantity: '1', unitPrice: '2' }] });
      const otherKind = await create(gql, kind === 'job' ? 'estimate' : 'job', { siteId, lineitems: [{ description: 'c', quantity: '1', unitPrice: '3' }] });
      for (const foreign of [b.record.lineitems.nodes[0].id, otherKind.record.lineitems.nodes[0].id, randomUUID()]) {
        expect(invalidFields(await gql(documents[kind].update, { id: a.id, ifMatch: a.etag, input: { lineitems: [{ id: foreign, quantity: '5' }] } }))).toEqual([
          'lineitems.0.id',
        ]);
      }
      expect(graphqlRecord((await rest.get(`/${kind}s/${b.id}`)).body.data)).toMatchObject({ lineitems: b.record.lineitems });
      expect((await rest.get(`/${kind}s/${a.id}`)).headers.get('etag')).toBe(a.etag);
    });
  }

  it("resolves an omitted unitPrice from the customer's own item price, else the item price adjusted by the customer's priceAdjustment", async () => {
    const item = ok(await gql(`mutation { createItem(input: { name: "Parity filter", itemType: MATERIAL, unitPrice: "40" }) { item { id } } }`)).createItem.item.id;
    const plain = await place();
    const special = await place();
    ok(
      await gql(`mutation($input: CreateCustomerItemPriceInput!) { createCustomerItemPrice(input: $input) { customerItemPrice { id } } }`, {
        input: { customerId: special.customerId, itemId: item, unitPrice: '33.3333' },
      }),
    );
    const discounted = await place(gql, { priceAdjustment: '-12.5' });
    const priceOf = async (kind: Kind, p: { siteId: string }, line: Record<string, unknown> = {}) =>
      (await create(gql, kind, { siteId: p.siteId, lineitems: [{ itemId: item, quantity: '3', ...line }] })).record.lineitems.nodes[0];
    for (const kind of kinds) {
      expect(await priceOf(kind, plain)).toMatchObject({ unitPrice: '40.0000', description: 'Parity filter', lineTotal: '120.00' });
      expect(await priceOf(kind, special)).toMatchObject({ unitPrice: '33.3333', lineTotal: '100.00' });
      expect(await priceOf(kind, discounted)).toMatchObject({ unitPrice: '35.0000', lineTotal: '105.00' });
      expect(await priceOf(kind, special, { unitPrice: '1.23' })).toMatchObject({ unitPrice: '1.2300' });
    }
  });
});

describe('lists over GraphQL', () => {
  it('jobs: status, statusIn, customerId, siteId and scheduledStart filters and q select the same jobs as REST', async () => {
    const own = await t.newTenant();
    const ownRest = t.client(own.tenant.token);
    const a = await place(own.gql);
    const b = await place(own.gql);
    const tag = `parity${randomUUID().slice(0, 8)}`;
    const early = await create(own.gql, 'job', { siteId: a.siteId, scheduledStart: '2032-05-01T08:00:00.000Z', jobType: tag });
    const late = await create(own.gql, 'job', { siteId: a.siteId, scheduledStart: '2032-05-03T08:00:00.000Z' });
    const elsewhere = await update(own.gql, 'job', await create(own.gql, 'job', { siteId: b.siteId }), { status: 'Cancelled' });
    const cases: [string, string, string[]][] = [
      ['filter: { status: "Cancelled" }', 'status=Cancelled', [elsewhere.id]],
      ['filter: { statusIn: ["Pending", "Cancelled"] }, sort: { field: CREATED_AT }', 'status[in]=Pending,Cancelled&sort=created_at', [early.id, late.id, elsewhere.id]],
      [`filter: { customerId: "${a.customerId}" }, sort: { field: CREATED_AT, direction: ASC }`, `customer_id=${a.customerId}&sort=created_at`, [early.id, late.id]],
      [`filter: { siteId: "${b.siteId}" }`, `site_id=${b.siteId}`, [elsewhere.id]],
      ['filter: { scheduledStartGte: "2032-05-02T00:00:00Z" }', 'scheduled_start[gte]=2032-05-02T00:00:00Z', [late.id]],
      ['filter: { scheduledStartGte: "2032-04-30T00:00:00Z", scheduledStartLt: "2032-05-02T00:00:00Z" }', 'scheduled_start[gte]=2032-04-30T00:00:00Z&scheduled_start[lt]=2032-05-02T00:00:00Z', [early.id]],
      [`filter: { q: "${tag.toUpperCase()}" }`, `q=${tag.toUpperCase()}`, [early.id]],
      ['filter: { q: "cancelled" }', 'q=cancelled', [elsewhere.id]],
    ];
    for (const [args, query, expected] of cases) {
      const nodes = ok(await own.gql(`{ jobs(${args}) { nodes { id } } }`)).jobs.nodes.map((n: { id: string }) => n.id);
      expect(nodes, args).toEqual(expected);
      expect((await ownRest.get(`/jobs?${query}`)).body.data.map((r: { id: string }) => r.id), query).toEqual(expected);
    }
    failed(await own.gql(`{ jobs(filter: { scheduledStartGte: "not-a-date" }) { nodes { id } } }`), 'filter.invalid');
  });

  it('estimates: status, statusIn, customerId filters and q (number, amount, status, customer organization) select the same estimates as REST', async () => {
    const own = await t.newTenant();
    const ownRest = t.client(own.tenant.token);
    const a = await place(own.gql);
    const b = await place(own.gql);
    const organization = ok(await own.gql(`query($id: ID!) { customer(id: $id) { organization } }`, { id: a.customerId })).customer.organization as string;
    const priced = await create(own.gql, 'estimate', { siteId: a.siteId, lineitems: [{ description: 'x', quantity: '3', unitPrice: '411.37' }] });
    expect(priced.record.amount).toBe('1234.11');
    const declined = await update(own.gql, 'estimate', await create(own.gql, 'estimate', { siteId: b.siteId }), { status: 'Declined' });
    const cases: [string, string, string[]][] = [
      ['filter: { status: "Declined" }', 'status=Declined', [declined.id]],
      ['filter: { statusIn: ["Draft", "Declined"] }, sort: { field: CREATED_AT }', 'status[in]=Draft,Declined&sort=created_at', [priced.id, declined.id]],
      [`filter: { customerId: "${b.customerId}" }`, `customer_id=${b.customerId}`, [declined.id]],
      ['filter: { q: "1234.11" }', 'q=1234.11', [priced.id]],
      [`filter: { q: "${organization.toUpperCase()}" }`, `q=${encodeURIComponent(organization.toUpperCase())}`, [priced.id]],
      ['filter: { q: "declined" }', 'q=declined', [declined.id]],
    ];
    for (const [args, query, expected] of cases) {
      const nodes = ok(await own.gql(`{ estimates(${args}) { nodes { id } } }`)).estimates.nodes.map((n: { id: string }) => n.id);
      expect(nodes, args).toEqual(expected);
      expect((await ownRest.get(`/estimates?${query}`)).body.data.map((r: { id: string }) => r.id), query).toEqual(expected);
    }
  });
});

describe('system options over GraphQL', () => {
  it('systemOptions serves the catalog of GET /system_options, also filtered by systemType', async () => {
    const all = ok(await gql(`{ systemOptions { id systemType name position } }`)).systemOptions;
    expect(all.length).toBeGreaterThan(0);
    expect(all).toEqual(camelRecord((await rest.get('/system_options')).body.data));
    const hvac = ok(await gql(`{ systemOptions(systemType: "HVAC") { id systemType } }`)).systemOptions;
    expect(hvac.length).toBeGreaterThan(0);
    expect(hvac.every((o: { systemType: string }) => o.systemType === 'HVAC')).toBe(true);
    expect(hvac.map((o: { id: string }) => o.id)).toEqual((await rest.get('/system_options?system_type=HVAC')).body.data.map((o: { id: string }) => o.id));
    // Any valid key reads it, without a scope.
    const bare = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: [] });
    expect(ok(await t.graphql(bare.token)(`{ systemOptions { id } }`)).systemOptions).toHaveLength(all.length);
  });

  it('System.systemOption and Site.systemOption resolve the catalog entry (null when unset), in a number of statements that does not grow with the systems', async () => {
    const [furnace, heater, boiler] = ok(await gql(`{ systemOptions { id name } }`)).systemOptions as { id: string; name: string }[];
    const count = async (systems: number) => {
      const own = await t.newTenant();
      const p = await place(own.gql, {}, { systemOptionId: boiler.id });
      for (let i = 0; i < systems; i += 1) await system(own.gql, p.siteId, i === 0 ? {} : { systemOptionId: i % 2 ? furnace.id : heater.id });
      const query = `{ systems(sort: { field: CREATED_AT }) { nodes { systemOptionId systemOption { id name } site { systemOption { id } } } } }`;
      const { res, sql } = await statements.during(() => own.gql(query));
      const nodes = ok(res).systems.nodes as { systemOptionId: string | null; systemOption: { id: string; name: string } | null; site: { systemOption: { id: string } } }[];
      expect(nodes).toHaveLength(systems);
      expect(nodes[0].systemOption).toBeNull();
      for (const node of nodes.slice(1)) expect(node.systemOption).toEqual({ id: node.systemOptionId, name: node.systemOptionId === furnace.id ? furnace.name : heater.name });
      for (const node of nodes) expect(node.site.systemOption).toEqual({ id: boiler.id });
      return sql.length;
    };
    expect(await count(6)).toBe(await count(2));
  });
});
