import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.ts';
import { resources } from '../../src/domain.ts';
import { uniqueIndexName } from '../../src/kernel/unique-fields.ts';
import { freshDatabase } from '../helpers/database.ts';

// What a declaration says about its table must be what the migrations made: the columns `q` searches
// (list.search.fields), the index of each case-insensitive unique field, and an index for each sort. The
// declaration and the SQL are written apart (docs/adding-a-resource.md); this is where they are compared, on the
// migrated database.

let database: Database;
const query = <T,>(sql: string, ...params: unknown[]) => database.prisma.$queryRawUnsafe<T[]>(sql, ...params);

beforeAll(async () => {
  database = await freshDatabase();
});
afterAll(async () => {
  await database?.close();
});

/** The SQL that makes a table's search_text: its generated column's expression, or the function a trigger runs. */
async function searchSql(table: string, name: string): Promise<{ sql: string; ownColumn: RegExp } | null> {
  const generated = await query<{ expr: string }>(
    `SELECT pg_get_expr(d.adbin, d.adrelid) AS expr FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE c.relname = $1 AND a.attname = 'search_text' AND a.attgenerated = 's'`,
    table,
  );
  // In a generated column every identifier is a column of the table itself.
  if (generated.length > 0) return { sql: generated[0].expr, ownColumn: /(?<![\w."'])([a-z_][a-z0-9_]*)(?![\w"'(])/g };
  const fn = await query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = $1`, `fl_${name}_search_text`);
  if (fn.length === 0) return null;
  // The function takes the row as its first argument, an alias of one letter: `j."number"`; other tables' text is
  // read through subqueries, which name the row's columns only to join (`"id" = j."customer_id"`).
  const alias = /\b([a-z])\."/.exec(fn[0].src)?.[1];
  return { sql: fn[0].src, ownColumn: new RegExp(`(?<!= )\\b${alias}\\."([a-z0-9_]+)"`, 'g') };
}

/** The names a declaration gives its columns: fields, read-only fields and the conventions' columns. */
function declaredColumns(def: (typeof resources)[number]): Set<string> {
  const conventions = Object.entries({ number: def.conventions.number, status: def.conventions.status, labels: def.conventions.labels }).filter(([, on]) => on);
  return new Set([...Object.keys(def.fields), ...Object.keys(def.readOnly ?? {}), ...conventions.map(([name]) => name)]);
}

describe('the migrations agree with the declarations', () => {
  it('q searches exactly the declared fields of each searchable resource, through a trigram index; no other resource has search_text', async () => {
    for (const def of resources) {
      const found = await searchSql(def.table, def.name);
      if (!def.list.search) {
        expect(found, `${def.name} declares no search but its table has search_text`).toBeNull();
        continue;
      }
      expect(found, `${def.name} declares list.search but ${def.table}.search_text is missing`).not.toBeNull();
      const own = new Set([...found!.sql.matchAll(found!.ownColumn)].map((m) => m[1]));
      const declared = declaredColumns(def);
      const searched = [...own].filter((column) => declared.has(column)).sort();
      expect(searched, `${def.name}: the fields in ${def.table}.search_text`).toEqual([...def.list.search.fields].sort());
      const trigram = await query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE tablename = $1 AND indexdef LIKE '%search_text gin_trgm_ops%'`, def.table);
      expect(trigram.length, `${def.name}: a trigram index on search_text`).toBeGreaterThan(0);
    }
  });

  it('each case-insensitive unique field has its unique index on (account_id, lower(field))', async () => {
    for (const def of resources) {
      for (const [field, spec] of Object.entries(def.fields)) {
        if (spec.unique !== 'case_insensitive') continue;
        const index = await query<{ def: string }>(`SELECT indexdef AS def FROM pg_indexes WHERE tablename = $1 AND indexname = $2`, def.table, uniqueIndexName(def, field));
        expect(index.map((row) => row.def.replace(/"/g, '')), `${def.name}.${field}`).toEqual([expect.stringMatching(new RegExp(`^CREATE UNIQUE INDEX .*\\(account_id, lower\\(${field}\\)\\)`))]);
      }
    }
  });
});
