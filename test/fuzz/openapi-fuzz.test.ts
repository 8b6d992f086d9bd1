// Property-based fuzz of the REST API, generated from its OpenAPI document (GET /api/v2/openapi.json of the
// running app) with fast-check.
//
// Every operation of the document (none is listed by hand: a new endpoint joins by itself) gets one vitest test.
// In it, for every mutation kind that applies (test/fuzz/openapi-arbitraries.ts `kinds`: valid, wrong-type, nul,
// surrogate, numbers, huge-string, proto-keys, unknown-field, query-repeat, query-brackets, deep-nesting,
// empty-body, content-type, malformed-json, path-id, headers), fast-check generates requests that start VALID
// (schema-derived bodies under the resource-named key, documented query parameters, ids of records seeded
// through the API, current ETags in If-Match) and then mutates them. Every answer must be: never 5xx; a 4xx is
// application/problem+json whose `code` matches the document's pattern, is in its x-error-codes catalog with
// that status, equals `status`, and is documented for the operation; and a refused request (or any GET) leaves
// the database fingerprint unchanged (one SQL statement over every table: count, max(updated_at),
// sum(lock_version), count(deleted_at), the events outbox's max(seq) ...), taken again only when the app sent a
// statement that may write since the last one (WriteWatch: its onQuery; a span of plain reads leaves the database as
// it was).
//
// Bounded and deterministic: FUZZ_SEED (default 20260430) seeds every property (each database, operation and kind
// derives its own seed from it, so the embedded and the PostgreSQL run of CI send different requests: eight per
// operation and kind between them); FUZZ_RUNS (default 4) is the number of generated requests per operation and
// kind; shrinking stops after FUZZ_MAX_SHRINKS (default 20) steps. No timing is asserted.
//
// A longer run by hand (any seed, more runs; both databases):
//   FUZZ_RUNS=50 FUZZ_SEED=$RANDOM npx vitest run test/fuzz/openapi-fuzz.test.ts
//   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres FUZZ_RUNS=50 npx vitest run test/fuzz/openapi-fuzz.test.ts
// Narrow it (and replay a failure with the seed and path its message prints):
//   FUZZ_OPS='POST /customers,PATCH /jobs/{id}'  FUZZ_KINDS=nul,surrogate  FUZZ_PATH='3:0:1'
// FUZZ_REPORT=/tmp/fuzz.json writes the distinct failures as JSON; they are also printed at the end of the file.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/app.ts';
import { writeFileSync } from 'node:fs';
import { deriveSeed, fuzzKnobs, startFuzzApp } from './fuzz-setup.ts';
import { World } from './fuzz-world.ts';
import { describeOutcome, runPlan } from './fuzz-request.ts';
import { kinds, kindsFor, planArbitrary, type GenContext } from './openapi-arbitraries.ts';
import { buildModel } from './openapi-model.ts';

const { seed: SEED, maxShrinks: MAX_SHRINKS, only: ONLY_OPS, kinds: ONLY_KINDS, replayPath: REPLAY_PATH, narrowed } = fuzzKnobs('FUZZ_OPS');

// The document comes from the running app, so the operations (one test each) are known before the tests are
// declared: the app starts while this file is collected (fuzz-setup.ts).
const { receiver, writes, testApp } = await startFuzzApp();
const documentResponse = await fetch(`${testApp.url}/api/v2/openapi.json`);
const model = buildModel(await documentResponse.json());
const operations = model.operations.filter((op) => !ONLY_OPS || ONLY_OPS.includes(op.label));
// Requests per operation and kind: 4 (about 3,500 requests, about a minute on an idle 2-core machine). CI runs the
// suite on both databases with different seeds, so a CI run sends 8 different requests per operation and kind.
const RUNS = Number(process.env.FUZZ_RUNS ?? 4);

let tenant: Tenant;
let world: World;
let ctx: GenContext;

interface DistinctFailure {
  op: string;
  kind: string;
  tag: string;
  status: number;
  code: string;
  check: string;
  example: string;
}
/** Distinct failures: operation, kind/input, status, code, check -> the smallest example. */
const distinct = new Map<string, DistinctFailure>();
/** Answers seen per operation: "status code" -> count (the fuzz is not vacuous). */
const seen = new Map<string, Map<string, number>>();

const seedOf = (label: string, kind: string) => deriveSeed(SEED, testApp.database.kind, label, kind);

beforeAll(async () => {
  tenant = await testApp.tenant({ name: 'Fuzz Tenant' });
  world = new World(testApp, tenant, model, receiver.url, writes);
  await world.seed();
  ctx = { model, world };
}, 300_000);

afterAll(async () => {
  // One line per distinct failure (check, status, code, kind/input), with the operations it hit and one example.
  const groups = new Map<string, { rows: DistinctFailure[] }>();
  for (const row of distinct.values()) {
    const key = [row.check, row.status, row.code, `${row.kind}/${row.tag}`].join('  ');
    groups.set(key, { rows: [...(groups.get(key)?.rows ?? []), row] });
  }
  if (groups.size > 0) {
    const lines = [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([key, { rows }]) => {
      const ops = rows.map((r) => r.op);
      const smallest = rows.reduce((a, b) => (b.example.length < a.example.length ? b : a));
      return `• ${key}
  on ${ops.length} operation(s): ${ops.slice(0, 6).join(', ')}${ops.length > 6 ? ', …' : ''}
  ${smallest.example.split('\n').join('\n  ')}`;
    });
    console.log(`openapi fuzz: ${groups.size} distinct failures (seed ${SEED}, ${RUNS} runs per operation and kind)\n${lines.join('\n')}`);
  }
  if (process.env.FUZZ_REPORT) {
    const report = { seed: SEED, runs: RUNS, database: testApp.database.kind, failures: [...distinct.values()], seen: Object.fromEntries([...seen].map(([k, v]) => [k, Object.fromEntries(v)])) };
    writeFileSync(process.env.FUZZ_REPORT, JSON.stringify(report, null, 2));
  }
  await testApp.close();
  await receiver.close();
});

describe('OpenAPI fuzz', () => {
  it('derives its operations, catalog and collections from the document', () => {
    expect(documentResponse.status).toBe(200);
    const labels = model.operations.map((op) => op.label);
    expect(labels.length).toBeGreaterThan(20);
    for (const label of ['POST /customers', 'GET /jobs', 'GET /customers/{id}', 'PATCH /customers/{id}', 'DELETE /customers/{id}', 'POST /contacts/{id}/linkages']) expect(labels).toContain(label);
    expect(model.catalog.size).toBeGreaterThan(10);
    expect(model.catalog.get('validation.failed')).toBe(422);
    const create = model.operations.find((op) => op.label === 'POST /customers')!;
    expect(create.body?.wrapperKey).toBe('customer');
    expect(model.operations.find((op) => op.label === 'PATCH /customers/{id}')!.ifMatch).toBe(true);
    expect(model.collections.get('customers')?.creatable).toBe(true);
    // Every operation has at least the valid kind and something hostile.
    for (const op of model.operations) expect(kindsFor(op).length, op.label).toBeGreaterThan(5);
  });

  it('fingerprints the database so that a create, an update and a delete each change it', async () => {
    const before = await world.fingerprint();
    const created = await world.create('customers', { organization: `Fingerprint probe ${process.pid}` });
    const afterCreate = await world.fingerprint();
    expect(afterCreate).not.toBe(before);
    await world.patch('customers', created.id, { reference: 'probe' });
    const afterUpdate = await world.fingerprint();
    expect(afterUpdate).not.toBe(afterCreate);
    const etag = await world.currentEtag('customers', created.id);
    expect((await world.api.delete(`/customers/${created.id}`, { headers: { 'if-match': etag! } })).status).toBe(204);
    expect(await world.fingerprint()).not.toBe(afterUpdate);
    // A read changes nothing.
    const stable = await world.fingerprint();
    expect((await world.api.get('/customers')).status).toBe(200);
    expect(await world.fingerprint()).toBe(stable);
  });

  for (const op of operations) {
    it(op.label, async () => {
      const failures: string[] = [];
      const opKinds = kindsFor(op).filter((k) => !ONLY_KINDS || ONLY_KINDS.includes(k));
      for (const kind of opKinds) {
        const seed = seedOf(op.label, kind);
        const arbitrary = fc.limitShrink(planArbitrary(ctx, op, kind), MAX_SHRINKS);
        try {
          await fc.assert(
            fc.asyncProperty(arbitrary, async (plan) => {
              const outcome = await runPlan(ctx, world, testApp.url, tenant.token, op, plan);
              const code = typeof outcome.received.json?.code === 'string' ? outcome.received.json.code : '-';
              const counts = seen.get(op.label) ?? new Map<string, number>();
              const key = `${outcome.received.status} ${code}`;
              counts.set(key, (counts.get(key) ?? 0) + 1);
              seen.set(op.label, counts);
              if (outcome.failures.length === 0) return;
              for (const f of outcome.failures) {
                const signature = [op.label, kind, plan.tag, outcome.received.status, code, f.check].join('|');
                const example = describeOutcome(outcome);
                // Keep the smallest example (shrinking makes them smaller).
                if ((distinct.get(signature)?.example.length ?? Infinity) > example.length) {
                  distinct.set(signature, { op: op.label, kind, tag: plan.tag, status: outcome.received.status, code, check: f.check, example });
                }
              }
              throw new Error(`${outcome.failures.map((f) => `[${f.check}] ${f.detail}`).join('\n')}\n(${kind}: ${plan.tag})\n${describeOutcome(outcome)}`);
            }),
            { seed, numRuns: RUNS, includeErrorInReport: true, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) },
          );
        } catch (error) {
          // fast-check's report without the stack frames it embeds.
          const message = String((error as Error).message ?? error)
            .split('\n')
            .filter((line) => !/^\s+at /.test(line))
            .join('\n');
          const path = /path: "([^"]*)"/.exec(message)?.[1];
          failures.push(
            `── ${op.label} · ${kind} ──\n${message}\nreplay: ${testApp.database.kind === 'postgresql' ? `TEST_DATABASE_URL=${process.env.TEST_DATABASE_URL} ` : ''}FUZZ_SEED=${SEED} FUZZ_OPS='${op.label}' FUZZ_KINDS=${kind}${path ? ` FUZZ_PATH='${path}'` : ''} npx vitest run test/fuzz/openapi-fuzz.test.ts`,
          );
        }
      }
      if (failures.length > 0) throw new Error(`${failures.length} of ${opKinds.length} kinds failed on ${op.label}\n\n${failures.join('\n\n')}`);
    }, 900_000);
  }

  it.skipIf(narrowed)('reached real rows and the validation behind the gates (the fuzz is not vacuous)', () => {
    const statuses = (label: string) => [...(seen.get(label) ?? new Map()).keys()];
    const saw = (label: string, prefix: string) => statuses(label).some((s) => s.startsWith(prefix));
    // Anchors: records were created, read, updated and deleted through generated requests.
    for (const [label, prefix] of [
      ['POST /customers', '201'],
      ['GET /jobs', '200'],
      ['GET /customers/{id}', '200'],
      ['PATCH /customers/{id}', '200'],
      ['PATCH /customers/{id}', '422 validation.failed'],
      ['DELETE /customers/{id}', '204'],
    ] as const) {
      expect(saw(label, prefix), `${label} never answered ${prefix}: ${statuses(label).join(', ')}`).toBe(true);
    }
    // Answers only a request that reached an existing record gets (the order of checks: docs/decisions.md).
    const pastExistence = /^(2\d\d|409|412|422) /;
    for (const op of operations) {
      const answers = statuses(op.label);
      expect(answers.length, `${op.label} was never fuzzed`).toBeGreaterThan(0);
      // Path ids hit real rows.
      if (op.pathParams.length) expect(answers.some((s) => pastExistence.test(s)), `${op.label}: never reached a record (${answers.join(', ')})`).toBe(true);
      // ETags work: some answer got past If-Match.
      if (op.ifMatch) expect(answers.some((s) => /^(2\d\d|409|422) /.test(s)), `${op.label}: never past If-Match (${answers.join(', ')})`).toBe(true);
      // Bodies reach validation: some answer is a 2xx or a business-rule 4xx, not only parsing errors.
      if (op.body) expect(answers.some((s) => /^(2\d\d|422|409) /.test(s)), `${op.label}: bodies never reached validation (${answers.join(', ')})`).toBe(true);
    }
    expect(kinds.length).toBeGreaterThan(10);
  });
});

