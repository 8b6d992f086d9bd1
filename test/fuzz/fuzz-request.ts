import { Huge, Ref, serialize, type JTree } from './json-tree.ts';
import { poolOfPathParam, type Corruption, type GenContext, type MultipartPart, type Plan, type QValue } from './openapi-arbitraries.ts';
import { fingerprintDiff, type World } from './fuzz-world.ts';
import { lookupHint, type FuzzOperation, type OpenApiModel } from './openapi-model.ts';

// Turns a Plan into a real HTTP request (ids of live records, current ETags, huge strings and deep nestings
// materialised), sends it, and checks the answer: never 5xx; every 4xx an RFC 9457 problem+json whose code has
// the documented form, is in the document's catalog with that status, equals the body's status and is one the
// operation documents; and a refused request (and any GET) leaves the database exactly as it was.

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Received {
  status: number;
  contentType: string;
  etag: string | null;
  text: string;
  json: any;
  /** The request got no HTTP answer (connection reset, timeout). */
  error?: string;
}

export interface Failure {
  check: string;
  detail: string;
}

export interface Outcome {
  sent: SentRequest;
  received: Received;
  failures: Failure[];
}

/** Percent-encodes a component; lone surrogates become their WTF-8 bytes (%ED%A0%80), as a sloppy client would send them. */
export function encodeComponent(s: string, keepBrackets = false): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      continue;
    }
    const ch = s[i];
    out += keepBrackets && (ch === '[' || ch === ']') ? ch : encodeURIComponent(ch);
  }
  return out;
}

const FALLBACK_ID = '01900000-0000-7000-8000-00000000f022';

/**
 * The {field_id} of an attachment path: a custom field definition of the class its description names (mostly the
 * attachment field the world configured, sometimes a field of another type: 422).
 */
function customFieldOf(world: World, description: string, n: number): string {
  const hint = lookupHint(description);
  const defs = hint ? world.customFields(hint.className) : [];
  const attachments = defs.filter((d) => d.field_type === 'attachment');
  const pool = n % 4 === 0 || attachments.length === 0 ? defs : attachments;
  return pool.length > 0 ? pool[n % pool.length].id : FALLBACK_ID;
}

const MULTIPART_BOUNDARY = 'fuzz-boundary-7f3a';

/** A multipart/form-data body of the parts (latin1: a part's text is its bytes), cut after `truncate` bytes when set. */
function multipartBody(parts: MultipartPart[], truncate: number | undefined): Uint8Array {
  let text = '';
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    text += `--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${part.type === undefined ? '' : `Content-Type: ${part.type}\r\n`}\r\n${part.data}\r\n`;
  }
  text += `--${MULTIPART_BOUNDARY}--\r\n`;
  const bytes = Buffer.from(text, 'latin1');
  return new Uint8Array(truncate === undefined ? bytes : bytes.subarray(0, Math.min(truncate, bytes.length)));
}

function corrupt(text: string, how: Corruption, at: number): string | Uint8Array {
  const firstString = text.indexOf('"');
  switch (how) {
    case 'truncate':
      return text.slice(0, text.length > 1 ? 1 + (at % (text.length - 1)) : 0);
    case 'append-brace':
      return `${text}}`;
    case 'single-quotes':
      return text.includes('"') ? text.replace(/"/g, "'") : `{'a': 1}`;
    case 'bom':
      return `\ufeff${text}`;
    case 'prefix-garbage':
      return `garbage${text}`;
    case 'nan-literal':
      return /:/.test(text) ? text.replace(/:\s*("(?:[^"\\]|\\.)*"|[-\d.eE+]+|true|false|null)/, ':NaN') : '{"a": NaN}';
    case 'trailing-comma':
      return text.endsWith('}') && text !== '{}' ? `${text.slice(0, -1)},}` : '{"a": 1,}';
    case 'comment':
      return `/* comment */${text}`;
    case 'concatenated':
      return `${text}${text}`;
    case 'bad-escape':
      return firstString >= 0 ? `${text.slice(0, firstString + 1)}\\uZZZZ${text.slice(firstString + 1)}` : '{"\\uZZZZ": 1}';
    case 'raw-control-char':
      return firstString >= 0 ? `${text.slice(0, firstString + 1)}\u0001\n${text.slice(firstString + 1)}` : '{"a\u0001": 1}';
    case 'invalid-utf8': {
      const k = firstString >= 0 ? firstString + 1 : 0;
      const source = firstString >= 0 ? text : '{"a": ""}';
      const split = firstString >= 0 ? k : 7;
      return Buffer.concat([Buffer.from(source.slice(0, split)), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(source.slice(split))]);
    }
    case 'unterminated-string':
      return firstString >= 0 ? text.slice(0, text.lastIndexOf('"')) : '{"a": "b';
    case 'duplicate-wrapper': {
      const m = /^\{("(?:[^"\\]|\\.)*"):/.exec(text);
      return m ? `{${m[1]}:"duplicate",${text.slice(1)}` : '{"a": 1, "a": 2}';
    }
  }
}

function textOf(v: string | Huge): string {
  return v instanceof Huge ? v.text() : v;
}

/** The concrete request of a plan. `ids` are the live ids its path named (for bookkeeping). */
export async function materialize(ctx: GenContext, world: World, baseUrl: string, token: string, op: FuzzOperation, plan: Plan): Promise<{ sent: SentRequest; ids: Record<string, string> }> {
  const ids: Record<string, string> = {};
  const segments = new Map<string, string>();
  let parentForId: string | undefined;
  // Deepest parameter first: a live linkage decides which contact {id} is (its parent).
  for (const param of [...op.pathParams].reverse()) {
    const choice = plan.path[param.name];
    const pool = poolOfPathParam(ctx, op, param.name);
    if ('live' in choice) {
      let id: string;
      if (param.name === 'id' && parentForId) id = parentForId;
      else if (pool) {
        const entry = await world.liveEntry(pool, choice.live);
        id = entry.id;
        if (entry.parent) parentForId = entry.parent;
      } else if (param.name === 'field_id') id = customFieldOf(world, param.description, choice.live);
      else if (param.name === 'file_id') id = (await world.liveFileId(choice.live)) ?? FALLBACK_ID;
      else id = FALLBACK_ID;
      const shown = choice.upper ? id.toUpperCase() : id;
      if (!choice.prefix && !choice.suffix && !choice.upper) ids[param.name] = id;
      segments.set(param.name, encodeComponent(`${choice.prefix ?? ''}${shown}${choice.suffix ?? ''}`));
    } else if ('other' in choice) {
      const entry = await world.liveEntry(choice.other, choice.n);
      segments.set(param.name, encodeComponent(entry.id));
    } else {
      const raw = textOf(choice.raw);
      segments.set(param.name, choice.encode ? encodeComponent(raw) : raw);
    }
  }
  const path = op.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => segments.get(name) ?? FALLBACK_ID);

  const value = async (v: QValue): Promise<string> => {
    if (v instanceof Ref) return `${v.prefix}${(await world.entry(v.pool, v.n)).id}${v.suffix}`;
    return textOf(v);
  };
  const query: string[] = [];
  for (const entry of plan.query) query.push(`${encodeComponent(textOf(entry.name), true)}=${encodeComponent(await value(entry.value))}`);
  const url = `${baseUrl}/api/v2${path}${query.length ? `?${query.join('&')}` : ''}`;

  const headers: Record<string, string> = {};
  const auth = plan.headers.auth;
  if (auth === 'valid') headers.authorization = `Bearer ${token}`;
  else if (auth !== 'none') {
    if ('raw' in auth) headers.authorization = textOf(auth.raw);
    else
      headers.authorization = {
        'lowercase-scheme': `bearer ${token}`,
        'double-space': `Bearer  ${token}`,
        'trailing-text': `Bearer ${token} extra`,
        'uppercased-token': `Bearer ${token.toUpperCase()}`,
      }[auth.template];
  }
  const ifMatch = plan.headers.ifMatch;
  if (ifMatch !== 'none') {
    if (typeof ifMatch === 'object' && 'raw' in ifMatch) headers['if-match'] = textOf(ifMatch.raw);
    else {
      const current = (ids.id && (await world.currentEtag(op.collection, ids.id))) || 'W/"1-0"';
      headers['if-match'] =
        ifMatch === 'current'
          ? current
          : { strong: current.replace(/^W\//, ''), padded: `  ${current}  `, list: `W/"1-0", ${current}`, 'lowercase-w': current.replace(/^W\//, 'w/') }[ifMatch.template];
    }
  }
  if (plan.headers.version !== undefined) headers['fieldline-version'] = plan.headers.version;
  if (plan.headers.requestId !== undefined) headers['x-request-id'] = plan.headers.requestId;
  if (plan.headers.idempotencyKey !== undefined) headers['idempotency-key'] = plan.headers.idempotencyKey;
  if (plan.headers.accept !== undefined) headers.accept = plan.headers.accept;
  if (plan.headers.contentEncoding !== undefined) headers['content-encoding'] = plan.headers.contentEncoding;

  let body: string | Uint8Array | undefined;
  const bodyPlan = plan.body;
  const serializeTree = async (tree: JTree) => {
    const refs = new Map<Ref, string>();
    await world.resolveRefs(tree, refs);
    return serialize(tree, (r) => refs.get(r)!);
  };
  let multipartType: string | undefined;
  if (bodyPlan.type === 'multipart') {
    body = multipartBody(bodyPlan.parts, bodyPlan.truncate);
    multipartType = `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`;
  }
  if (bodyPlan.type === 'json') body = await serializeTree(bodyPlan.tree);
  else if (bodyPlan.type === 'text') body = bodyPlan.text;
  else if (bodyPlan.type === 'corrupt') body = corrupt(await serializeTree(bodyPlan.tree), bodyPlan.how, bodyPlan.at);
  const contentType = plan.headers.contentType;
  if (body !== undefined) {
    if (contentType === undefined) headers['content-type'] = multipartType ?? 'application/json';
    else if (contentType !== null) headers['content-type'] = contentType;
  } else if (typeof contentType === 'string') headers['content-type'] = contentType;
  return { sent: { method: op.method, url, headers, body }, ids };
}

export async function send(request: SentRequest): Promise<Received> {
  try {
    const res = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: typeof request.body === 'string' || request.body === undefined ? request.body : new Uint8Array(request.body),
      redirect: 'manual',
      // Not a timing assertion: a request the server never answers would otherwise hang the suite.
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    const contentType = res.headers.get('content-type') ?? '';
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType, etag: res.headers.get('etag'), text, json };
  } catch (error) {
    return { status: 0, contentType: '', etag: null, text: '', json: undefined, error: String((error as Error)?.cause ?? error) };
  }
}

/** The contract every answer keeps, whatever was sent. */
export function checkResponse(model: OpenApiModel, op: FuzzOperation, r: Received): Failure[] {
  if (r.error) return [{ check: 'no-response', detail: `no HTTP answer: ${r.error}` }];
  if (r.status >= 500) return [{ check: '5xx', detail: `answered ${r.status}${r.json?.code ? ` ${r.json.code}` : ''}` }];
  if (r.status < 200 || (r.status >= 300 && r.status < 400)) return [{ check: 'unexpected-status', detail: `answered ${r.status}` }];
  if (r.status < 300) {
    return /problem\+json/.test(r.contentType) ? [{ check: 'problem-on-success', detail: `${r.status} with ${r.contentType}` }] : [];
  }
  if (!/^application\/problem\+json(;|$)/.test(r.contentType)) return [{ check: 'not-problem-json', detail: `${r.status} with Content-Type ${JSON.stringify(r.contentType)}` }];
  const failures: Failure[] = [];
  const body = r.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    failures.push({ check: 'problem-not-json', detail: `${r.status} body is not a JSON object` });
    return failures;
  }
  const code = body.code;
  if (typeof code !== 'string' || !model.codePattern.test(code)) failures.push({ check: 'bad-code-format', detail: `code ${JSON.stringify(code)} does not match ${model.codePattern}` });
  else if (!model.catalog.has(code)) failures.push({ check: 'unknown-code', detail: `code ${code} is not in the document's x-error-codes catalog` });
  else {
    if (model.catalog.get(code) !== r.status) failures.push({ check: 'catalog-status-mismatch', detail: `code ${code} is catalogued with ${model.catalog.get(code)}, answered ${r.status}` });
    if (!op.problemCodes.get(r.status)?.has(code)) failures.push({ check: 'undocumented-code', detail: `${op.label} does not document ${r.status} ${code}` });
  }
  if (body.status !== r.status) failures.push({ check: 'status-field-mismatch', detail: `body status ${JSON.stringify(body.status)} but HTTP ${r.status}` });
  return failures;
}

/** Sends a plan and checks it, the database fingerprint included. */
export async function runPlan(ctx: GenContext, world: World, baseUrl: string, token: string, op: FuzzOperation, plan: Plan): Promise<Outcome> {
  const { sent, ids } = await materialize(ctx, world, baseUrl, token, op, plan);
  const before = await world.baseline();
  const received = await send(sent);
  const after = await world.fingerprint();
  const failures = checkResponse(ctx.model, op, received);
  const refused = received.status >= 400 && received.status < 500;
  if ((refused || (op.method === 'GET' && received.status < 300)) && before !== after) {
    failures.push({ check: 'db-changed', detail: `${refused ? 'refused' : 'GET'} request changed the database: ${fingerprintDiff(before, after)}` });
  }
  world.observe(op.method, op.path, ids, received.status, received.etag);
  return { sent, received, failures };
}

const visible = (s: string, max: number) => {
  const json = JSON.stringify(s.length > max ? s.slice(0, max) : s);
  return s.length > max ? `${json}… (${s.length} chars)` : json;
};

/** The failing request and its answer, for a failure message. */
export function describeOutcome(o: Outcome): string {
  const { sent, received } = o;
  const url = new URL(sent.url);
  const target = `${url.pathname}${url.search}`;
  const headers = Object.entries(sent.headers)
    .map(([k, v]) => `${k}: ${k === 'authorization' && v.includes('svc_') ? v.replace(/svc_[0-9a-f-]{36}/i, 'svc_<token>') : visible(v, 80)}`)
    .join(', ');
  const body =
    sent.body === undefined
      ? '(none)'
      : typeof sent.body === 'string'
        ? `${sent.body.length} chars ${visible(sent.body, 300)}`
        : `${sent.body.length} bytes ${JSON.stringify(Buffer.from(sent.body).toString('latin1').slice(0, 300))}`;
  return [
    `request:  ${sent.method} ${target.length > 300 ? `${target.slice(0, 300)}… (${target.length} chars)` : target}`,
    `  headers: ${headers}`,
    `  body: ${body}`,
    received.error ? `response: none (${received.error})` : `response: ${received.status} ${received.contentType}`,
    received.error ? '' : `  body: ${visible(received.text, 600)}`,
  ]
    .filter(Boolean)
    .join('\n');
}
