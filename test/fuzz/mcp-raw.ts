import fc from 'fast-check';
import { fingerprintDiff, type World } from './fuzz-world.ts';
import { checkProblem, MCP_HEADERS, postMcp, type McpFailure } from './mcp-request.ts';
import type { OpenApiModel } from './openapi-model.ts';

// Raw JSON-RPC mutations of POST /mcp as a whole, below the tools: malformed JSON, bodies that are not JSON-RPC,
// unknown methods, params of the wrong type, huge bodies, wrong media types and Accept headers. The answer is a
// JSON-RPC error (any code but internal error, -32603), a JSON-RPC result, a 202 for a notification, or a 4xx
// problem+json of the catalog; never 5xx; and nothing of it writes to the database.

export interface RawCall {
  label: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

const INTERNAL_ERROR = -32603;
const call = (method: unknown, params?: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

/** The fixed cases: each sent once per run. */
export function rawCases(): RawCall[] {
  const cases: RawCall[] = [
    { label: 'empty body', body: '' },
    { label: 'truncated JSON', body: '{"jsonrpc":"2.0","id":1,"method":"tools/li' },
    { label: 'single quotes', body: "{'jsonrpc':'2.0','id':1,'method':'tools/list'}" },
    { label: 'trailing garbage', body: `${call('tools/list')}}` },
    { label: 'BOM', body: `\ufeff${call('tools/list')}` },
    { label: 'invalid UTF-8', body: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"'), Buffer.from([0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from('"}')]) },
    { label: 'NUL in the JSON text', body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"\u0000}' },
    { label: 'JSON null', body: 'null' },
    { label: 'JSON number', body: '1' },
    { label: 'JSON string', body: '"tools/list"' },
    { label: 'empty object', body: '{}' },
    { label: 'empty batch', body: '[]' },
    { label: 'batch of two lists', body: `[${call('tools/list')},${call('tools/list', undefined, 2)}]` },
    { label: 'batch with garbage', body: `[${call('tools/list')},1,"x",null]` },
    { label: 'no jsonrpc member', body: '{"id":1,"method":"tools/list"}' },
    { label: 'jsonrpc 1.0', body: '{"jsonrpc":"1.0","id":1,"method":"tools/list"}' },
    { label: 'a response, not a request', body: '{"jsonrpc":"2.0","id":1,"result":{}}' },
    { label: 'an error response', body: '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}' },
    { label: 'notification', body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
    { label: 'unknown method', body: call('tools/destroy') },
    { label: 'method __proto__', body: call('__proto__') },
    { label: 'method constructor', body: call('constructor') },
    { label: 'method toString', body: call('toString') },
    { label: 'method a number', body: call(1) },
    { label: 'method null', body: call(null) },
    { label: 'id an object', body: call('tools/list', undefined, {}) },
    { label: 'id an array', body: call('tools/list', undefined, [1]) },
    { label: 'id null', body: call('tools/list', undefined, null) },
    { label: 'id 1e999', body: '{"jsonrpc":"2.0","id":1e999,"method":"tools/list"}' },
    { label: 'tools/list params a string', body: call('tools/list', 'x') },
    { label: 'tools/list params an array', body: call('tools/list', [1]) },
    { label: 'tools/list cursor a number', body: call('tools/list', { cursor: 1 }) },
    { label: 'tools/call params a string', body: call('tools/call', 'me') },
    { label: 'tools/call params null', body: call('tools/call', null) },
    { label: 'tools/call params an array', body: call('tools/call', ['me']) },
    { label: 'tools/call without name', body: call('tools/call', { arguments: {} }) },
    { label: 'tools/call name a number', body: call('tools/call', { name: 1 }) },
    { label: 'tools/call name __proto__', body: call('tools/call', { name: '__proto__' }) },
    { label: 'tools/call name constructor', body: call('tools/call', { name: 'constructor' }) },
    { label: 'tools/call unknown tool', body: call('tools/call', { name: 'drop_everything', arguments: {} }) },
    { label: 'tools/call arguments a string', body: call('tools/call', { name: 'me', arguments: 'x' }) },
    { label: 'tools/call arguments an array', body: call('tools/call', { name: 'me', arguments: [] }) },
    { label: 'tools/call arguments null', body: call('tools/call', { name: 'get_customer', arguments: null }) },
    { label: 'tools/call arguments __proto__', body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"me","arguments":{"__proto__":{"x":1}}}}' },
    { label: 'tools/call _meta a string', body: call('tools/call', { name: 'me', arguments: {}, _meta: 'x' }) },
    { label: 'resources/read uri a number', body: call('resources/read', { uri: 1 }) },
    { label: 'resources/read unknown uri', body: call('resources/read', { uri: 'fieldline://nothing' }) },
    { label: 'resources/read file uri', body: call('resources/read', { uri: 'file:///etc/passwd' }) },
    { label: 'initialize params a string', body: call('initialize', 'x') },
    { label: 'initialize protocolVersion a number', body: call('initialize', { protocolVersion: 1, capabilities: {}, clientInfo: { name: 'x', version: '1' } }) },
    { label: 'deeply nested params', body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}` },
    { label: 'body over the limit', body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"${'x'.repeat(1_100_000)}"}}` },
    { label: 'many values', body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":[${'1,'.repeat(20_000)}1]}}` },
    { label: 'content-type text/plain', body: call('tools/list'), headers: { ...MCP_HEADERS, 'content-type': 'text/plain' } },
    { label: 'content-type form', body: call('tools/list'), headers: { ...MCP_HEADERS, 'content-type': 'application/x-www-form-urlencoded' } },
    { label: 'content-type xml', body: call('tools/list'), headers: { ...MCP_HEADERS, 'content-type': 'application/xml' } },
    { label: 'content-type utf-16', body: call('tools/list'), headers: { ...MCP_HEADERS, 'content-type': 'application/json; charset=utf-16' } },
    { label: 'no content-type', body: call('tools/list'), headers: { accept: MCP_HEADERS.accept } },
    { label: 'accept text/html', body: call('tools/list'), headers: { ...MCP_HEADERS, accept: 'text/html' } },
    { label: 'no accept', body: call('tools/list'), headers: { 'content-type': 'application/json' } },
    { label: 'unknown protocol version', body: call('tools/list'), headers: { ...MCP_HEADERS, 'mcp-protocol-version': '1999-01-01' } },
    { label: 'unknown API version', body: call('tools/list'), headers: { ...MCP_HEADERS, 'fieldline-version': '1999-01-01' } },
  ];
  return cases;
}

/** Generated envelopes: JSON-RPC-looking requests with arbitrary methods, ids and params, and arbitrary JSON. */
export function rawEnvelopeArb(): fc.Arbitrary<RawCall> {
  const methods = fc.oneof(
    fc.constantFrom('tools/call', 'tools/list', 'resources/list', 'resources/read', 'initialize', 'ping', 'prompts/list', 'completion/complete', 'logging/setLevel'),
    fc.string({ maxLength: 20 }),
  );
  const params = fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 3 }), fc.record({ name: fc.oneof(fc.constantFrom('me', 'get_customer', 'list_jobs'), fc.jsonValue({ maxDepth: 1 })), arguments: fc.jsonValue({ maxDepth: 3 }) }, { requiredKeys: [] }));
  const envelope = fc.record({ method: methods, params, id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })) }).map(({ method, params: p, id }) => ({ label: `envelope ${method}`, body: call(method, p, id) }));
  const anyJson = fc.jsonValue({ maxDepth: 4 }).map((value) => ({ label: 'any JSON', body: JSON.stringify(value) ?? 'null' }));
  const anyText = fc.string({ maxLength: 60, unit: 'binary' }).map((text) => ({ label: 'any text', body: text }));
  return fc.oneof({ weight: 6, arbitrary: envelope }, { weight: 2, arbitrary: anyJson }, { weight: 1, arbitrary: anyText });
}

/** Sends a raw call and checks the answer; a tool error in a result is checked by the tool fuzz, not here. */
export async function sendRaw(model: OpenApiModel, world: World, url: string, token: string, raw: RawCall): Promise<{ failures: McpFailure[]; shown: string }> {
  const before = await world.baseline();
  const received = await postMcp(url, token, raw.body, raw.headers ?? MCP_HEADERS);
  const after = await world.fingerprint();
  const failures: McpFailure[] = [];
  const messages = Array.isArray(received.json) ? received.json : received.json ? [received.json] : [];
  const rpc = messages.length > 0 && messages.every((m: any) => m?.jsonrpc === '2.0' && ('error' in m || 'result' in m));
  if (received.error) failures.push({ check: 'no-response', detail: received.error });
  else if (received.status >= 500) failures.push({ check: '5xx', detail: `answered ${received.status}` });
  else if (received.status === 202) {
    if (received.text !== '') failures.push({ check: 'body-on-202', detail: received.text.slice(0, 200) });
  } else if (rpc) {
    for (const m of messages) if (m.error?.code === INTERNAL_ERROR) failures.push({ check: 'json-rpc-internal-error', detail: String(m.error.message).slice(0, 300) });
  } else failures.push(...checkProblem(model, received));
  if (before !== after) failures.push({ check: 'db-changed', detail: fingerprintDiff(before, after) });
  const body = typeof raw.body === 'string' ? raw.body : Buffer.from(raw.body).toString('latin1');
  const shown = `  POST /mcp ${JSON.stringify(raw.headers ?? MCP_HEADERS)} ${JSON.stringify(body.length > 300 ? `${body.slice(0, 300)}…(${body.length})` : body)}\n  -> ${received.status} ${received.contentType}: ${JSON.stringify(received.text.slice(0, 400))}`;
  return { failures, shown };
}
