import { isUuid } from './ids.ts';
import type { ResourceDefinition } from './resource.ts';
import { tenantQuery, type RawRunner } from './tenant-sql.ts';

// Which resource a record id belongs to, for reads by bare id (GraphQL node(id) and nodes(ids)). Ids are UUIDs,
// unique across tables, so one statement asks every resource table at once: live records of the caller's
// account only (tenantQuery binds the account as $1).

export class RecordLocator {
  private readonly statement: string;

  constructor(private readonly resources: readonly ResourceDefinition[], private readonly raw: RawRunner) {
    this.statement = resources
      .map(
        (def, index) =>
          `SELECT id, ${index} AS resource FROM ${def.table} WHERE account_id = $1::uuid AND id = ANY($2::uuid[])${def.conventions.softDelete ? ' AND deleted_at IS NULL' : ''}`,
      )
      .join(' UNION ALL ');
  }

  /** The resource name of each id that is a live record of the caller's account; ids that are not are absent. */
  async locate(ids: readonly string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
    if (wanted.length === 0) return new Map();
    const rows = await tenantQuery<{ id: string; resource: number }>(this.raw, this.statement, wanted);
    return new Map(rows.map((row) => [row.id, this.resources[Number(row.resource)]!.name]));
  }
}
