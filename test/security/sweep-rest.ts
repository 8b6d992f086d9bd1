import { randomUUID } from 'node:crypto';
import type { Client } from '../helpers/http.ts';
import { camel, garbageCursor, normalise, pool, randomIdLike, randomMarker, setAt, spread, type Catalog, type IdValue, type Ref } from './sweep-kit.ts';
import { collectionKind, restPositions, resourceKind, type Model, type Operation, type RestPosition } from './sweep-openapi.ts';
import { multipartFile, SWEEP_BOUNDARY } from './sweep-seed.ts';

// The REST half of the sweep: for every id position of every operation of the OpenAPI document, tenant A sends
// the request once with B's id there and once with a random id, everything else being A's own valid values;
// the two answers must be the same once the substituted value is replaced by a placeholder.

export interface Side {
  catalog: Catalog;
  /** REST list path -> a next-page cursor issued to this tenant (limit=1). */
  restCursors: Map<string, string>;
  /** GraphQL list field -> a pageInfo.endCursor issued to this tenant (limit: 1). */
  gqlCursors: Map<string, string>;
  /** A text that occurs in every record the tenant wrote (and nowhere else). */
  marker: string;
}

export interface Check {
  label: string;
  /** What A sent with B's value, for the report. */
  request: string;
  same: boolean;
  foreign: unknown;
  random: unknown;
  /**
   * Why the pair proves nothing, if it does not: a random value accepted by an operation that is not a list, a list
   * that a random filter did not empty, a 422 that does not name the position, a garbage cursor not refused.
   */
  vacuous: string | null;
}

export function pick(catalog: Catalog, kind: string, opts: { parent?: string; relatedName?: string } = {}): Ref | undefined {
  return (catalog.refs.get(kind) ?? []).find(
    (r) => (opts.parent === undefined || r.parent === opts.parent) && (opts.relatedName === undefined || r.relatedName === opts.relatedName),
  );
}

/** Kinds whose records both tenants see (the shared system options catalog): nothing foreign to substitute. */
export function sharedKinds(a: Catalog, b: Catalog): Set<string> {
  const shared = new Set<string>();
  for (const [kind, refs] of a.refs) {
    const other = new Set((b.refs.get(kind) ?? []).map((r) => String(r.id)));
    if (refs.some((r) => other.has(String(r.id)))) shared.add(kind);
  }
  return shared;
}

/** The values a tenant puts in the path parameters of an operation: its first record of each, under the previous one. */
function pathValues(model: Model, op: Operation, catalog: Catalog): Record<string, string> {
  const values: Record<string, string> = {};
  let previous: string | undefined;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const kind = collectionKind(model, op.path, p.name);
    const list = model.lists.find((l) => l.kind === kind);
    const ref = kind ? pick(catalog, kind, list?.parentKind ? { parent: previous } : {}) : undefined;
    if (ref) values[p.name] = String(ref.id);
    previous = values[p.name];
  }
  return values;
}

/** Whether the answer to the random value shows that the position was looked at (see Check.vacuous). */
function vacuity(position: RestPosition, status: number, normalised: { body: any }): string | null {
  const body = normalised.body ?? {};
  if (position.where === 'cursor') return body.code === 'cursor.invalid' ? null : `a garbage cursor answered ${status} ${body.code ?? ''}`;
  if (status < 300) {
    if (position.op.method !== 'get') return `a random id was accepted (${status})`;
    if (Array.isArray(body.data) && body.data.length > 0 && position.where !== 'path') return 'a random filter value did not empty the list';
    return position.where === 'path' ? `a random id was found (${status})` : null;
  }
  if (body.errors && typeof body.errors === 'object') {
    const last = position.name.split('.').pop()!;
    const keys = Object.keys(body.errors);
    const named = keys.some((k) => k === last || k.endsWith(`.${last}`) || k.includes('<ID>') || (position.variant && k === position.variant.field));
    return named ? null : `the 422 names ${keys.join(', ')}, not ${position.name}`;
  }
  return null;
}

export interface RestSweep {
  positions: RestPosition[];
  skipped: { label: string; reason: string }[];
  checks: Check[];
}

export async function runRestSweep(model: Model, api: Client, a: Side, b: Side, userKind: string, width: number): Promise<RestSweep> {
  const shared = sharedKinds(a.catalog, b.catalog);
  // A's records: the first of each kind, the next one when a body names the kind again (a transfer's from and to
  // locations must differ, as in the MCP half); a child entry of the operation's record, a lookup entry of its class.
  const fillFor = (operation: Operation) => {
    const target = pathValues(model, operation, a.catalog).id;
    const named = new Map<string, number>();
    return (kind: string, opts: { childOf?: boolean; relatedName?: string }) => {
      if (opts.childOf || opts.relatedName) return pick(a.catalog, kind, { parent: opts.childOf ? target : undefined, relatedName: opts.relatedName })?.id;
      const refs = a.catalog.refs.get(kind) ?? [];
      const n = named.get(kind) ?? 0;
      named.set(kind, n + 1);
      return (refs[n] ?? refs[0])?.id;
    };
  };
  const { positions, templates } = restPositions(model, fillFor, userKind);
  const skipped: RestSweep['skipped'] = [];
  const jobs: { position: RestPosition; foreign: IdValue; random: IdValue; build: (v: IdValue) => { method: string; url: string; body?: unknown; raw?: Uint8Array<ArrayBuffer>; headers: Record<string, string> } }[] = [];

  for (const position of positions) {
    const { op, where, name, kind } = position;
    if (kind.startsWith('?')) {
      skipped.push({ label: position.label, reason: `no kind of record matches ${name}` });
      continue;
    }
    const aPath = pathValues(model, op, a.catalog);
    // B's values for the position: up to three records of B's for a path parameter, B's REST and GraphQL cursors of
    // the list for a cursor, B's first record of the kind (of B's record of the operation, for child entries) else.
    let foreigns: IdValue[];
    let random: IdValue;
    if (where === 'cursor') {
      foreigns = [b.restCursors.get(op.path), b.gqlCursors.get(camel(op.path.slice(1)))].filter((c): c is string => !!c);
      random = garbageCursor();
    } else if (kind === 'search') {
      foreigns = [b.marker];
      random = randomMarker();
    } else if (shared.has(kind)) {
      skipped.push({ label: position.label, reason: `${kind} is a catalog both tenants share` });
      continue;
    } else {
      const resKind = resourceKind(model, op.path);
      const bTarget = resKind ? pick(b.catalog, resKind)?.id : undefined;
      if (where === 'path') {
        foreigns = spread((b.catalog.refs.get(kind) ?? []).map((r) => r.id));
      } else {
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
    const template = templates.get(op);
    const ifMatch = op.params.some((p) => p.in === 'header' && /^if-match$/i.test(p.name));
    // A financial create answers 428 idempotency_key.required before it reads anything: each request gets a fresh key,
    // so that the pair is decided by the position itself.
    const idempotent = op.params.some((p) => p.in === 'header' && /^idempotency-key$/i.test(p.name));
    const last = op.params.filter((p) => p.in === 'path').pop()?.name;
    const multipart = op.op.requestBody?.content?.['multipart/form-data'] !== undefined;
    const build = (value: IdValue, foreign: IdValue): { method: string; url: string; body?: unknown; raw?: Uint8Array<ArrayBuffer>; headers: Record<string, string> } => {
      let path = op.path;
      for (const [param, v] of Object.entries(aPath)) path = path.replace(`{${param}}`, param === name && where === 'path' ? encodeURIComponent(String(value)) : v);
      let query = '';
      if (where === 'cursor') query = `cursor=${encodeURIComponent(String(value))}`;
      else if (where === 'query') query = position.key ? `${name}[${encodeURIComponent(String(value))}]=sweep` : `${name}=${encodeURIComponent(String(value))}`;
      if (where === 'query' && position.variant) query += `&${position.variant.field}=${encodeURIComponent(position.variant.value)}`;
      let body: unknown;
      if (template) {
        body = structuredClone(template.body);
        if (where === 'body') {
          const segs = name.split('.');
          if (position.key) setAt(body, segs, { [String(value)]: 'sweep' });
          else setAt(body, segs, value);
          if (position.variant) setAt(body, [...segs.slice(0, -1), position.variant.field], position.variant.value);
        }
      }
      const headers: Record<string, string> = idempotent ? { 'idempotency-key': randomUUID() } : {};
      if (ifMatch && last) {
        // The ETag of the record the path names: B's own ETag when B's record is named, for both values.
        const named = where === 'path' && name === last ? String(foreign) : aPath[last];
        // A last parameter that is no record with an ETag (an attachment path's {field_id}): the record's {id} is.
        const etagOf = (id: string | undefined) => (id === undefined ? undefined : (b.catalog.etags.get(id) ?? a.catalog.etags.get(id)));
        headers['if-match'] = etagOf(named) ?? etagOf(where === 'path' && name === 'id' ? String(foreign) : aPath.id) ?? 'W/"0-0"';
      }
      // A multipart operation (an attachment upload) gets one small file part: its checks run before the body is read.
      if (multipart) return { method: op.method.toUpperCase(), url: `${path}${query ? `?${query}` : ''}`, raw: new Uint8Array(multipartFile('sweep.txt', 'sweep')) as Uint8Array<ArrayBuffer>, headers: { ...headers, 'content-type': `multipart/form-data; boundary=${SWEEP_BOUNDARY}` } };
      return { method: op.method.toUpperCase(), url: `${path}${query ? `?${query}` : ''}`, body, headers };
    };
    for (const foreign of foreigns) jobs.push({ position, foreign, random, build: (v: IdValue) => build(v, foreign) });
  }

  const checks = await pool(jobs, width, async ({ position, foreign, random, build }) => {
    const send = async (value: IdValue) => {
      const req = build(value);
      const res = await api.request(req.method, req.url, { body: req.body, raw: req.raw, headers: req.headers });
      return { status: res.status, contentType: res.headers.get('content-type'), body: res.body ?? res.text };
    };
    const foreignRes = await send(foreign);
    const randomRes = await send(random);
    const f = normalise(foreignRes, [foreign]);
    const r = normalise(randomRes, [random]);
    const req = build(foreign);
    if (req.headers['idempotency-key']) req.headers['idempotency-key'] = '<fresh>';
    return {
      label: position.label,
      request: `${req.method} /api/v2${req.url}${Object.keys(req.headers).length ? ` ${JSON.stringify(req.headers)}` : ''}${req.body !== undefined ? ` ${JSON.stringify(req.body)}` : ''}`,
      same: JSON.stringify(f) === JSON.stringify(r),
      foreign: f,
      random: r,
      vacuous: vacuity(position, randomRes.status, r as any),
    };
  });
  return { positions, skipped, checks };
}
