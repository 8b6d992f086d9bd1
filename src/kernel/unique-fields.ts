import { addError } from './body.ts';
import type { FieldErrors } from './errors.ts';
import type { ResourceDefinition } from './resource.ts';
import type { TenantTx } from './tenancy.ts';
import { tenantQuery } from './tenant-sql.ts';

// Fields declared `unique: 'case_insensitive'` (FieldSpec.unique): a write whose value another record of the tenant
// already has, in any case, is refused on that field before anything is written; the unique index named below
// settles the race between two writes that both pass the check (unique-violation.ts maps it to the same error).

export const TAKEN = 'has already been taken';

/** The unique index that backs a case-insensitive unique field: on (account_id, lower(field)), live rows only. */
export function uniqueIndexName(def: Pick<ResourceDefinition, 'table'>, field: string): string {
  return `${def.table}_account_${field}_ci_live`;
}

/** The declared unique fields of a resource, with their indexes (what ResourceDefinition.uniqueIndexes maps). */
export function uniqueFieldIndexes(def: Pick<ResourceDefinition, 'table' | 'fields'>): Record<string, { field: string; message: string }> {
  return Object.fromEntries(
    Object.entries(def.fields)
      .filter(([, spec]) => spec.unique === 'case_insensitive')
      .map(([field]) => [uniqueIndexName(def, field), { field, message: TAKEN }]),
  );
}

const NO_RECORD = '00000000-0000-0000-0000-000000000000';

/** Adds "has already been taken" on each unique field whose value (sent, valid) another live record has. */
export async function checkUniqueFields(tx: TenantTx, def: ResourceDefinition, values: Record<string, unknown>, existing: { id: string } | null, errors: FieldErrors): Promise<void> {
  for (const [field, spec] of Object.entries(def.fields)) {
    const value = values[field];
    if (spec.unique !== 'case_insensitive' || typeof value !== 'string' || errors[field]) continue;
    const live = def.conventions.softDelete ? ' AND deleted_at IS NULL' : '';
    // The same expression as the index, so the check and the index agree.
    const clash = await tenantQuery(tx, `SELECT 1 FROM "${def.table}" WHERE account_id = $1::uuid AND lower("${field}") = lower($2)${live} AND id <> $3::uuid LIMIT 1`, value, existing?.id ?? NO_RECORD);
    if (clash.length > 0) addError(errors, field, TAKEN);
  }
}
