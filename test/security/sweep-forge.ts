import type { TestApp } from '../helpers/app.ts';
import { kindOfBase, snake, type Catalog, type IdValue } from './sweep-kit.ts';
import { kindOfIdName, type Model } from './sweep-openapi.ts';

// Defense in depth: references that cross tenants, forged in the database (the API refuses to make them, as the
// sweep shows). Every id-like column of every record row of one tenant is pointed at a record of the other
// tenant, both ways: A's rows at B's records (a to-one relation of A's record must not serve B's record) and
// B's rows at A's records (a to-many relation of A's record, a filtered list, must not serve B's rows). Triggers
// are off for these writes (session_replication_role = replica), so nothing derived is recomputed and the
// original values can be written back exactly. A forgery the database refuses (a unique index) is reported,
// not fatal.

export interface Forgery {
  table: string;
  rowId: string;
  /** The row's id-like columns, all forged at once (a polymorphic pair and its typed column stay consistent). */
  sets: { column: string; cast: string; original: unknown; forged: IdValue }[];
}

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
}

/**
 * The forgeries that point `from`'s rows at `to`'s records: for the n-th row of a table, the n-th record of `to`
 * of each kind (round robin), the same record for every column of that kind.
 */
export async function planForgeries(t: TestApp, model: Model, tables: string[], accountId: string, from: Catalog, to: Catalog, shared: Set<string>, userKind: string): Promise<Forgery[]> {
  const prisma = t.database.prisma;
  const columns = await prisma.$queryRawUnsafe<Column[]>(
    `SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  // Kinds of records (lists and child entries), not the caller's own account, user and key.
  const singletonKinds = new Set(model.singletons.map((s) => s.kind));
  const recordIds = new Set<string>();
  for (const [kind, refs] of from.refs) if (!singletonKinds.has(kind) && !shared.has(kind)) for (const r of refs) recordIds.add(String(r.id));
  const out: Forgery[] = [];
  for (const table of tables) {
    const cols = columns.filter((c) => c.table_name === table);
    if (!cols.some((c) => c.column_name === 'id')) continue;
    const fks = cols.filter((c) => /_id$/.test(c.column_name) && c.column_name !== 'account_id' && (c.data_type === 'uuid' || c.data_type === 'bigint'));
    if (fks.length === 0) continue;
    const rows = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT ${['id', ...cols.filter((c) => /_(id|type)$/.test(c.column_name)).map((c) => c.column_name)].map((c) => `"${c}"::text AS "${c}"`).join(', ')} FROM "${table}" WHERE account_id = $1::uuid ORDER BY id`,
      accountId,
    );
    if (!rows.some((r) => recordIds.has(String(r.id)))) continue; // not a table of records the API serves
    rows.forEach((row, index) => {
      if (!recordIds.has(String(row.id))) return;
      const sets: Forgery['sets'] = [];
      for (const fk of fks) {
        if (row[fk.column_name] === null) continue;
        const typeColumn = cols.find((c) => c.column_name === `${fk.column_name.replace(/_id$/, '')}_type`);
        const kind = typeColumn
          ? kindOfBase(snake(String(row[typeColumn.column_name])), model.kinds)
          : kindOfIdName(model, fk.column_name, fk.data_type === 'bigint', undefined, userKind);
        if (!kind || shared.has(kind)) continue;
        const targets = to.refs.get(kind) ?? [];
        if (targets.length === 0) continue;
        sets.push({ column: fk.column_name, cast: fk.data_type, original: row[fk.column_name], forged: targets[index % targets.length].id });
      }
      if (sets.length) out.push({ table, rowId: String(row.id), sets });
    });
  }
  return out;
}

async function write(t: TestApp, table: string, rowId: string, sets: { column: string; cast: string; value: unknown }[]): Promise<void> {
  await t.database.prisma.$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`SET LOCAL session_replication_role = replica`);
    const assignments = sets.map((s, i) => `"${s.column}" = $${i + 1}::${s.cast}`).join(', ');
    await tx.$executeRawUnsafe(`UPDATE "${table}" SET ${assignments} WHERE id = $${sets.length + 1}::uuid`, ...sets.map((s) => String(s.value)), rowId);
  });
}

/**
 * Writes each row's forgery in a transaction of its own, triggers off; a row the database refuses as a whole (a
 * unique index, a check) is forged column by column, as far as it allows. Returns what was written, to restore.
 */
export async function applyForgeries(t: TestApp, forgeries: Forgery[]): Promise<{ applied: Forgery[]; refused: string[] }> {
  const applied: Forgery[] = [];
  const refused: string[] = [];
  const reason = (error: unknown) => /Message: `([^`]*)`/.exec(String((error as Error).message))?.[1] ?? String((error as Error).message).slice(-160);
  for (const f of forgeries) {
    try {
      await write(t, f.table, f.rowId, f.sets.map((s) => ({ ...s, value: s.forged })));
      applied.push(f);
    } catch (error) {
      for (const s of f.sets) {
        try {
          await write(t, f.table, f.rowId, [{ ...s, value: s.forged }]);
          applied.push({ ...f, sets: [s] });
        } catch (inner) {
          refused.push(`${f.table}.${s.column}: ${reason(inner)}`);
        }
      }
      if (f.sets.length > 1) refused.push(`${f.table} row (${f.sets.map((s) => s.column).join(', ')} together): ${reason(error)}`);
    }
  }
  return { applied, refused };
}

/** Writes back the original values of what applyForgeries wrote, last first. */
export async function restoreForgeries(t: TestApp, applied: Forgery[]): Promise<void> {
  for (const f of [...applied].reverse()) await write(t, f.table, f.rowId, f.sets.map((s) => ({ ...s, value: s.original })));
}
