import type { Client } from '../helpers/http.ts';
import { addRef, emptyCatalog, kindOfBase, kindOfDescription, snake, type Catalog, type IdValue } from './sweep-kit.ts';

// What the sweep reads from GET /api/v2/openapi.json: the kinds of record (from the list responses), where each
// kind is listed and read, the child collections of records, and every operation with its id positions.

export type Doc = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function deref(doc: Doc, node: any): any {
  let n = node;
  for (let i = 0; n?.$ref && i < 20; i += 1) n = n.$ref.split('/').slice(1).reduce((o: any, k: string) => o[decodeURIComponent(k)], doc);
  return n;
}

const refName = (node: any): string | undefined => (typeof node?.$ref === 'string' ? node.$ref.split('/').pop() : undefined);

export interface Operation {
  method: (typeof METHODS)[number];
  path: string;
  op: any;
  params: any[];
}

export function operations(doc: Doc): Operation[] {
  return Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      method,
      path,
      op: item[method],
      params: [...(item.parameters ?? []), ...(item[method].parameters ?? [])].map((p: any) => deref(doc, p)),
    })),
  );
}

/** A list of records of one kind: `/customers`, or `/contacts/{id}/linkages` under a parent. */
export interface ListSource {
  path: string;
  kind: string;
  parentKind?: string;
  itemSchema: string;
  paginated: boolean;
}

export interface Model {
  doc: Doc;
  ops: Operation[];
  lists: ListSource[];
  /** kind -> GET path of one record (`/customers/{id}`). */
  byId: Map<string, string>;
  /** parent kind -> collection property -> child kind (job.lineitems -> lineitem). */
  children: Map<string, Map<string, string>>;
  /** Singleton objects of GET operations without parameters (/me: account, user, key). */
  singletons: { path: string; key: string; kind: string }[];
  kinds: Set<string>;
  /** Enum values of every body property by name (siteable_type -> [Customer, Lead]), for polymorphic ids. */
  enums: Map<string, string[]>;
  /** The documented example of every body property that has one (rule -> FREQ=MONTHLY;BYMONTHDAY=1): a value it accepts. */
  examples: Map<string, unknown>;
}

/** The kind of the collection a path parameter indexes: `/contacts/{id}` -> contact, `/contacts/{id}/linkages/{linkage_id}` -> contact_linkage. */
export function collectionKind(model: Model, path: string, param: string): string | undefined {
  const at = path.indexOf(`/{${param}}`);
  if (at < 0) return undefined;
  const collection = path.slice(0, at);
  return model.lists.find((l) => l.path === collection)?.kind ?? nestedKind(model, collection);
}

/**
 * The kind of a nested resource's record path (`/notes` of `/notes/{id}`): its records are listed only under
 * parents (`/customers/{id}/notes`, `/jobs/{id}/notes` ...), each a list of that kind.
 */
function nestedKind(model: Pick<Model, 'lists'>, collection: string): string | undefined {
  if (collection.includes('{')) return undefined;
  return model.lists.find((l) => /\{[a-z_]+\}/.test(l.path) && l.path.endsWith(`}${collection}`))?.kind;
}

export function buildModel(doc: Doc): Model {
  const ops = operations(doc);
  const lists: ListSource[] = [];
  const singletons: Model['singletons'] = [];
  for (const { method, path, op, params } of ops) {
    if (method !== 'get') continue;
    const ok = op.responses?.['200']?.content?.['application/json']?.schema;
    const data = deref(doc, ok)?.properties?.data;
    if (!data) continue;
    const dataNode = deref(doc, data);
    if (dataNode?.type === 'array' && refName(dataNode.items)) {
      const itemSchema = refName(dataNode.items)!;
      // A list of entries without ids (the webhook topic catalog) names no record: not a kind.
      if (!deref(doc, doc.components.schemas[itemSchema])?.properties?.id) continue;
      lists.push({ path, kind: snake(itemSchema), itemSchema, paginated: params.some((p) => p.name === 'cursor'), parentKind: undefined });
    } else if (dataNode?.type === 'object' && !path.includes('{')) {
      for (const [key, prop] of Object.entries<any>(dataNode.properties ?? {})) {
        if (deref(doc, prop)?.properties?.id) singletons.push({ path, key, kind: snake(key) });
      }
    }
  }
  const model: Model = { doc, ops, lists, byId: new Map(), children: new Map(), singletons, kinds: new Set(), enums: new Map(), examples: new Map() };
  for (const list of lists) {
    const params = [...list.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
    if (params.length > 0) list.parentKind = collectionKind(model, list.path, params[params.length - 1]);
    model.kinds.add(list.kind);
  }
  for (const s of singletons) model.kinds.add(s.kind);
  // A record read by its id only, no list serving it (GET /files/{file_id}: the files of attachment fields): a kind
  // of its own, whose ids the catalog finds in the records that refer to them (collectCatalog).
  for (const { method, path } of ops) {
    const m = /^\/([a-z_]+)\/\{([a-z_]+)_id\}$/.exec(path);
    if (method === 'get' && m && !lists.some((l) => l.path === `/${m[1]}`)) model.kinds.add(m[2]);
  }
  for (const { method, path } of ops) {
    const m = /^(.*)\/\{id\}$/.exec(path);
    if (method === 'get' && m) {
      const kind = lists.find((l) => l.path === m[1])?.kind ?? nestedKind(model, m[1]);
      if (kind) model.byId.set(kind, path);
    }
  }
  for (const list of lists) {
    const record = deref(doc, doc.components.schemas[list.itemSchema]);
    for (const [prop, node] of Object.entries<any>(record?.properties ?? {})) {
      const n = deref(doc, node);
      const item = n?.type === 'array' ? n.items : undefined;
      if (item && refName(item) && deref(doc, item)?.properties?.id) {
        const child = snake(refName(item)!);
        (model.children.get(list.kind) ?? model.children.set(list.kind, new Map()).get(list.kind)!).set(prop, child);
        model.kinds.add(child);
      }
    }
  }
  const seen = new Set<any>();
  const collectEnums = (node: any) => {
    const n = deref(doc, node);
    if (!n || typeof n !== 'object' || seen.has(n)) return;
    seen.add(n);
    for (const [name, prop] of Object.entries<any>(n.properties ?? {})) {
      const p = deref(doc, prop);
      if (Array.isArray(p?.enum) && !model.enums.has(name)) model.enums.set(name, p.enum.filter((v: unknown) => typeof v === 'string'));
      if (p?.example !== undefined && !model.examples.has(name)) model.examples.set(name, p.example);
      collectEnums(p);
    }
    for (const b of [...(n.anyOf ?? []), ...(n.oneOf ?? []), ...(n.allOf ?? [])]) collectEnums(b);
    if (n.items) collectEnums(n.items);
  };
  for (const schema of Object.values(doc.components.schemas)) collectEnums(schema);
  return model;
}

/** The next-page cursor of a list answer (Link: <...cursor=...>; rel="next"), absolute or relative. */
export function nextCursor(headers: Headers): string | null {
  const link = headers.get('link');
  const m = link ? /<([^>]+)>\s*;\s*rel="next"/.exec(link) : null;
  return m ? new URL(m[1], 'http://x').searchParams.get('cursor') : null;
}

/** The path under /api/v2 of a Link target (absolute or relative). */
function nextPath(headers: Headers): string | null {
  const link = headers.get('link');
  const m = link ? /<([^>]+)>\s*;\s*rel="next"/.exec(link) : null;
  if (!m) return null;
  const url = new URL(m[1], 'http://x');
  return `${url.pathname.replace(/^.*\/api\/v2/, '')}${url.search}`;
}

/**
 * Everything the tenant of `api` owns, read through the API only: every list of the document (all pages; lists
 * under a parent for each parent), the child entries of each record, the singletons of /me, the ETag of every
 * record that has a GET by id.
 */
export async function collectCatalog(model: Model, api: Client): Promise<Catalog> {
  const catalog = emptyCatalog();
  const records: any[] = [];
  const put = (kind: string, record: any, source: string, parent?: string) => {
    if (record?.id === undefined || record?.id === null) return;
    records.push(record);
    addRef(catalog, kind, { id: record.id as IdValue, parent, relatedName: record.related_name, source, createdAt: record.created_at });
    for (const [prop, child] of model.children.get(kind) ?? []) {
      for (const entry of Array.isArray(record[prop]) ? record[prop] : []) put(child, entry, `${source}.${prop}`, String(record.id));
    }
  };
  const readAll = async (path: string, list: ListSource, parent?: string) => {
    let url: string | null = list.paginated ? `${path}?limit=100` : path;
    for (let page = 0; url && page < 50; page += 1) {
      const res = await api.get(url);
      if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${res.text.slice(0, 300)}`);
      for (const record of res.body.data) put(list.kind, record, list.path, parent);
      url = nextPath(res.headers);
    }
  };
  // Parents first: a list under a parent needs the parent's records.
  const pending = [...model.lists];
  for (let round = 0; pending.length > 0 && round < 5; round += 1) {
    for (const list of [...pending]) {
      if (!list.parentKind) {
        await readAll(list.path, list);
      } else {
        const parents = catalog.refs.get(list.parentKind);
        if (!parents) continue;
        for (const p of parents) await readAll(list.path.replace(/\{[a-z_]+\}/, String(p.id)), list, String(p.id));
      }
      pending.splice(pending.indexOf(list), 1);
    }
  }
  // The files the records' attachment values name (custom_fields entries holding a file_id).
  for (const record of records) {
    for (const value of Object.values<any>(record?.custom_fields ?? {})) {
      if (value && typeof value === 'object' && typeof value.file_id === 'string' && model.kinds.has('file')) addRef(catalog, 'file', { id: value.file_id, source: 'custom_fields', createdAt: record.created_at });
    }
  }
  for (const s of model.singletons) {
    const res = await api.get(s.path);
    if (res.status === 200 && res.body?.data?.[s.key]) put(s.kind, res.body.data[s.key], s.path);
  }
  for (const [kind, path] of model.byId) {
    for (const ref of catalog.refs.get(kind) ?? []) {
      const res = await api.get(path.replace('{id}', String(ref.id)));
      if (res.status === 200) catalog.etags.set(String(ref.id), res.headers.get('etag')!);
    }
  }
  for (const refs of catalog.refs.values()) {
    refs.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || String(a.id).localeCompare(String(b.id)));
  }
  return catalog;
}

// ---------------------------------------------------------------------------------------------------------------
// Id positions of REST operations.

export type Where = 'path' | 'query' | 'body' | 'cursor';

/** One place of one operation where a client names a record. */
export interface RestPosition {
  op: Operation;
  where: Where;
  /** path/query: the parameter name; body: the JSON path inside the body (`job.lineitems.0.item_id`). */
  name: string;
  /** The kind of record expected there ('cursor' for cursors, 'search' for free text, where B's marker is sent). */
  kind: string;
  /** The value of a sibling `<x>_type` for polymorphic ids (linkable_type = Site). */
  variant?: { field: string; value: string };
  /** The position is a key of an object (custom_fields[<definition id>]), restricted to this related_name. */
  key?: { relatedName?: string };
  /** Records of the kind are children of this collection of the operation's record (lineitems of the job). */
  childOf?: boolean;
  /** The value is a JSON integer (user ids). */
  integer?: boolean;
  label: string;
}

const ID_NAME = /(^|_)id$/;
/**
 * Whether a property or parameter names a record: a UUID, or an id-like name (`assignee_id`: user ids are integers)
 * whose schema is not a plain string (`tax_id` is a vendor's tax number, not a record).
 */
const namesRecord = (name: string, schema: any): boolean =>
  schema?.format === 'uuid' || (ID_NAME.test(name) && !(schema?.type !== undefined && [schema.type].flat().includes('string')));
const baseOf = (name: string) => name.replace(/\[[^\]]*\]$/, '');

/** `GET /custom_field_definitions?related_name=Job` in a description: ids of that lookup for that class. */
function keyedBy(model: Model, description: string | undefined): { kind: string; relatedName?: string } | undefined {
  if (!description || !/\bids?\b/.test(description)) return undefined;
  const m = /GET (\/[a-z_]+)\?related_name=([A-Za-z]+)/.exec(description);
  if (!m) return undefined;
  const kind = model.lists.find((l) => l.path === m[1])?.kind;
  return kind ? { kind, relatedName: m[2] } : undefined;
}

/** The kind of an id-like name (`customer_id`, `linkage_id`, `assignee_id` ...); integers without a kind of their own are user ids. */
export function kindOfIdName(model: Model, name: string, integer: boolean, description?: string, userKind?: string): string | undefined {
  const base = name.replace(/_id$/, '');
  const described = /must be the id of an? ([A-Za-z]+(?: [a-z]+)*?)(?: of |[.;,]|$)/i.exec(description ?? '')?.[1];
  return (
    kindOfBase(base, model.kinds) ??
    (described ? kindOfBase(snake(described.trim().replace(/ /g, '_')), model.kinds) : undefined) ??
    kindOfDescription(description, model.kinds) ??
    (integer ? userKind : undefined)
  );
}

/**
 * The record schema kind of an operation: the list at the path before its first parameter (`/jobs/{id}` -> job,
 * `/webhooks/endpoints/{id}/test` -> webhook_endpoint), or at the path itself.
 */
export function resourceKind(model: Model, path: string): string | undefined {
  const at = path.indexOf('/{');
  const collection = at < 0 ? path : path.slice(0, at);
  return model.lists.find((l) => l.path === collection && !l.parentKind)?.kind ?? nestedKind(model, collection);
}

/**
 * What a valid body needs that its schema cannot say: one of several optional members must be sent (a replay names
 * its events by id or from a time: "event_ids, or since"). Keyed by the object's member names (snake_case, sorted),
 * the members to send; REST bodies and GraphQL inputs (their REST twins) both take them.
 */
const ALTERNATIVES: Record<string, Record<string, unknown>> = {
  'event_ids,since,until': { since: new Date(Date.now() - 3_600_000).toISOString() },
};

/** The members an object with these member names needs beyond its required ones (ALTERNATIVES), if any. */
export function alternativeMembers(names: string[]): Record<string, unknown> | undefined {
  return ALTERNATIVES[names.map(snake).sort().join(',')];
}

export interface BodyTemplate {
  /** The body with A's coherent values. */
  body: unknown;
  positions: { path: (string | number)[]; kind: string; variant?: { field: string; value: string }; key?: { relatedName?: string }; childOf?: boolean; integer?: boolean }[];
}

/**
 * A minimal valid body for the schema: its required properties, every id-like property (filled by `fill`), every
 * array whose entries hold one (with one entry), and every object keyed by ids; and the id positions found.
 */
export function bodyTemplate(model: Model, schema: any, fill: (kind: string, opts: { childOf?: boolean; relatedName?: string; variant?: string }) => IdValue | undefined, userKind: string, resKind?: string): BodyTemplate {
  const positions: BodyTemplate['positions'] = [];
  let unique = 0;
  const scalar = (node: any): unknown => {
    const types: string[] = [node.type].flat().filter((t: string) => t && t !== 'null');
    if (Array.isArray(node.enum)) return node.enum.find((v: unknown) => v !== null);
    if (node.example !== undefined) return node.example;
    const t = types[0];
    if (t === 'string') {
      if (node.format === 'date') return '2026-03-02';
      if (node.format === 'date-time') return '2026-03-02T09:00:00.000Z';
      if (node.format === 'email') return 'sweep@example.test';
      if (node.pattern) return '1';
      unique += 1;
      return `sweep ${unique}`.slice(0, node.maxLength ?? 50);
    }
    if (t === 'integer' || t === 'number') return Math.min(Math.max(1, node.minimum ?? 1), node.maximum ?? 1);
    if (t === 'boolean') return false;
    if (t === 'array') return [];
    if (t === 'object') return {};
    return null;
  };
  const containsIds = (node: any, depth = 0): boolean => {
    const n = deref(model.doc, node);
    if (!n || depth > 6) return false;
    if (n.anyOf || n.oneOf) return [...(n.anyOf ?? []), ...(n.oneOf ?? [])].some((b: any) => containsIds(b, depth + 1));
    if (n.items) return containsIds(n.items, depth + 1);
    if (keyedBy(model, n.description) && n.additionalProperties) return true;
    return Object.entries<any>(n.properties ?? {}).some(([k, p]) => namesRecord(k, deref(model.doc, p)) || containsIds(p, depth + 1));
  };
  const chooseBranch = (branches: any[]): any => {
    const real = branches.map((b) => deref(model.doc, b)).filter((b) => b && b.type !== 'null');
    return real.find((b) => b.properties) ?? real.find((b) => [b.type].flat().some((t: string) => t === 'number' || t === 'integer')) ?? real[0];
  };
  const walk = (node: any, path: (string | number)[], name: string | null, inChild: boolean): unknown => {
    let n = deref(model.doc, node);
    if (n?.anyOf || n?.oneOf) n = chooseBranch([...(n.anyOf ?? []), ...(n.oneOf ?? [])]);
    if (!n) return null;
    const keyed = keyedBy(model, n.description);
    if (keyed && n.additionalProperties && !n.properties) {
      const value = fill(keyed.kind, { relatedName: keyed.relatedName });
      positions.push({ path, kind: keyed.kind, key: { relatedName: keyed.relatedName } });
      return value === undefined ? {} : { [String(value)]: 'sweep' };
    }
    if (n.properties) {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(n.required ?? []);
      const props = Object.entries<any>(n.properties).filter(([, p]) => !deref(model.doc, p)?.readOnly);
      const names = new Set(props.map(([k]) => k));
      for (const [prop, p] of props) {
        const pn = deref(model.doc, p);
        const idLike = namesRecord(prop, pn);
        if (idLike) {
          const integer = [pn.type].flat().some((t: string) => t === 'integer');
          const typeField = prop.replace(/_id$/, '_type');
          const poly = prop !== typeField && names.has(typeField) ? model.enums.get(typeField) : undefined;
          if (poly?.length) {
            for (const value of poly) {
              const kind = kindOfBase(snake(value), model.kinds);
              if (kind) positions.push({ path: [...path, prop], kind, variant: { field: typeField, value } });
            }
            const first = poly.find((v) => kindOfBase(snake(v), model.kinds))!;
            out[typeField] = first;
            out[prop] = fill(kindOfBase(snake(first), model.kinds)!, {});
            continue;
          }
          const kind = prop === 'id' && inChild && name ? model.children.get(resKind ?? '')?.get(name) : kindOfIdName(model, prop, integer, pn?.description, userKind);
          if (!kind) {
            positions.push({ path: [...path, prop], kind: `?${prop}` });
            continue;
          }
          const childOf = prop === 'id' && inChild;
          const value = fill(kind, { childOf });
          if (value === undefined) continue; // nothing of that kind to name (shared catalogs are skipped below)
          positions.push({ path: [...path, prop], kind, childOf, integer });
          out[prop] = integer ? Number(value) : value;
          continue;
        }
        if (out[prop] !== undefined) continue;
        if (required.has(prop) || containsIds(p)) {
          const v = walk(p, [...path, prop], prop, inChild);
          if (v !== undefined) out[prop] = v;
        }
      }
      for (const [prop, v] of Object.entries(alternativeMembers(Object.keys(n.properties)) ?? {})) out[prop] ??= v;
      return out;
    }
    if ([n.type].flat().includes('array') && n.items) return [walk(n.items, [...path, 0], name, true)];
    return scalar(n);
  };
  return { body: walk(schema, [], null, false), positions };
}

/** Every id position of every operation of the document. */
export function restPositions(
  model: Model,
  fillFor: (operation: Operation) => (kind: string, opts: { childOf?: boolean; relatedName?: string }) => IdValue | undefined,
  userKind: string,
): { positions: RestPosition[]; templates: Map<Operation, BodyTemplate | undefined> } {
  const positions: RestPosition[] = [];
  const templates = new Map<Operation, BodyTemplate | undefined>();
  for (const operation of model.ops) {
    const { method, path, op, params } = operation;
    const label = `${method.toUpperCase()} ${path}`;
    for (const p of params) {
      if (p.in === 'path') {
        const kind = collectionKind(model, path, p.name) ?? kindOfIdName(model, p.name, false, p.description, userKind) ?? `?${p.name}`;
        positions.push({ op: operation, where: 'path', name: p.name, kind, label: `${label} path {${p.name}}` });
      } else if (p.in === 'query') {
        const schema = deref(model.doc, p.schema);
        const keyed = keyedBy(model, p.description);
        if (p.name === 'cursor') positions.push({ op: operation, where: 'cursor', name: p.name, kind: 'cursor', label: `${label} query cursor` });
        else if (p.name === 'q') positions.push({ op: operation, where: 'query', name: p.name, kind: 'search', label: `${label} query q (B's text)` });
        else if (keyed && (p.style === 'deepObject' || schema?.additionalProperties)) {
          positions.push({ op: operation, where: 'query', name: p.name, kind: keyed.kind, key: { relatedName: keyed.relatedName }, label: `${label} query ${p.name}[<id>]` });
        } else if (namesRecord(baseOf(p.name), schema)) {
          // A polymorphic id filter (taskable_id beside taskable_type): one position per type, sent with it.
          const typeName = baseOf(p.name).replace(/_id$/, '_type');
          const typeParam = typeName !== baseOf(p.name) ? params.find((q) => q.in === 'query' && q.name === typeName) : undefined;
          // Its types: the filter's enum, else the values the body property of that name takes.
          const types: string[] = typeParam ? (deref(model.doc, typeParam.schema)?.enum ?? model.enums.get(typeName) ?? []) : [];
          const variants = types.filter((value) => kindOfBase(snake(value), model.kinds));
          if (variants.length) {
            for (const value of variants) {
              const kind = kindOfBase(snake(value), model.kinds)!;
              positions.push({ op: operation, where: 'query', name: p.name, kind, variant: { field: typeName, value }, label: `${label} query ${p.name} (${typeName}=${value})` });
            }
            continue;
          }
          const integer = [schema?.type].flat().includes('integer');
          const kind = kindOfIdName(model, baseOf(p.name), integer, p.description, userKind) ?? `?${p.name}`;
          positions.push({ op: operation, where: 'query', name: p.name, kind, integer, label: `${label} query ${p.name}` });
        }
      }
    }
    const schema = op.requestBody?.content?.['application/json']?.schema;
    if (schema) {
      const template = bodyTemplate(model, schema, fillFor(operation), userKind, resourceKind(model, path));
      templates.set(operation, template);
      for (const pos of template.positions) {
        const name = pos.path.join('.');
        positions.push({
          op: operation,
          where: 'body',
          name,
          kind: pos.kind,
          variant: pos.variant,
          key: pos.key,
          childOf: pos.childOf,
          integer: pos.integer,
          label: `${label} body ${name}${pos.key ? '[<id>]' : ''}${pos.variant ? ` (${pos.variant.field}=${pos.variant.value})` : ''}`,
        });
      }
    } else templates.set(operation, undefined);
  }
  return { positions, templates };
}

