import { randomUUID } from 'node:crypto';
import { JObj, Ref, Repeat, serialize, type JTree } from './json-tree.ts';
import { ETAG, IDEMPOTENCY_KEY, LIVE, PARENT, UPPER, type McpPlan, type ToolShape } from './mcp-arbitraries.ts';
import { fingerprintDiff, type World } from './fuzz-world.ts';
import type { OpenApiModel } from './openapi-model.ts';

// Sends MCP tool calls as a client would put them on the wire (raw JSON-RPC over POST /mcp, the Streamable HTTP
// headers, the arguments' JSON tree serialised as is) and checks the answer: an HTTP answer below 500; a 4xx is a
// problem+json of the catalog; a 200 carries a JSON-RPC result (never a JSON-RPC error for a tool call: the
// adapter answers every refusal as a tool error); a tool error's problem (the JSON of its text) has a catalog code with
// its status (never internal.error), and its text names the code and shows nothing of the internals. A refused
// call, and any call of a read-only tool, leaves the database fingerprint as it was.

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

export interface McpReceived {
  status: number;
  contentType: string;
  text: string;
  json: any;
  /** No HTTP answer at all (connection reset, timeout). */
  error?: string;
}

export interface McpFailure {
  check: string;
  detail: string;
}

export interface McpOutcome {
  body: string;
  received: McpReceived;
  failures: McpFailure[];
  /** The tool error's code, the HTTP problem's code, or "ok". */
  answer: string;
}

/** Resolves the Refs of the arguments: ids of live records, their current etags, fresh idempotency keys, body refs. */
async function resolveRefs(world: World, tree: JTree): Promise<Map<Ref, string>> {
  const resolved = new Map<Ref, string>();
  const value = async (pool: string, n: number): Promise<string> => {
    if (pool.startsWith(UPPER)) return (await value(pool.slice(UPPER.length), n)).toUpperCase();
    if (pool === IDEMPOTENCY_KEY) return randomUUID();
    if (pool.startsWith(LIVE)) return (await world.liveEntry(pool.slice(LIVE.length), n)).id;
    if (pool.startsWith(PARENT)) {
      const entry = await world.liveEntry(pool.slice(PARENT.length), n);
      return entry.parent ?? entry.id;
    }
    if (pool.startsWith(ETAG)) {
      const records = pool.slice(ETAG.length);
      const id = (await world.liveEntry(records, n)).id;
      return (await world.currentEtag(records, id)) ?? 'W/"1-0"';
    }
    return (await world.entry(pool, n)).id;
  };
  const walk = async (node: JTree): Promise<void> => {
    if (node instanceof Ref) resolved.set(node, await value(node.pool, node.n));
    else if (node instanceof Repeat) await walk(node.element);
    else if (Array.isArray(node)) for (const v of node) await walk(v);
    else if (node instanceof JObj) for (const [, v] of node.entries) await walk(v);
  };
  await walk(tree);
  return resolved;
}

let requestId = 0;

/** The JSON-RPC text of a tools/call of the plan's arguments. */
export async function callText(world: World, tool: string, plan: McpPlan): Promise<string> {
  const refs = await resolveRefs(world, plan.args);
  const args = serialize(plan.args, (ref) => refs.get(ref)!);
  return `{"jsonrpc":"2.0","id":${(requestId += 1)},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${args}}}`;
}

/** POST /mcp with the key; the body as given. */
export async function postMcp(url: string, token: string, body: string | Uint8Array, headers: Record<string, string> = MCP_HEADERS): Promise<McpReceived> {
  try {
    const res = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${token}` },
      body: typeof body === 'string' ? body : new Uint8Array(body),
      // Not a timing assertion: a request the server never answers would otherwise hang the suite.
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
  } catch (error) {
    return { status: 0, contentType: '', text: '', json: undefined, error: String((error as Error)?.cause ?? error) };
  }
}

/** Stack frames, file paths, SQL and driver names: what no answer shows of the server's insides. */
const INTERNALS = [/\n\s*at /, /\bat [\w$.<>]+ \(/, /(^|[\s(])\/(?:src|app|work|home|usr|node_modules)\//, /\.(?:ts|js|mjs):\d+/, /node_modules/, /\bSELECT\b.+\bFROM\b/i, /\bINSERT INTO\b/i, /\bUPDATE\b.+\bSET\b/, /Prisma|prisma\./, /PrismaClient|pglite|PGlite|SQLSTATE|pg_catalog|TypeError|ReferenceError|RangeError|ZodError/];

/** The contract of an HTTP answer that is not a JSON-RPC message: a 4xx problem+json of the catalog. */
export function checkProblem(model: OpenApiModel, r: McpReceived): McpFailure[] {
  if (r.error) return [{ check: 'no-response', detail: `no HTTP answer: ${r.error}` }];
  if (r.status >= 500) return [{ check: '5xx', detail: `answered ${r.status}${r.json?.code ? ` ${r.json.code}` : ''}` }];
  if (r.status < 400) return [{ check: 'unexpected-status', detail: `answered ${r.status} without a JSON-RPC message` }];
  if (!/^application\/problem\+json(;|$)/.test(r.contentType)) return [{ check: 'not-problem-json', detail: `${r.status} with ${JSON.stringify(r.contentType)}` }];
  const code = r.json?.code;
  if (!model.catalog.has(code)) return [{ check: 'unknown-code', detail: `code ${JSON.stringify(code)} is not in the catalog` }];
  const failures: McpFailure[] = [];
  if (model.catalog.get(code) !== r.status) failures.push({ check: 'catalog-status-mismatch', detail: `${code} is catalogued with ${model.catalog.get(code)}, answered ${r.status}` });
  if (r.json.status !== r.status) failures.push({ check: 'status-field-mismatch', detail: `body status ${r.json.status}, HTTP ${r.status}` });
  return failures;
}

/** The contract of a tool call's answer. */
export function checkToolAnswer(model: OpenApiModel, r: McpReceived): { failures: McpFailure[]; answer: string; refused: boolean } {
  if (r.status !== 200) {
    const failures = checkProblem(model, r);
    return { failures, answer: `${r.status} ${r.json?.code ?? '-'}`, refused: true };
  }
  const message = r.json;
  if (!message || message.jsonrpc !== '2.0') return { failures: [{ check: 'not-json-rpc', detail: `200 with ${r.text.slice(0, 200)}` }], answer: '200 ?', refused: true };
  if (message.error) {
    return { failures: [{ check: 'json-rpc-error', detail: `JSON-RPC error ${message.error.code}: ${String(message.error.message).slice(0, 300)}` }], answer: `rpc ${message.error.code}`, refused: true };
  }
  const result = message.result;
  if (!result || typeof result !== 'object') return { failures: [{ check: 'no-result', detail: r.text.slice(0, 200) }], answer: '200 ?', refused: true };
  const text = (result.content ?? []).map((c: { text?: string }) => c.text ?? '').join('\n');
  if (!result.isError) {
    const failures = result.structuredContent && typeof result.structuredContent === 'object' ? [] : [{ check: 'no-structured-content', detail: text.slice(0, 200) }];
    return { failures, answer: 'ok', refused: false };
  }
  // A refusal's problem is the JSON its text carries after the first line (src/mcp/tool-errors.ts); structured
  // content is what the output schema describes, so an error has none.
  const failures: McpFailure[] = [];
  const newline = text.indexOf('\n');
  let problem: any;
  try {
    problem = newline < 0 ? undefined : JSON.parse(text.slice(newline + 1))?.error;
  } catch {
    failures.push({ check: 'problem-not-json', detail: text.slice(0, 200) });
  }
  if (result.structuredContent !== undefined) failures.push({ check: 'error-with-structured-content', detail: JSON.stringify(result.structuredContent).slice(0, 200) });
  const code = problem?.code;
  if (typeof code !== 'string' || !model.codePattern.test(code)) failures.push({ check: 'bad-code-format', detail: `code ${JSON.stringify(code)}` });
  else if (!model.catalog.has(code)) failures.push({ check: 'unknown-code', detail: `code ${code} is not in the catalog` });
  else {
    if (model.catalog.get(code) !== problem.status) failures.push({ check: 'catalog-status-mismatch', detail: `${code} is catalogued with ${model.catalog.get(code)}, the tool error says ${problem.status}` });
    if (problem.status >= 500) failures.push({ check: 'internal-error', detail: `${code} (${problem.status}): ${text.slice(0, 200)}` });
  }
  if (typeof code === 'string' && !text.slice(0, newline).includes(code)) failures.push({ check: 'text-without-code', detail: text.slice(0, 200) });
  const shown = `${text}\n${JSON.stringify(problem ?? {})}`;
  const leak = INTERNALS.find((pattern) => pattern.test(shown));
  if (leak) failures.push({ check: 'internals-shown', detail: `${leak}: ${shown.slice(0, 300)}` });
  return { failures, answer: String(code), refused: true };
}

/** Sends the plan's call and checks it, the database fingerprint included; keeps the world's bookkeeping. */
export async function runCall(model: OpenApiModel, world: World, url: string, token: string, shape: ToolShape, plan: McpPlan): Promise<McpOutcome> {
  const body = await callText(world, shape.tool.name, plan);
  const before = await world.baseline();
  const received = await postMcp(url, token, body);
  const after = await world.fingerprint();
  const { failures, answer, refused } = checkToolAnswer(model, received);
  const readOnly = shape.tool.annotations?.readOnlyHint === true;
  if ((refused || readOnly) && before !== after) {
    failures.push({ check: 'db-changed', detail: `${refused ? 'a refused call' : 'a read-only tool'} changed the database: ${fingerprintDiff(before, after)}` });
  }
  if (!refused && !readOnly) observeWrite(world, shape, received.json?.result?.structuredContent);
  return { body, received, failures, answer };
}

/**
 * The world's bookkeeping after a successful write, in the REST terms it keeps (World.observe): every write may
 * move etags; a delete removes the record from its pool, and it or an action may remove records of other pools.
 */
function observeWrite(world: World, shape: ToolShape, structured: Record<string, unknown> | undefined): void {
  const { idPool } = shape;
  const deleted = structured?.deleted === true && typeof structured.id === 'string';
  if (deleted && idPool && !shape.child) world.observe('DELETE', `/${idPool}/{id}`, { id: structured.id as string }, 204, null);
  else world.observe('POST', '/mcp/{id}/write', {}, 200, null);
}

const visible = (s: string, max: number) => (s.length > max ? `${JSON.stringify(s.slice(0, max))}… (${s.length} chars)` : JSON.stringify(s));

/** The call and its answer, for a failure message (a minimal reproduction). */
export function describeCall(o: McpOutcome): string {
  const answer = o.received.error ? `no answer: ${o.received.error}` : `${o.received.status} ${o.received.contentType}: ${visible(o.received.text, 600)}`;
  return `  POST /mcp ${visible(o.body.replace(/svc_[0-9a-f-]{36}/gi, 'svc_<token>'), 700)}\n  -> ${answer}`;
}
