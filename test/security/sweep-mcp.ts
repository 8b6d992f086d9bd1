import { randomUUID } from 'node:crypto';
import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallResult } from '../mcp/helpers.ts';
import { garbageCursor, normalise, PLACEHOLDER, pool, randomIdLike, randomMarker, setAt, snake, spread, type IdValue } from './sweep-kit.ts';
import { alternativeMembers, bodyTemplate, collectionKind, deref, kindOfIdName, resourceKind, restPositions, type Model, type Operation, type RestPosition, type Where } from './sweep-openapi.ts';
import { pick, sharedKinds, type Check, type Side } from './sweep-rest.ts';

// The MCP half of the sweep: every tool of tools/list (A's all-scope key), every argument of its input schema that
// names a record, sent by A once with B's value and once with a random one, every other argument being A's own
// valid value; the two tool results must be the same once the substituted value is replaced by a placeholder.
//
// A tool stands for the OpenAPI operation whose operationId it is in snake_case (listCustomerNotes ->
// list_customer_notes, convertLead -> convert_lead; src/mcp/tools.ts takes each tool's input schema from that
// operation). The kinds of its arguments come from that operation, as the REST half derives them: the path
// parameters (`id`, an action's `linkage_id`), the query parameters of a list by their REST names (id filters,
// custom_fields, cursor, q: restPositions), and the record under the body key, walked as REST walks a body
// (bodyTemplate: ids, child entries, polymorphic pairs, custom_fields keys), plus the lists of ids (`asset_ids`,
// `user_ids`, a replay's `event_ids`), whose entries the REST body template does not fill.

export interface ListedTool {
  name: string;
  inputSchema: { properties?: Record<string, any>; required?: string[] };
  annotations?: { readOnlyHint?: boolean };
}

export interface McpPosition {
  tool: ListedTool;
  op: Operation | undefined;
  where: Where;
  /** Where the value goes in the arguments: ['id'], ['customer_id'], ['job', 'lineitems', 0, 'item_id']. */
  path: (string | number)[];
  /** The kind of record expected there ('cursor', 'search' as in RestPosition; `?<name>` when none was found). */
  kind: string;
  variant?: { field: string; value: string };
  key?: { relatedName?: string };
  childOf?: boolean;
  integer?: boolean;
  label: string;
}

export interface McpSweep {
  tools: ListedTool[];
  /** tool name -> the operation it stands for (tools without one: `me`). */
  operations: Map<string, Operation>;
  positions: McpPosition[];
  skipped: { label: string; reason: string }[];
  checks: (Check & { position: McpPosition })[];
}

/** The operation a tool stands for: the one whose operationId is the tool's name in camelCase. */
export function toolOperation(model: Model, name: string): Operation | undefined {
  return model.ops.find((o) => typeof o.op.operationId === 'string' && snake(o.op.operationId) === name);
}

const isIdList = (name: string, schema: any) => /_ids$/.test(name) && [schema?.items?.type].flat().some((t) => t === 'string' || t === 'integer');
const idLike = (name: string, schema: any) => schema?.format === 'uuid' || /(^|_)ids?$/.test(name);

/** The branch of an anyOf / oneOf whose members hold the template's (the body member's wrapped or bare form). */
function branchOf(schema: any, node: unknown): any {
  const branches = [...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])].filter((b: any) => b?.properties);
  if (branches.length === 0) return schema;
  const keys = node && typeof node === 'object' ? Object.keys(node) : [];
  return branches.find((b: any) => keys.every((k) => k in b.properties)) ?? branches[0];
}

/**
 * Lists of ids (`asset_ids`, `event_ids`) in a body member, beside the entries the template already has
 * (recursively). A list that is one of several alternative members (a replay's event_ids, or since) replaces the
 * alternative the template sends (alternativeMembers).
 */
function idLists(model: Model, schema: any, node: any, path: (string | number)[], out: IdList[], userKind: string): void {
  const s = branchOf(deref(model.doc, schema), node);
  if (Array.isArray(node)) {
    node.forEach((entry, i) => idLists(model, s?.items, entry, [...path, i], out, userKind));
    return;
  }
  if (!node || typeof node !== 'object' || !s?.properties) return;
  for (const [name, prop] of Object.entries<any>(s.properties)) {
    if (prop?.readOnly) continue;
    if (isIdList(name, prop)) {
      const integer = [prop.items.type].flat().includes('integer');
      const instead = Object.keys(alternativeMembers(Object.keys(s.properties)) ?? {}).filter((k) => k !== name);
      out.push({ path: [...path, name, 0], kind: kindOfIdName(model, name.replace(/s$/, ''), integer, prop.description, userKind) ?? `?${name}`, integer, instead });
    } else if (node[name] !== undefined) idLists(model, prop, node[name], [...path, name], out, userKind);
  }
}

interface IdList {
  path: (string | number)[];
  kind: string;
  integer: boolean;
  /** Members of the same object the template sends in its place (left out when the list is sent). */
  instead: string[];
}

/** The values A puts in an operation's path parameters (its first record of each, under the previous one). */
function pathValues(model: Model, op: Operation | undefined, side: Side): Record<string, IdValue> {
  const values: Record<string, IdValue> = {};
  let previous: string | undefined;
  for (const p of op?.params.filter((x) => x.in === 'path') ?? []) {
    const kind = collectionKind(model, op!.path, p.name);
    const list = model.lists.find((l) => l.kind === kind);
    const ref = kind ? pick(side.catalog, kind, list?.parentKind ? { parent: previous } : {}) : undefined;
    if (ref) values[p.name] = ref.id;
    previous = ref === undefined ? undefined : String(ref.id);
  }
  return values;
}

/**
 * The id positions of one tool and A's valid arguments around them. An argument that looks like an id (`format:
 * uuid`, a name in _id/_ids) and is none of the above gets a position of unknown kind, so that it is reported.
 */
export function toolPositions(model: Model, tool: ListedTool, a: Side, restByOp: Map<Operation, RestPosition[]>, userKind: string): { op: Operation | undefined; positions: McpPosition[]; template: Record<string, unknown> } {
  const op = toolOperation(model, tool.name);
  const properties = tool.inputSchema.properties ?? {};
  const positions: McpPosition[] = [];
  const template: Record<string, unknown> = {};
  const at = (path: (string | number)[], extra: Omit<McpPosition, 'tool' | 'op' | 'path' | 'label'>, suffix = '') => {
    positions.push({ tool, op, path, ...extra, label: `${tool.name} ${path.join('.')}${extra.key ? '[<id>]' : ''}${extra.variant ? ` (${extra.variant.field}=${extra.variant.value})` : ''}${suffix}` });
  };
  const aPath = pathValues(model, op, a);
  // A's records: the first of each kind, the next one when a body names the kind again (a transfer's from and to
  // locations must differ); a child entry of the tool's record, a lookup entry of its class.
  const named = new Map<string, number>();
  const fill = (kind: string, opts: { childOf?: boolean; relatedName?: string }) => {
    if (opts.childOf || opts.relatedName) return pick(a.catalog, kind, { parent: opts.childOf && aPath.id !== undefined ? String(aPath.id) : undefined, relatedName: opts.relatedName })?.id;
    const refs = a.catalog.refs.get(kind) ?? [];
    const n = named.get(kind) ?? 0;
    named.set(kind, n + 1);
    return (refs[n] ?? refs[0])?.id;
  };
  const params = new Map((op?.params ?? []).map((p) => [p.name as string, p]));
  for (const [name, schema] of Object.entries<any>(properties)) {
    const param = params.get(name);
    if (param?.in === 'path') {
      at([name], { where: 'path', kind: collectionKind(model, op!.path, name) ?? kindOfIdName(model, name, false, param.description, userKind) ?? `?${name}` });
      if (aPath[name] !== undefined) template[name] = aPath[name];
    } else if (param?.in === 'query') {
      // The list parameters, by their REST names: the REST half's positions of the same parameter.
      for (const p of (op && restByOp.get(op)) ?? []) {
        if (p.name !== name || (p.where !== 'query' && p.where !== 'cursor')) continue;
        at([name], { where: p.where, kind: p.kind, variant: p.variant, key: p.key, integer: p.integer }, p.kind === 'search' ? " (B's text)" : '');
      }
    } else if (name === 'etag' || name === 'idempotency_key') {
      // Filled for each call (runMcpSweep): the named record's ETag, a fresh key.
    } else if (op && (schema?.properties || schema?.anyOf || schema?.oneOf)) {
      // The record under the body key (or an action's body member), as REST's body template fills it.
      const made = bodyTemplate(model, schema, fill, userKind, resourceKind(model, op.path));
      const lists: IdList[] = [];
      idLists(model, schema, made.body, [], lists, userKind);
      if (made.positions.length === 0 && lists.length === 0 && !tool.inputSchema.required?.includes(name)) continue;
      template[name] = made.body;
      for (const pos of made.positions) at([name, ...pos.path], { where: 'body', kind: pos.kind, variant: pos.variant, key: pos.key, childOf: pos.childOf, integer: pos.integer });
      for (const list of lists) {
        const value = list.kind.startsWith('?') ? undefined : fill(list.kind, {});
        if (value === undefined && !list.kind.startsWith('?')) continue; // nothing of A's of that kind to name
        setAt(template, [name, ...list.path.slice(0, -1)], value === undefined ? [] : [list.integer ? Number(value) : value]);
        const owner = list.path.slice(0, -2).reduce((node: any, seg) => node[seg], template[name]);
        for (const member of list.instead) delete owner[member];
        at([name, ...list.path], { where: 'body', kind: list.kind, integer: list.integer });
      }
    } else if (idLike(name, schema)) {
      at([name], { where: 'body', kind: `?${name}` });
    }
  }
  return { op, positions, template };
}

/** A tool result as the sweep compares it (answerOf). */
interface Answer {
  isError: boolean;
  structuredContent: any;
  /** The problem of a refusal. */
  problem: any;
  /** The lines of the text that are not JSON. */
  text: string;
  /** The lines of the text that are JSON (a record, a list, the problem), as values. */
  json: unknown[];
}

/**
 * The parts of a tool result: the problem of a refusal is the JSON its text carries after the first line
 * (src/mcp/tool-errors.ts). JSON in the text is compared as values, so that normalise drops its request_id as it
 * does in the structured content.
 */
function answerOf(result: CallResult): Answer {
  const lines = (result.content as { type: string; text?: string }[]).flatMap((c) => (c.text ?? '').split('\n'));
  const parsed = lines.map((line): unknown => {
    try {
      const value = JSON.parse(line);
      return value && typeof value === 'object' ? value : undefined;
    } catch {
      return undefined;
    }
  });
  const structured = result.structuredContent as any;
  const carried = parsed.find((v): v is { error: unknown } => typeof v === 'object' && v !== null && !Array.isArray(v) && 'error' in v);
  return {
    isError: result.isError === true,
    structuredContent: structured,
    problem: carried?.error,
    text: lines.filter((_, i) => parsed[i] === undefined).join('\n'),
    json: parsed.filter((v) => v !== undefined),
  };
}

/** Whether the random value's answer shows that the position was looked at (see Check.vacuous). */
function vacuity(position: McpPosition, result: Answer): string | null {
  const error = result.isError ? result.problem : undefined;
  if (position.where === 'cursor') return error?.code === 'cursor.invalid' ? null : `a garbage cursor answered ${error?.code ?? 'a result'}`;
  if (!error) {
    // A write that takes a list of ids as a filter (a replay's event_ids) answers the list it acted on: emptied.
    const list = String(position.path.filter((seg) => typeof seg === 'string').pop());
    const emptied = Array.isArray(result.structuredContent?.data?.[list]) && result.structuredContent.data[list].length === 0;
    if (!position.tool.annotations?.readOnlyHint) return emptied && !JSON.stringify(result.structuredContent).includes(PLACEHOLDER) ? null : 'a random value was accepted';
    if (position.where === 'path') return 'a random id was found';
    return Array.isArray(result.structuredContent?.data) && result.structuredContent.data.length > 0 ? 'a random filter value did not empty the list' : null;
  }
  if (error.code === 'resource.not_found') return null;
  // A list argument that names no record of the caller's (an unknown custom field id) is refused naming it, as REST
  // refuses the query parameter.
  if (error.code === 'filter.invalid' && position.where === 'query' && typeof error.detail === 'string' && error.detail.includes(String(position.path[0]))) return null;
  if (error.code === 'validation.failed' && error.errors && typeof error.errors === 'object') {
    // The field by its name, its path in the body member (`asset_ids.0`), or the placeholder (a custom_fields key).
    const last = String(position.path.filter((seg) => typeof seg === 'string').pop());
    const path = position.path.join('.');
    const keys = Object.keys(error.errors);
    const named = keys.some((k) => k === last || k.endsWith(`.${last}`) || path.endsWith(`.${k}`) || k.includes('<ID>') || (position.variant && k === position.variant.field));
    return named ? null : `validation.failed names ${keys.join(', ')}, not ${position.path.join('.')}`;
  }
  return `refused with ${error.code}, not resource.not_found or an error naming the argument`;
}

/** `cursorsB`: B's next_cursor of each list tool (mcpCursors in sweep-cursors.ts). */
export async function runMcpSweep(model: Model, clientA: McpClient, a: Side, b: Side, cursorsB: Map<string, string>, userKind: string, width: number): Promise<McpSweep> {
  const tools = (await clientA.listTools()).tools as ListedTool[];
  const shared = sharedKinds(a.catalog, b.catalog);
  const { positions: rest } = restPositions(model, () => () => undefined, userKind);
  const restByOp = new Map<Operation, RestPosition[]>();
  for (const p of rest) restByOp.set(p.op, [...(restByOp.get(p.op) ?? []), p]);
  const operations = new Map<string, Operation>();
  const positions: McpPosition[] = [];
  const skipped: McpSweep['skipped'] = [];
  const jobs: { position: McpPosition; foreign: IdValue; random: IdValue; records: (IdValue | undefined)[]; args: (value: IdValue, foreign: IdValue, record: IdValue | undefined) => Record<string, unknown> }[] = [];

  for (const tool of tools) {
    const derived = toolPositions(model, tool, a, restByOp, userKind);
    if (derived.op) operations.set(tool.name, derived.op);
    positions.push(...derived.positions);
    for (const position of derived.positions) {
      const { kind, where, op } = position;
      if (kind.startsWith('?')) {
        skipped.push({ label: position.label, reason: op ? `no kind of record matches ${position.path.join('.')}` : 'the tool stands for no operation of the document' });
        continue;
      }
      let foreigns: IdValue[];
      let random: IdValue;
      if (where === 'cursor') {
        foreigns = [...new Set([cursorsB.get(tool.name), op && b.restCursors.get(op.path)].filter((c): c is string => !!c))];
        random = garbageCursor();
      } else if (kind === 'search') {
        foreigns = [b.marker];
        random = randomMarker();
      } else if (shared.has(kind)) {
        skipped.push({ label: position.label, reason: `${kind} is a catalog both tenants share` });
        continue;
      } else {
        if (where === 'path') foreigns = spread((b.catalog.refs.get(kind) ?? []).map((r) => r.id));
        else {
          const resKind = op ? resourceKind(model, op.path) : undefined;
          const bTarget = resKind ? pick(b.catalog, resKind)?.id : undefined;
          const ref = pick(b.catalog, kind, { parent: position.childOf ? String(bTarget) : undefined, relatedName: position.key?.relatedName });
          foreigns = ref ? [ref.id] : [];
        }
        if (position.integer) foreigns = foreigns.map(Number);
        random = foreigns.length ? randomIdLike(foreigns[0]) : '';
      }
      if (foreigns.length === 0) {
        skipped.push({ label: position.label, reason: `tenant B has no ${kind} to use` });
        continue;
      }
      const args = (value: IdValue, foreign: IdValue, record: IdValue | undefined): Record<string, unknown> => {
        const out = structuredClone(derived.template);
        if (record !== undefined) out.id = record;
        if (position.key) setAt(out, position.path, { [String(value)]: 'sweep' });
        else setAt(out, position.path, value);
        if (position.variant) setAt(out, [...position.path.slice(0, -1), position.variant.field], position.variant.value);
        const properties = tool.inputSchema.properties ?? {};
        // The ETag of the record `id` names: B's own when B's record is named, for both values (as REST sends it),
        // so that a tool that found B's record would go on to write it.
        if (properties.etag) {
          const named = where === 'path' && position.path[0] === 'id' ? String(foreign) : String(out.id);
          out.etag = b.catalog.etags.get(named) ?? a.catalog.etags.get(named) ?? 'W/"0-0"';
        }
        if (properties.idempotency_key) out.idempotency_key = randomUUID();
        return out;
      };
      // A's records the tool may act on, for a value elsewhere than in `id`: the first, then others, in case the
      // first refuses the action whatever the value (a sales order already invoiced). Not for a child entry of
      // the record, nor under a second path parameter.
      const pathParams = op?.params.filter((p) => p.in === 'path') ?? [];
      const idKind = op && pathParams.length === 1 && pathParams[0].name === 'id' && where !== 'path' && !position.childOf ? collectionKind(model, op.path, 'id') : undefined;
      const records = idKind ? spread((a.catalog.refs.get(idKind) ?? []).map((r) => r.id), 4) : [undefined];
      for (const foreign of foreigns) jobs.push({ position, foreign, random, records, args });
    }
  }

  const checks = await pool(jobs, width, async ({ position, foreign, random, records, args }) => {
    const call = async (value: IdValue, record: IdValue | undefined) => {
      const sent = args(value, foreign, record);
      const result = (await clientA.callTool({ name: position.tool.name, arguments: sent })) as CallResult;
      const substituted = [value, ...(typeof sent.idempotency_key === 'string' ? [sent.idempotency_key] : [])];
      return { sent, normalised: normalise(answerOf(result), substituted) as Answer };
    };
    // The random value first, on each of A's records in turn while it is refused for something else than the value.
    let r = await call(random, records[0]);
    let record = records[0];
    for (const next of records.slice(1)) {
      if (!r.normalised.isError || vacuity(position, r.normalised) === null) break;
      r = await call(random, next);
      record = next;
    }
    const f = await call(foreign, record);
    const vacuous = vacuity(position, r.normalised);
    return {
      position,
      label: position.label,
      request: `${position.tool.name} ${JSON.stringify({ ...f.sent, ...(f.sent.idempotency_key ? { idempotency_key: '<fresh>' } : {}) })}`,
      same: JSON.stringify(f.normalised) === JSON.stringify(r.normalised),
      foreign: f.normalised,
      random: r.normalised,
      vacuous,
    };
  });
  return { tools, operations, positions, skipped, checks };
}

/** The places every tool list must show somewhere (the sweep cannot pass by finding nothing), by what they are. */
const PLACES: Record<string, (p: McpPosition) => boolean> = {
  'the record id': (p) => p.where === 'path' && p.path[0] === 'id',
  "an action's own path id (linkage_id)": (p) => p.where === 'path' && p.path[0] !== 'id',
  'an id filter': (p) => p.where === 'query' && !p.key && p.kind !== 'search',
  'a polymorphic filter': (p) => p.where === 'query' && !!p.variant,
  'a custom_fields filter': (p) => p.where === 'query' && !!p.key,
  'a cursor': (p) => p.where === 'cursor',
  q: (p) => p.kind === 'search',
  'a body id': (p) => p.where === 'body' && p.path.length === 2,
  'an id in an entry (line items)': (p) => p.where === 'body' && p.path.some((seg) => typeof seg === 'number'),
  'the id of a child entry': (p) => !!p.childOf,
  'a polymorphic body id': (p) => p.where === 'body' && !!p.variant,
  'a custom_fields key': (p) => p.where === 'body' && !!p.key,
  'a list of ids': (p) => p.where === 'body' && /_ids$/.test(String(p.path[p.path.length - 2])),
};

/**
 * What the derivation missed, if anything: tools (fewer than a hundred listed), a tool with arguments that stands
 * for no operation, a kind of place found in no tool, a place the REST half found in an operation that a tool
 * stands for but not in the tool (matched by where, name and kind of record), a list tool without B's next_cursor.
 */
export function mcpCoverage(mcp: McpSweep, rest: RestPosition[], cursorsB: Map<string, string>): string[] {
  const problems: string[] = mcp.tools.length > 100 ? [] : [`tools/list shows ${mcp.tools.length} tools`];
  for (const tool of mcp.tools) {
    if (Object.keys(tool.inputSchema.properties ?? {}).length > 0 && !mcp.operations.has(tool.name)) problems.push(`${tool.name}: takes arguments, stands for no operation`);
    if (tool.inputSchema.properties?.cursor && !cursorsB.has(tool.name)) problems.push(`${tool.name}: no next_cursor of B's`);
  }
  for (const [place, test] of Object.entries(PLACES)) if (!mcp.positions.some(test)) problems.push(`no tool has ${place}`);
  const tail = (segments: (string | number)[]) => String(segments.filter((seg) => typeof seg === 'string' && !/^\d+$/.test(seg)).pop());
  const signature = (op: Operation | undefined, where: Where, name: string, kind: string, variant?: { value: string }) => `${op?.method} ${op?.path} ${where} ${name} ${kind} ${variant?.value ?? ''}`;
  const found = new Set(mcp.positions.map((p) => signature(p.op, p.where, tail(p.path), p.kind, p.variant)));
  const stood = new Set(mcp.operations.values());
  for (const p of rest.filter((x) => stood.has(x.op))) {
    if (!found.has(signature(p.op, p.where, tail(p.name.split('.')), p.kind, p.variant))) problems.push(`${p.label}: not a place of the tool that stands for it`);
  }
  return problems;
}
