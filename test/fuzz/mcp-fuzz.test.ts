// Property-based fuzz of the MCP endpoint (POST /mcp), generated from its own tools/list with fast-check.
//
// Every tool that tools/list shows an all-scope key gets one vitest test (none is listed by hand: a new resource
// joins by itself). In it, for every mutation kind that applies (test/fuzz/mcp-arbitraries.ts `mcpKinds`: valid,
// wrong-type, nul, surrogate, huge-string, numbers, proto-keys, unknown-member, deep-nesting, array-for-object,
// missing-required, no-record), fast-check generates arguments that start VALID (from the tool's inputSchema:
// required members, the body member's properties, ids of records seeded through the REST API, the current etag for
// update/delete, a fresh idempotency_key) and then mutates them, and sends them as a raw JSON-RPC tools/call. Every
// answer must be: an HTTP answer below 500 (a 4xx being a problem+json of the catalog); a JSON-RPC result, never a
// JSON-RPC error; a tool error whose problem (the JSON its text carries) has a code in the document's x-error-codes catalog with
// that status, never internal.error, and whose text names the code and shows no stack frame, file path, SQL or
// driver name; and a refused call, or any call of a read-only tool, leaves the database fingerprint unchanged
// (World and WriteWatch of the REST fuzz, test/fuzz/fuzz-world.ts). A last test sends raw JSON-RPC mutations to
// the endpoint as a whole (malformed JSON, a body that is not JSON-RPC, unknown methods, params of the wrong type,
// huge bodies, wrong media types): JSON-RPC errors (never internal) or problem+json 4xx, never 5xx.
//
// Bounded and deterministic like the REST fuzz: FUZZ_SEED (default 20260430) seeds every property (each database,
// tool and kind derives its own seed, so the embedded and the PostgreSQL run send different calls); FUZZ_RUNS
// (default 2) calls per tool and mutation kind, four times that many valid calls; shrinking stops after FUZZ_MAX_SHRINKS (default 20) steps. No timing is
// asserted. A longer run, or a replay of a failure with the seed and path its message prints:
//   FUZZ_RUNS=20 FUZZ_SEED=$RANDOM npx vitest run test/fuzz/mcp-fuzz.test.ts
//   FUZZ_TOOLS=list_statuses,update_job FUZZ_KINDS=wrong-type FUZZ_PATH='3:0' npx vitest run test/fuzz/mcp-fuzz.test.ts

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tenant } from '../helpers/app.ts';
import { deriveSeed, fuzzKnobs, startFuzzApp } from './fuzz-setup.ts';
import { World } from './fuzz-world.ts';
import { kindsOf, mcpKinds, planArbitrary, shapeOf, type McpToolModel } from './mcp-arbitraries.ts';
import { describeCall, MCP_HEADERS, runCall } from './mcp-request.ts';
import { rawCases, rawEnvelopeArb, sendRaw } from './mcp-raw.ts';
import { buildModel } from './openapi-model.ts';
import type { GenContext } from './openapi-arbitraries.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2);
// Valid calls are most of what reaches the services and succeeds (an update with a few random fields is often a
// business refusal): four times the runs of a mutation kind.
const VALID_RUNS = RUNS * 4;
const { seed: SEED, maxShrinks: MAX_SHRINKS, only: ONLY_TOOLS, kinds: ONLY_KINDS, replayPath: REPLAY_PATH, narrowed } = fuzzKnobs('FUZZ_TOOLS');

// The tools come from the running app, so they are known before the tests are declared: the app starts, and an
// all-scope key lists them, while this file is collected (fuzz-setup.ts).
const { receiver, writes, testApp } = await startFuzzApp();
const model = buildModel(await (await fetch(`${testApp.url}/api/v2/openapi.json`)).json());
const tenant: Tenant = await testApp.tenant({ name: 'MCP Fuzz Tenant' });
const listed = await fetch(`${testApp.url}/mcp`, {
  method: 'POST',
  headers: { ...MCP_HEADERS, authorization: `Bearer ${tenant.token}` },
  body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/list' }),
});
const tools = ((await listed.json()).result?.tools ?? []) as McpToolModel[];
const shapes = tools.map((tool) => shapeOf(model, tool)).filter((shape) => !ONLY_TOOLS || ONLY_TOOLS.includes(shape.tool.name));

let world: World;
let ctx: GenContext;

/** Answers seen per tool: "ok", a tool error's code or "<status> <code>" -> count (the fuzz is not vacuous). */
const seen = new Map<string, Map<string, number>>();
/** Distinct failures (tool, kind, tag, check) -> the smallest reproduction. */
const distinct = new Map<string, string>();

const seedOf = (...parts: string[]) => deriveSeed(SEED, testApp.database.kind, ...parts);

/** fast-check's report without the stack frames it embeds, and the replay command. */
function report(error: unknown, label: string, replay: string): string {
  const message = String((error as Error).message ?? error)
    .split('\n')
    .filter((line) => !/^\s+at /.test(line))
    .join('\n');
  const path = /path: "([^"]*)"/.exec(message)?.[1];
  const db = testApp.database.kind === 'postgresql' ? `TEST_DATABASE_URL=${process.env.TEST_DATABASE_URL} ` : '';
  return `── ${label} ──\n${message}\nreplay: ${db}FUZZ_SEED=${SEED} ${replay}${path ? ` FUZZ_PATH='${path}'` : ''} npx vitest run test/fuzz/mcp-fuzz.test.ts`;
}

beforeAll(async () => {
  world = new World(testApp, tenant, model, receiver.url, writes);
  await world.seed();
  ctx = { model, world };
}, 300_000);

afterAll(async () => {
  if (distinct.size > 0) console.log(`mcp fuzz: ${distinct.size} distinct failures (seed ${SEED}, ${RUNS} runs per tool and kind)\n${[...distinct.values()].join('\n')}`);
  await testApp.close();
  await receiver.close();
});

describe('MCP fuzz', () => {
  it('derives its tools from tools/list, and the records their ids name from the tools schemas', () => {
    expect(listed.status).toBe(200);
    expect(tools.length).toBeGreaterThan(20);
    for (const name of ['get_customer', 'update_customer', 'list_customer_notes', 'update_contact_linkage']) expect(tools.map((t) => t.name)).toContain(name);
    const byName = new Map(shapes.map((shape) => [shape.tool.name, shape]));
    if (!ONLY_TOOLS) {
      expect(byName.get('get_customer')?.idPool).toBe('customers');
      expect(byName.get('get_note')?.idPool).toBe('notes');
      expect(byName.get('create_customer_note')?.idPool).toBe('customers');
      expect(byName.get('update_contact_linkage')?.child).toEqual({ name: 'linkage_id', pool: 'contacts/linkages' });
    }
    // Every tool that takes a record id knows the pool of that id (else its calls would only ever miss).
    for (const shape of shapes) if (shape.properties.id) expect(shape.idPool, shape.tool.name).toBeDefined();
    expect(model.catalog.get('validation.failed')).toBe(422);
  });

  for (const shape of shapes) {
    it(shape.tool.name, async () => {
      const failures: string[] = [];
      const kinds = kindsOf(shape).filter((k) => !ONLY_KINDS || ONLY_KINDS.includes(k));
      for (const kind of kinds) {
        try {
          await fc.assert(
            fc.asyncProperty(fc.limitShrink(planArbitrary(ctx, shape, kind), MAX_SHRINKS), async (plan) => {
              const outcome = await runCall(model, world, testApp.url, tenant.token, shape, plan);
              const counts = seen.get(shape.tool.name) ?? new Map<string, number>();
              counts.set(outcome.answer, (counts.get(outcome.answer) ?? 0) + 1);
              seen.set(shape.tool.name, counts);
              if (outcome.failures.length === 0) return;
              const example = describeCall(outcome);
              for (const f of outcome.failures) {
                const signature = `• [${f.check}] ${shape.tool.name} ${kind}/${plan.tag}`;
                const previous = distinct.get(signature);
                if (!previous || previous.length > signature.length + example.length + 1) distinct.set(signature, `${signature}\n${example}`);
              }
              throw new Error(`${outcome.failures.map((f) => `[${f.check}] ${f.detail}`).join('\n')}\n(${kind}: ${plan.tag})\n${example}`);
            }),
            { seed: seedOf(shape.tool.name, kind), numRuns: kind === 'valid' ? VALID_RUNS : RUNS, includeErrorInReport: true, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) },
          );
        } catch (error) {
          failures.push(report(error, `${shape.tool.name} · ${kind}`, `FUZZ_TOOLS=${shape.tool.name} FUZZ_KINDS=${kind}`));
        }
      }
      if (failures.length > 0) throw new Error(`${failures.length} of ${kinds.length} kinds failed on ${shape.tool.name}\n\n${failures.join('\n\n')}`);
    }, 900_000);
  }

  it.skipIf(Boolean(ONLY_TOOLS || ONLY_KINDS))('answers raw JSON-RPC mutations of the endpoint with JSON-RPC errors or problem+json 4xx, never 5xx, and changes nothing', async () => {
    const failures: string[] = [];
    for (const raw of rawCases()) {
      const outcome = await sendRaw(model, world, testApp.url, tenant.token, raw);
      if (outcome.failures.length > 0) failures.push(`• ${raw.label}: ${outcome.failures.map((f) => `[${f.check}] ${f.detail}`).join('; ')}\n${outcome.shown}`);
    }
    try {
      await fc.assert(
        fc.asyncProperty(rawEnvelopeArb(), async (raw) => {
          const outcome = await sendRaw(model, world, testApp.url, tenant.token, raw);
          if (outcome.failures.length > 0) throw new Error(`${outcome.failures.map((f) => `[${f.check}] ${f.detail}`).join('\n')}\n${outcome.shown}`);
        }),
        { seed: seedOf('raw'), numRuns: RUNS * 20, includeErrorInReport: true, ...(REPLAY_PATH ? { path: REPLAY_PATH } : {}) },
      );
    } catch (error) {
      failures.push(report(error, 'raw JSON-RPC envelopes', ''));
    }
    if (failures.length > 0) throw new Error(`${failures.length} raw mutations failed\n\n${failures.join('\n\n')}`);
  }, 300_000);

  it.skipIf(narrowed)('reached real records and the services behind the arguments (the fuzz is not vacuous)', () => {
    const answers = (name: string) => [...(seen.get(name)?.keys() ?? [])];
    // Anchors: records were read, created, updated and deleted through generated calls.
    for (const name of ['list_customers', 'get_customer', 'create_customer', 'update_customer', 'delete_customer', 'get_note', 'me']) {
      expect(answers(name), `${name} never succeeded: ${answers(name).join(', ')}`).toContain('ok');
    }
    expect(answers('update_customer'), answers('update_customer').join(', ')).toContain('validation.failed');
    for (const shape of shapes) {
      const seenHere = answers(shape.tool.name);
      expect(seenHere.length, `${shape.tool.name} was never called`).toBeGreaterThan(0);
      // Ids hit real records; etags got past the precondition; arguments reached the service (not only the gates).
      if (shape.idPool) expect(seenHere.some((a) => a !== 'resource.not_found' && !/^(rpc|\d)/.test(a)), `${shape.tool.name}: never reached a record (${seenHere.join(', ')})`).toBe(true);
      if (shape.properties.etag) expect(seenHere.some((a) => a === 'ok' || /^(validation|conflict|business)\./.test(a) || a.endsWith('.conflict')), `${shape.tool.name}: never past the etag (${seenHere.join(', ')})`).toBe(true);
    }
    expect(mcpKinds.length).toBeGreaterThan(10);
  });
});
