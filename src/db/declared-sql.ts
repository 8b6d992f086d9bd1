import type { ResourceDefinition } from '../kernel/resource.ts';
import { uniqueIndexName } from '../kernel/unique-fields.ts';

// The SQL that Prisma's schema cannot express but a declaration implies, written into the migration that creates
// the resource's table (scripts/new-migration.ts appends it under `-- Hand-written`): the column `q` searches
// (list.search) with its trigram index, and the unique index of each case-insensitive unique field.
// test/rest/declared-sql.test.ts checks, on the migrated database, that declarations and SQL agree.

const quoted = (column: string) => `"${column.replace(/"/g, '""')}"`;

/** The search_text column and its index, for a resource whose searched fields are all columns of its own table. */
function searchSql(def: ResourceDefinition): string[] {
  const search = def.list.search;
  if (!search) return [];
  const parts = search.fields.map((field) => {
    const kind = def.fields[field]?.kind ?? def.readOnly?.[field]?.kind ?? (field === 'number' || field === 'status' ? 'string' : undefined);
    if (!kind || kind === 'string[]' || kind === 'boolean') {
      throw new Error(
        `${def.name}: list.search field "${field}" is ${kind ? `a ${kind} field` : 'not a column of the resource'}; a generated column cannot hold it: write search_text's SQL by hand (a trigger, as jobs do)`,
      );
    }
    const text = ['string', 'text', 'email', 'url', 'uuid'].includes(kind) ? quoted(field) : `${quoted(field)}::text`;
    return `coalesce(${text}, '')`;
  });
  return [
    `-- Hand-written: the text q searches (${def.name}: list.search), with its trigram index led by account_id.`,
    `ALTER TABLE ${quoted(def.table)} ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(${parts.join(" || ' ' || ")})) STORED;`,
    `CREATE INDEX ${quoted(`${def.table}_search_text_trgm`)} ON ${quoted(def.table)} USING GIN ("account_id", "search_text" gin_trgm_ops);`,
  ];
}

/** The unique index of each case-insensitive unique field (FieldSpec.unique), live rows only with soft delete. */
function uniqueSql(def: ResourceDefinition): string[] {
  return Object.entries(def.fields)
    .filter(([, spec]) => spec.unique === 'case_insensitive')
    .flatMap(([field]) => [
      `-- Hand-written: ${field} is unique per account, case-insensitively (${def.name}: unique).`,
      `CREATE UNIQUE INDEX ${quoted(uniqueIndexName(def, field))} ON ${quoted(def.table)} ("account_id", lower(${quoted(field)}))${def.conventions.softDelete ? ' WHERE "deleted_at" IS NULL' : ''};`,
    ]);
}

/** The hand-written SQL a new resource's table needs, from its declaration (empty when it needs none). */
export function declaredSql(def: ResourceDefinition): string {
  const lines = [...searchSql(def), ...uniqueSql(def)];
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}
