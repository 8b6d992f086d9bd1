import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

// Shared pieces of the tenant-isolation sweep (tenant-sweep.test.ts): naming, the id catalog of a tenant, the
// "foreign id" and "random id" values, and the normalisation that makes the two answers comparable.

/** A record id: UUID v7 strings, except users (int64 numbers, docs/decisions.md). */
export type IdValue = string | number;

/** One record of a kind, as the tenant sees it. */
export interface Ref {
  id: IdValue;
  /** The record this one hangs from (a sub-collection's parent, a child entry's record). */
  parent?: string;
  /** related_name of lookup entries (custom field definitions ...). */
  relatedName?: string;
  /** The path template it was listed from (`/contacts/{id}/linkages`), or the parent's collection for children. */
  source: string;
  createdAt?: string;
}

/**
 * Everything one tenant owns, by kind (snake_case singular: customer, contact_linkage, lineitem, user ...), in
 * creation order; what the sweep substitutes and what must never reach the other tenant.
 */
export interface Catalog {
  refs: Map<string, Ref[]>;
  /** ETag of each record readable by id. */
  etags: Map<string, string>;
  /** Every id of the tenant (strings; user ids as decimal strings). */
  allIds: Set<string>;
}

export function emptyCatalog(): Catalog {
  return { refs: new Map(), etags: new Map(), allIds: new Set() };
}

export function addRef(catalog: Catalog, kind: string, ref: Ref): void {
  const list = catalog.refs.get(kind) ?? catalog.refs.set(kind, []).get(kind)!;
  if (!list.some((r) => r.id === ref.id && r.parent === ref.parent)) list.push(ref);
  catalog.allIds.add(String(ref.id));
}

/** CustomerItemPrice -> customer_item_price; taxRateId -> tax_rate_id. */
export function snake(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** customer_item_prices -> customerItemPrices. */
export function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function pascal(name: string): string {
  const c = camel(name);
  return c.charAt(0).toUpperCase() + c.slice(1);
}

/**
 * The kind an id field refers to, by name: `customer` is the kind customer; `linkage` the only kind ending in
 * `_linkage` (contact_linkage); `converted_customer` ends with the kind customer. Undefined when nothing fits.
 */
export function kindOfBase(base: string, kinds: Iterable<string>): string | undefined {
  const all = [...kinds];
  if (all.includes(base)) return base;
  const suffixed = all.filter((k) => k.endsWith(`_${base}`));
  if (suffixed.length === 1) return suffixed[0];
  const tails = all.filter((k) => base.endsWith(`_${k}`)).sort((a, b) => b.length - a.length);
  if (tails[0]) return tails[0];
  // A role before the kind's own name (from_location -> location -> stock_location).
  const rest = base.indexOf('_') > 0 ? base.slice(base.indexOf('_') + 1) : undefined;
  return rest ? kindOfBase(rest, all) : undefined;
}

/** The kind whose words occur in a description ("A custom field definition id of the resource."). */
export function kindOfDescription(description: string | undefined, kinds: Iterable<string>): string | undefined {
  if (!description) return undefined;
  const text = description.toLowerCase();
  return [...kinds]
    .filter((k) => k.includes('_') && text.includes(k.replace(/_/g, ' ')))
    .sort((a, b) => b.length - a.length)[0];
}

/** A random id in the shape of the real ones: a UUID v7 made now, or an int64 no user has. */
export function randomIdLike(sample: IdValue): IdValue {
  if (typeof sample === 'number') return 900_000_000 + Math.floor(Math.random() * 99_000_000);
  return uuidv7();
}

/** A cursor of the right shape (payload.signature, base64url) that no server issued. */
export function garbageCursor(): string {
  const payload = Buffer.from(JSON.stringify({ r: 'x', a: randomBytes(8).toString('hex'), id: uuidv7(), t: Date.now(), k: 'k0' })).toString('base64url');
  return `${payload}.${randomBytes(32).toString('base64url')}`;
}

/** A search text no record contains, in the shape of a tenant's marker. */
export function randomMarker(): string {
  return `SWEEPZ${randomBytes(4).toString('hex').toUpperCase()}`;
}

export const PLACEHOLDER = '<ID>';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The answer with the substituted value replaced by a placeholder wherever it occurs (values, object keys, inside
 * messages), and the volatile fields dropped: request ids (`request_id`, `requestId`) and the rate-limit state
 * of GraphQL's extensions (numbers under keys naming what is currently available or when it resets).
 */
export function normalise(value: unknown, substituted: IdValue[]): unknown {
  const patterns = substituted.map((id) =>
    typeof id === 'number' ? new RegExp(`(?<![\\w.-])${id}(?![\\w-])`, 'g') : new RegExp(escapeRegExp(String(id)), 'gi'),
  );
  const text = (s: string) => patterns.reduce((acc, re) => acc.replace(re, PLACEHOLDER), s);
  const walk = (v: unknown, key: string | null): unknown => {
    if (typeof v === 'string') return text(v);
    if (typeof v === 'number') return substituted.includes(v) ? PLACEHOLDER : v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        if (k === 'request_id' || k === 'requestId') continue;
        if (typeof x === 'number' && /available|remaining|reset/i.test(k)) continue;
        out[text(k)] = walk(x, k);
      }
      return out;
    }
    return v;
  };
  return walk(value, null);
}

/** At most `n` of the values, spread over the list (first, last, and between): B's records tried in one place. */
export function spread<T>(values: T[], n = 3): T[] {
  if (values.length <= n) return values;
  return Array.from({ length: n }, (_, i) => values[Math.round((i * (values.length - 1)) / (n - 1))]);
}

/** Sets the value at a path of keys and indexes inside `target` (every step but the last must exist). */
export function setAt(target: any, path: (string | number)[], value: unknown): void {
  let node = target;
  for (const seg of path.slice(0, -1)) node = node[seg];
  node[path[path.length - 1]] = value;
}

/** Runs `task` over `items` with at most `width` in flight; results in input order. */
export async function pool<T, R>(items: T[], width: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
