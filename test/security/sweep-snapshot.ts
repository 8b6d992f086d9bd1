import { createHash } from 'node:crypto';
import type { TestApp } from '../helpers/app.ts';
import type { Client } from '../helpers/http.ts';
import type { Catalog } from './sweep-kit.ts';
import { collectionKind, type Model } from './sweep-openapi.ts';

// Two views of one tenant's data, taken before and after the sweep: every GET of the document made with the
// tenant's own key (record bodies and ETags, lists, linkages, lookups, /me), and the rows of every table that
// has an account_id column, limited to the tenant's account (the database's own view, triggers included).

export interface ApiSnapshot {
  [request: string]: { status: number; etag: string | null; body: string };
}

/** Every GET operation of the document, for every record of the tenant that its path parameters can name. */
/** A body with the signed download links' expiry and signature left out: they are made on each read (an hour ahead). */
const unsigned = (text: string) => text.replace(/expires=\d+&signature=[A-Za-z0-9._-]+/g, 'expires=<expires>&signature=<signature>');

export async function apiSnapshot(model: Model, api: Client, catalog: Catalog): Promise<ApiSnapshot> {
  const out: ApiSnapshot = {};
  for (const { method, path, params } of model.ops) {
    if (method !== 'get') continue;
    const names = params.filter((p) => p.in === 'path').map((p) => p.name as string);
    let urls: string[] = [path];
    for (const name of names) {
      const kind = collectionKind(model, path, name);
      const refs = kind ? (catalog.refs.get(kind) ?? []) : [];
      urls = urls.flatMap((url) => {
        // A parameter after another names a record under the one already chosen (a contact's linkages).
        const chosen = [...url.matchAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g)].map((m) => m[0]);
        const fitting = refs.filter((r) => r.parent === undefined || chosen.includes(r.parent));
        return fitting.map((r) => url.replace(`{${name}}`, String(r.id)));
      });
    }
    const paginated = params.some((p) => p.name === 'limit');
    for (const url of urls) {
      if (!paginated) {
        const res = await api.get(url);
        out[url] = { status: res.status, etag: res.headers.get('etag'), body: unsigned(res.text) };
        continue;
      }
      // Every page, as one list: a page's next_cursor is signed with the time it was made, so two snapshots of a
      // list longer than a page differ in it even when no record did.
      const pages: unknown[] = [];
      let res = await api.get(`${url}?limit=100`);
      for (;;) {
        pages.push(res.status === 200 ? res.body.data : res.text);
        const next = res.status === 200 ? res.body.next_cursor : null;
        if (!next) break;
        res = await api.get(`${url}?limit=100&cursor=${encodeURIComponent(next)}`);
      }
      out[url] = { status: res.status, etag: res.headers.get('etag'), body: unsigned(JSON.stringify(pages)) };
    }
  }
  return out;
}

/** Tables that hold tenant rows (an account_id column). */
export async function tenantTables(t: TestApp): Promise<string[]> {
  const rows = await t.database.prisma.$queryRawUnsafe<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.columns WHERE column_name = 'account_id' AND table_schema = current_schema() ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

/** The rows of the account in every tenant table (and its accounts row), as JSON text, sorted. */
export async function accountRows(t: TestApp, tables: string[], accountId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of tables) {
    const rows = await t.database.prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT to_jsonb(x)::text AS row FROM "${table}" x WHERE account_id = $1::uuid`, accountId);
    out[table] = rows.map((r) => r.row).sort();
  }
  const account = await t.database.prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT to_jsonb(x)::text AS row FROM accounts x WHERE id = $1::uuid`, accountId);
  out.accounts = account.map((r) => r.row);
  return out;
}

export function fingerprint(rows: Record<string, string[]>): string {
  return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
}

/** What differs between two snapshots of the same shape, one line per entry. */
export function snapshotDiff<T>(before: Record<string, T>, after: Record<string, T>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const out: string[] = [];
  for (const key of keys) {
    const b = JSON.stringify(before[key]);
    const a = JSON.stringify(after[key]);
    if (a !== b) out.push(`${key}:\n  before ${b?.slice(0, 600)}\n  after  ${a?.slice(0, 600)}`);
  }
  return out;
}
