import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import type { Gql } from '../helpers/graphql.ts';
import { askRelationQuery, foreignIn, graphqlCursors, GqlBuilder, introspect, operation, relationQueries, runGraphqlSweep, type GqlSweep } from './sweep-graphql.ts';
import { applyForgeries, planForgeries, restoreForgeries } from './sweep-forge.ts';
import { kindOfBase, pool, snake, type Catalog } from './sweep-kit.ts';
import { buildModel, collectCatalog, type Model } from './sweep-openapi.ts';
import { mcpCursors, restCursors } from './sweep-cursors.ts';
import { pick, runRestSweep, sharedKinds, type Check, type RestSweep, type Side } from './sweep-rest.ts';
import { seedTenant, type Seeded } from './sweep-seed.ts';
import { accountRows, apiSnapshot, snapshotDiff, tenantTables, type ApiSnapshot } from './sweep-snapshot.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';
import { mcpClient } from '../mcp/helpers.ts';
import { mcpCoverage, runMcpSweep, type McpSweep } from './sweep-mcp.ts';

// Tenant isolation, swept from the contracts rather than listed by hand (spec: "A record that belongs to another
// tenant is indistinguishable from a record that does not exist (both give 404 resource.not_found)").
//
// Two tenants A and B are seeded through the API with records of every resource (sweep-seed.ts); every text B
// writes carries its marker SWEEPB. What each tenant owns is then read back generically from the lists of the
// OpenAPI document (sweep-openapi.ts: kinds, child entries, /me), with B's next-page cursors (REST Link with limit=1,
// GraphQL endCursor with first: 1, MCP next_cursor with limit 1: sweep-cursors.ts).
//
// 1. REST (sweep-rest.ts): for every operation of GET /api/v2/openapi.json and every place of it that names a
//    record, derived from the document (path parameters; query parameters that are ids, `format: uuid` or `*_id`,
//    keys of custom_fields[<id>], cursor, q; body properties that are ids, down to child entries and polymorphic
//    pairs, keys of custom_fields), A sends B's value and, separately, a random one in the same place, every other
//    value being A's own valid one; the two answers must be identical once each substituted value is replaced by a
//    placeholder (status, content type, body; request_id is dropped). Each pair must also prove something: the
//    random value must be refused, or empty a list, or be named by the 422 (else the pair is reported as vacuous).
// 2. GraphQL (sweep-graphql.ts): the same from introspection, for every Query and Mutation field, every argument
//    and input object field (recursively) of type ID or named *Id, every JSON field keyed by ids, every cursor
//    (after) and q (in the filter); selections include the relations of the returned records, connections below a
//    record through their nodes. A mutation refuses the random value in its payload's userErrors (resource.not_found,
//    or validation.failed naming the field), with nothing written, where a query answers a top-level error.
// 3. The relations of every record of A, a few levels deep, serve A's records only.
// 4. MCP (sweep-mcp.ts): the same for every tool of tools/list (A's key) and every argument of its input schema
//    that names a record (kinds from the operation the tool stands for, its operationId); B's and the random value
//    give the same tool result (isError, structured content, problem, text), the random one refused
//    (resource.not_found, validation.failed naming it, cursor.invalid) or emptying a list.
// 5. Defense in depth (sweep-forge.ts): references across tenants forged in the database, both ways, serve nothing
//    of B to A through relations, reads and id filters; the database is restored exactly.
// 6. B's data is untouched (its own GETs, bodies and ETags; its rows in every table with an account_id), and so
//    is A's; nothing A reads or stores names B.

const WIDTH = 4;
// Every bucket the server knows, raised (the sweep sends a few thousand requests a minute). Webhook endpoints are
// registered at an echo receiver on 127.0.0.1, which the app may reach here.
const t = useTestApp({ rateLimits: { ...highRateLimits, graphql: 100_000_000, webhook_ingest: 100_000_000 }, env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
let receiver: Receiver;
let model: Model;
let A: Seeded;
let B: Seeded;
let a: Side;
let b: Side;
let userKind: string;
/** B's ids that A does not also see (the shared system options catalog excluded). */
let bOnly: Set<string>;
let gqlA: Gql;
let gqlB: Gql;
let builder: GqlBuilder;
let tables: string[];
let apiBefore: ApiSnapshot;
let rowsBefore: Record<string, string[]>;
let apiBeforeA: ApiSnapshot;
let rowsBeforeA: Record<string, string[]>;
const timings: Record<string, number> = {};
const counts: Record<string, number> = {};

/** TENANT_SWEEP_DUMP=<dir> writes every derived position and every pair of answers there, for inspection. */
function dump(name: string, value: unknown): void {
  const dir = process.env.TENANT_SWEEP_DUMP;
  if (dir) writeFileSync(join(dir, `tenant-sweep-${name}.json`), JSON.stringify(value, null, 1));
}

function report(checks: Check[]): string {
  return checks
    .filter((c) => !c.same)
    .map((c) => `${c.label}\n  ${c.request}\n  B's id:    ${JSON.stringify(c.foreign).slice(0, 700)}\n  random id: ${JSON.stringify(c.random).slice(0, 700)}`)
    .join('\n\n');
}

beforeAll(async () => {
  const started = Date.now();
  const doc = (await t.client().get('/openapi.json')).body;
  model = buildModel(doc);
  const lookup = model.ops.find((o) => o.method === 'get' && o.path === '/custom_field_definitions');
  const relatedNames: string[] = lookup?.params.find((p) => p.name === 'related_name')?.schema?.enum ?? [];
  receiver = await startReceiver({ kind: 'echo' });
  A = await seedTenant(t, 'SWEEPA', relatedNames, { webhookUrl: receiver.url });
  B = await seedTenant(t, 'SWEEPB', relatedNames, { webhookUrl: receiver.url });
  timings.seed = Date.now() - started;
  const [catA, catB] = [await collectCatalog(model, A.api), await collectCatalog(model, B.api)];
  userKind = [...catA.refs].find(([, refs]) => refs.some((r) => typeof r.id === 'number'))?.[0] ?? 'user';
  gqlA = t.graphql(A.tenant.token);
  gqlB = t.graphql(B.tenant.token);
  builder = new GqlBuilder(await introspect(gqlA), model, userKind);
  a = { catalog: catA, restCursors: await restCursors(model, A, catA), gqlCursors: await graphqlCursors(builder, gqlA), marker: A.marker };
  b = { catalog: catB, restCursors: await restCursors(model, B, catB), gqlCursors: await graphqlCursors(builder, gqlB), marker: B.marker };
  bOnly = new Set([...catB.allIds].filter((id) => !catA.allIds.has(id)));
  timings.catalogs = Date.now() - started;
  tables = await tenantTables(t);
  apiBefore = await apiSnapshot(model, B.api, catB);
  rowsBefore = await accountRows(t, tables, B.tenant.accountId);
  apiBeforeA = await apiSnapshot(model, A.api, catA);
  rowsBeforeA = await accountRows(t, tables, A.tenant.accountId);
  timings.setup = Date.now() - started;
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  console.log(`tenant sweep timings (ms): ${JSON.stringify(timings)}; checks: ${JSON.stringify(counts)}`);
});

describe('tenant isolation sweep', () => {
  it('seeds two or more records of every kind the document lists, for both tenants', () => {
    const kinds = [...model.kinds];
    // Every resource of the app, and the records that are not resources of their own.
    const resources = [...t.app.domain.resources.values()].map((service) => service.def.name);
    expect(resources.length).toBeGreaterThan(0);
    expect(kinds).toEqual(expect.arrayContaining([...resources, 'contact_linkage', 'lineitem', 'job_assignment', 'contact_phone_number', 'custom_field_definition', 'user']));
    for (const [name, catalog] of [['A', a.catalog], ['B', b.catalog]] as [string, Catalog][]) {
      for (const kind of kinds) {
        expect((catalog.refs.get(kind) ?? []).length, `${name} has records of ${kind}`).toBeGreaterThan(0);
      }
      for (const list of model.lists.filter((l) => l.paginated && !l.parentKind)) {
        expect((catalog.refs.get(list.kind) ?? []).length, `${name}: two ${list.kind} records, for a next-page cursor`).toBeGreaterThan(1);
      }
    }
    for (const list of model.lists.filter((l) => l.paginated && !l.parentKind)) expect(b.restCursors.get(list.path), `B's cursor of ${list.path}`).toBeTruthy();
    // A list under a record (a customer's notes): the seed puts two of its records under one record of the parent.
    for (const list of model.lists.filter((l) => l.paginated && l.parentKind)) expect(b.restCursors.get(list.path), `B's cursor of ${list.path}`).toBeTruthy();
    // The tenants share only whole read-only catalogs (system options: the same ids for both, no write operation
    // in the document), never records; positions of such kinds are skipped (nothing of B's to send).
    const shared = sharedKinds(a.catalog, b.catalog);
    for (const kind of shared) {
      expect(a.catalog.refs.get(kind)!.map((r) => r.id).sort(), kind).toEqual(b.catalog.refs.get(kind)!.map((r) => r.id).sort());
      const path = model.lists.find((l) => l.kind === kind)!.path;
      expect(model.ops.filter((o) => o.method !== 'get' && o.path.startsWith(path)).map((o) => `${o.method} ${o.path}`), `${kind} is read-only`).toEqual([]);
    }
  });

  let rest: RestSweep;
  it('REST: every id position of every operation answers B\'s id exactly as a random id', async () => {
    const started = Date.now();
    rest = await runRestSweep(model, A.api, a, b, userKind, WIDTH);
    timings.rest = Date.now() - started;
    const labels = rest.positions.map((p) => p.label);
    dump('rest', { labels, skipped: rest.skipped, checks: rest.checks });
    // The generator found the operations and places it must find (it cannot pass by finding nothing).
    expect(new Set(rest.positions.map((p) => `${p.op.method} ${p.op.path}`)).size).toBeGreaterThan(40);
    const expected = [
      'GET /customers/{id} path {id}',
      'PATCH /customers/{id} path {id}',
      'DELETE /customers/{id} path {id}',
      'PATCH /contacts/{id}/linkages/{linkage_id} path {linkage_id}',
      'POST /estimates/{id}/convert path {id}',
      'GET /sites query customer_id',
      'GET /jobs query cursor',
      'GET /customers query custom_fields[<id>]',
      'POST /jobs body job.site_id',
      'POST /jobs body job.lineitems.0.item_id',
      'PATCH /jobs/{id} body job.lineitems.0.id',
      'POST /jobs body job.assignments.0.user_id',
      'PATCH /contacts/{id} body contact.phone_numbers.0.id',
      /^POST \/contacts\/\{id\}\/linkages body (linkage\.)?linkable_id \(linkable_type=Site\)$/,
      'POST /sites body site.siteable_id (siteable_type=Lead)',
      'POST /customer_item_prices body customer_item_price.customer_id',
      'POST /customers body customer.custom_fields[<id>]',
      'POST /leads/{id}/convert body customer.assignee_id',
      'GET /webhooks/endpoints/{id} path {id}',
      'PATCH /webhooks/endpoints/{id} path {id}',
      'DELETE /webhooks/endpoints/{id} path {id}',
      'POST /webhooks/endpoints/{id}/verify path {id}',
      'POST /webhooks/endpoints/{id}/test path {id}',
      'POST /webhooks/endpoints/{id}/replay path {id}',
      'POST /webhooks/endpoints/{id}/rotate_secret path {id}',
      'GET /webhooks/endpoints/{id}/deliveries path {id}',
      'GET /webhooks/endpoints query cursor',
      'GET /customers/{id}/notes path {id}',
      'POST /jobs/{id}/notes path {id}',
      'GET /customers/{id}/notes query cursor',
      'GET /notes/{id} path {id}',
      'PATCH /notes/{id} path {id}',
      'DELETE /notes/{id} path {id}',
    ];
    expect(expected.filter((e) => !labels.some((l) => (typeof e === 'string' ? l === e : e.test(l)))), `derived: ${labels.join('\n')}`).toEqual([]);
    // B's webhook endpoints, their actions and their delivery logs do not exist for A: 404 resource.not_found.
    const webhooks = rest.checks.filter((c) => / \/webhooks\/endpoints\/\{id\}[^ ]* path \{id\}$/.test(c.label));
    expect(new Set(webhooks.map((c) => c.label)).size).toBeGreaterThanOrEqual(8);
    for (const check of webhooks) expect(check.foreign, `${check.label}\n  ${check.request}`).toMatchObject({ status: 404, body: { code: 'resource.not_found' } });
    counts.restOperations = model.ops.length;
    counts.restOperationsWithPositions = new Set(rest.positions.map((p) => p.op)).size;
    counts.restPositions = rest.positions.length;
    counts.restPairs = rest.checks.length;
    console.log(`REST sweep: ${rest.positions.length} positions, ${rest.checks.length} checked (${rest.checks.length * 2} requests), skipped: ${JSON.stringify(rest.skipped)}`);
    expect(report(rest.checks)).toBe('');
    expect(rest.checks.filter((c) => c.vacuous).map((c) => `${c.label}: ${c.vacuous}\n  ${c.request}`)).toEqual([]);
    expect(rest.skipped.filter((s) => !s.reason.includes('share'))).toEqual([]);
  }, 180_000);

  let graphql: GqlSweep;
  it('GraphQL: every id argument and input field of every Query and Mutation field answers B\'s id exactly as a random id', async () => {
    const started = Date.now();
    graphql = await runGraphqlSweep(builder, gqlA, a, b, WIDTH);
    timings.graphql = Date.now() - started;
    const labels = graphql.positions.map((p) => p.label);
    dump('graphql', { labels, skipped: graphql.skipped, checks: graphql.checks, fields: graphql.fields });
    expect(graphql.fields.length).toBeGreaterThan(40);
    const expected = [
      'query customer(id)',
      'query jobs(filter.customerId)',
      'query jobs(after)',
      'query customers(filter.customFields.0.id)',
      'query customers(filter.q) (B\'s text)',
      'query node(id) (job)',
      'query nodes(ids.0) (customer)',
      'query contactLinkages(contactId)',
      'mutation updateJob(id)',
      'mutation updateJob(input.lineitems.0.id)',
      'mutation createJob(input.assignments.0.userId)',
      'mutation unlinkContact(linkageId)',
      'mutation linkContact(input.linkableId) (linkableType=Site)',
      'mutation createCustomer(input.customFields)[<id>]',
      'mutation convertLead(customer.assigneeId)',
      'mutation convertEstimate(id)',
      'query webhookEndpoint(id)',
      'query webhookEndpointDeliveries(id)',
      'mutation updateWebhookEndpoint(id)',
      'mutation deleteWebhookEndpoint(id)',
      'mutation verifyWebhookEndpoint(id)',
      'mutation testWebhookEndpoint(id)',
      'mutation replayWebhookEndpoint(id)',
      'mutation rotateWebhookEndpointSecret(id)',
      'query note(id)',
      'query node(id) (note)',
      'mutation createNote(parentId) (customer)',
      'mutation createNote(parentId) (job)',
      'mutation updateNote(id)',
      'mutation deleteNote(id)',
    ];
    expect(expected.filter((e) => !labels.includes(e)), `derived: ${labels.join('\n')}`).toEqual([]);
    // B's webhook endpoints, their actions and their delivery logs do not exist for A: resource.not_found.
    const webhooks = graphql.checks.filter((c) => /^(query|mutation) \w*WebhookEndpoint\w*\(id\)$|^query webhookEndpoint\w*\(id\)$/.test(c.label));
    expect(new Set(webhooks.map((c) => c.label)).size).toBeGreaterThanOrEqual(8);
    for (const check of webhooks) expect(JSON.stringify(check.foreign), `${check.label}\n  ${check.request}`).toContain('"code":"resource.not_found"');
    counts.graphqlFields = graphql.fields.length;
    counts.graphqlFieldsWithPositions = new Set(graphql.positions.map((p) => `${p.root} ${p.field.name}`)).size;
    counts.graphqlPositions = graphql.positions.length;
    counts.graphqlPairs = graphql.checks.length;
    console.log(`GraphQL sweep: ${graphql.fields.length} fields, ${graphql.positions.length} positions, ${graphql.checks.length} pairs (${graphql.checks.length * 2} requests), skipped: ${JSON.stringify(graphql.skipped)}`);
    expect(report(graphql.checks)).toBe('');
    expect(graphql.checks.filter((c) => c.vacuous).map((c) => `${c.label}: ${c.vacuous}\n  ${c.request}`)).toEqual([]);
    expect(graphql.skipped.filter((s) => !s.reason.includes('share'))).toEqual([]);
  }, 180_000);

  it('GraphQL: every relation of every record of A, a few levels deep, serves A\'s records only', async () => {
    const started = Date.now();
    const queries = relationQueries(builder, a.catalog, 3);
    expect(queries.length).toBeGreaterThan(30);
    const problems: string[] = [];
    const typenames = new Set<string>();
    // A query the server refuses for its size (the schema has outgrown one query per record at this depth) is
    // asked again in parts: one relation at a time, then shallower (askRelationQuery in sweep-graphql.ts).
    let split = 0;
    await pool(queries, WIDTH, async (query) => {
      const parts = await askRelationQuery(gqlA, query, (q, res) => {
        const errors = (res.body.errors ?? []).map((e) => `${e.extensions?.code} ${e.message}`);
        const leaks = foreignIn(res.body.data, bOnly, B.marker, true, typenames);
        if (res.status !== 200 || errors.length || !res.body.data || leaks.length) problems.push(`${q.label}: ${res.status} ${errors.join('; ')} ${leaks.join('; ')}`);
      });
      split += parts;
    });
    timings.relations = Date.now() - started;
    counts.relationQueries = queries.length;
    console.log(`GraphQL relations: ${queries.length} queries of A's data (${split} asked again in parts for their size)`);
    expect(problems).toEqual([]);
    // Not vacuous: every record type of the schema was reached and served.
    // Subscription payloads (JobEvent ...) are only served over WebSocket (test/events/subscriptions.test.ts).
    const named = (type: any): string => (type.ofType ? named(type.ofType) : type.name);
    const streamed = new Set((builder.schema.subscription?.fields ?? []).map((field: any) => named(field.type)));
    const recordTypes = [...builder.schema.types.values()]
      .filter((ty) => ty.kind === 'OBJECT' && !streamed.has(ty.name) && ty.fields?.some((f) => f.name === 'id') && kindOfBase(snake(ty.name), model.kinds))
      .map((ty) => ty.name);
    expect(recordTypes.length).toBeGreaterThan(10);
    expect(recordTypes.filter((name) => !typenames.has(name))).toEqual([]);
  }, 180_000);

  let mcp: McpSweep;
  it('MCP: every id argument of every tool answers B\'s id exactly as a random id', async () => {
    const started = Date.now();
    const [clientA, clientB] = [await mcpClient(t, A.tenant.token), await mcpClient(t, B.tenant.token)];
    const cursorsB = await mcpCursors(model, clientB, b).finally(() => clientB.close());
    mcp = await runMcpSweep(model, clientA, a, b, cursorsB, userKind, WIDTH).finally(() => clientA.close());
    timings.mcp = Date.now() - started;
    dump('mcp', { labels: mcp.positions.map((p) => p.label), skipped: mcp.skipped, checks: mcp.checks.map(({ position: _, ...check }) => check) });
    // Every kind of place was found, and every place the REST half found in the operations the tools stand for.
    expect(mcpCoverage(mcp, rest.positions, cursorsB)).toEqual([]);
    // B's record named where the tool's record (or an action's) goes does not exist for A: resource.not_found.
    const named = mcp.checks.filter((c) => c.position.where === 'path');
    expect(new Set(named.map((c) => c.position.tool.name)).size).toBeGreaterThan(80);
    for (const check of named) expect(check.foreign, `${check.label}\n  ${check.request}`).toMatchObject({ isError: true, problem: { code: 'resource.not_found' } });
    Object.assign(counts, { mcpTools: mcp.tools.length, mcpToolsWithPositions: new Set(mcp.positions.map((p) => p.tool.name)).size, mcpPositions: mcp.positions.length, mcpPairs: mcp.checks.length });
    console.log(`MCP sweep: ${mcp.tools.length} tools, ${mcp.positions.length} positions, ${mcp.checks.length} pairs (${mcp.checks.length * 2} calls), skipped: ${JSON.stringify(mcp.skipped)}`);
    expect(report(mcp.checks)).toBe('');
    expect(mcp.checks.filter((c) => c.vacuous).map((c) => `${c.label}: ${c.vacuous}\n  ${c.request}`)).toEqual([]);
    expect(mcp.skipped.filter((s) => !s.reason.includes('share'))).toEqual([]);
  }, 180_000);

  it('defense in depth: references across tenants forged in the database serve nothing of the other tenant', async () => {
    const started = Date.now();
    const shared = sharedKinds(a.catalog, b.catalog);
    const aToB = await planForgeries(t, model, tables, A.tenant.accountId, a.catalog, b.catalog, shared, userKind);
    const bToA = await planForgeries(t, model, tables, B.tenant.accountId, b.catalog, a.catalog, shared, userKind);
    const columns = new Set([...aToB, ...bToA].flatMap((f) => f.sets.map((x) => `${f.table}.${x.column}`)));
    expect([...columns]).toEqual(expect.arrayContaining(['jobs.customer_id', 'sites.siteable_id', 'lineitems.item_id', 'job_assignments.user_id', 'contact_linkages.contact_id']));
    const rowsA = await accountRows(t, tables, A.tenant.accountId);
    const rowsB = await accountRows(t, tables, B.tenant.accountId);
    const forgedA = await applyForgeries(t, aToB);
    const forgedB = await applyForgeries(t, bToA);
    const leaks: string[] = [];
    const errors: string[] = [];
    let references = 0;
    try {
      const look = (label: string, body: unknown) => {
        for (const leak of foreignIn(body, bOnly, B.marker, false)) leaks.push(`${label}: ${leak}`);
        references += foreignIn(body, bOnly, B.marker, true).length;
      };
      // GraphQL: every relation of every record of A.
      await pool(relationQueries(builder, a.catalog, 3), WIDTH, async (query) => {
        await askRelationQuery(gqlA, query, (q, res) => {
          look(q.label, res.body.data);
          for (const e of res.body.errors ?? []) errors.push(`${q.label}: ${e.extensions?.code} ${e.message} at ${e.path?.join('.')}`);
        });
      });
      // REST: every GET of every record of A, and every id filter with A's own id.
      for (const [url, snap] of Object.entries(await apiSnapshot(model, A.api, a.catalog))) {
        look(`GET ${url}`, JSON.parse(snap.body || 'null'));
        if (snap.status >= 500) errors.push(`GET ${url}: ${snap.status}`);
      }
      for (const p of rest.positions.filter((x) => x.where === 'query' && !x.key && !shared.has(x.kind))) {
        const id = pick(a.catalog, p.kind)?.id;
        const res = await A.api.get(`${p.op.path}?${p.name}=${id}`);
        look(`GET ${p.op.path}?${p.name}=<A's>`, res.body);
      }
      // GraphQL: every id filter of a list with A's own id.
      const idFilters = graphql.positions.filter((x) => x.root === 'query' && x.path.length === 2 && x.path[0] === 'filter' && x.field.args.some((arg) => arg.name === 'first'));
      expect(idFilters.length).toBeGreaterThan(10);
      for (const p of idFilters) {
        const variables = { filter: { [String(p.path[1])]: pick(a.catalog, p.kind)?.id } };
        const res = await gqlA(operation(builder, 'query', p.field, variables, 2), variables);
        look(p.label, res.body.data);
      }
    } finally {
      await restoreForgeries(t, forgedB.applied);
      await restoreForgeries(t, forgedA.applied);
    }
    timings.forged = Date.now() - started;
    const count = (list: { sets: unknown[] }[]) => list.reduce((n, f) => n + f.sets.length, 0);
    counts.forgedValues = count(forgedA.applied) + count(forgedB.applied);
    console.log(
      `Forged references: ${count(forgedA.applied)} values of A's rows -> B, ${count(forgedB.applied)} of B's -> A (${columns.size} columns); refused by the database: ${JSON.stringify([...forgedA.refused, ...forgedB.refused])}; errors under forgery: ${JSON.stringify(errors)}`,
    );
    expect(snapshotDiff(rowsA, await accountRows(t, tables, A.tenant.accountId))).toEqual([]);
    expect(snapshotDiff(rowsB, await accountRows(t, tables, B.tenant.accountId))).toEqual([]);
    // The forgeries are visible through the API (A's records name B's ids), so the pass is not vacuous.
    expect(references).toBeGreaterThan(50);
    expect(count(forgedA.applied)).toBeGreaterThan(20);
    expect(count(forgedB.applied)).toBeGreaterThan(20);
    expect(leaks).toEqual([]);
  }, 180_000);

  it('leaves B untouched: its own GETs (bodies and ETags) and its rows in every tenant table', async () => {
    const apiAfter = await apiSnapshot(model, B.api, b.catalog);
    expect(Object.keys(apiAfter).length).toBeGreaterThan(40);
    expect(snapshotDiff(apiBefore, apiAfter).join('\n')).toBe('');
    const rowsAfter = await accountRows(t, tables, B.tenant.accountId);
    expect(Object.values(rowsAfter).flat().length).toBeGreaterThan(40);
    expect(snapshotDiff(rowsBefore, rowsAfter).join('\n')).toBe('');
  }, 180_000);

  it('leaves A untouched too (every substituted request was refused); nothing A reads or stores names B', async () => {
    const apiAfterA = await apiSnapshot(model, A.api, a.catalog);
    expect(snapshotDiff(apiBeforeA, apiAfterA).join('\n')).toBe('');
    // Every GET of the document, for every record of A (lists, lookups, /me, linkages): nothing of B's.
    const seen = Object.entries(apiAfterA).flatMap(([url, snap]) => foreignIn(JSON.parse(snap.body || 'null'), bOnly, B.marker, true).map((x) => `GET ${url}: ${x}`));
    expect(seen).toEqual([]);
    const rowsAfterA = await accountRows(t, tables, A.tenant.accountId);
    expect(snapshotDiff(rowsBeforeA, rowsAfterA).join('\n')).toBe('');
    const traces = Object.entries(rowsAfterA).flatMap(([table, rows]) => rows.flatMap((row) => foreignIn(JSON.parse(row), bOnly, B.marker, true).map((x) => `${table}: ${x}`)));
    expect(traces).toEqual([]);
  }, 180_000);
});
