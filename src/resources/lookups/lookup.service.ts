import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError } from '../../kernel/errors.ts';
import { toWire } from '../../kernel/fields.ts';
import { relatedNames } from '../catalog.ts';
import { assertStorableParameters } from '../../kernel/storable.ts';
import type { TenantClient } from '../../kernel/tenancy.ts';
import type { WireOf } from '../../kernel/wire-shape.ts';
import { customFieldDefinitionShape, labelShape, statusShape, systemOptionShape } from './lookup.shapes.ts';

// Lookup catalogs (statuses, labels, custom field definitions): readable by any valid key, filtered by
// related_name, ordered by position, not paginated (has_more is always false).

export const lookupKinds = {
  statuses: { model: 'status', shape: statusShape },
  labels: { model: 'label', shape: labelShape },
  custom_field_definitions: { model: 'customFieldDefinition', shape: customFieldDefinitionShape },
} as const;

export type LookupKind = keyof typeof lookupKinds;

/** An entry of the system options catalog as served. */
export function serializeSystemOption(row: { id: string; system_type: string; name: string; position: number }): WireOf<typeof systemOptionShape> {
  return { id: row.id, system_type: row.system_type, name: row.name, position: row.position };
}

export class LookupService {
  constructor(private readonly db: TenantClient) {}

  list(ctx: RequestContext, kind: LookupKind, entries: [string, string][]): Promise<{ data: Record<string, unknown>[]; hasMore: false }> {
    let relatedName: string | undefined;
    assertStorableParameters(entries);
    for (const [key, value] of entries) {
      if (key !== 'related_name') throw new AppError('filter.invalid', `unknown parameter: ${key} (${kind} accept related_name only)`);
      if (relatedName !== undefined) throw new AppError('filter.invalid', 'related_name: given more than once');
      if (!(relatedNames as readonly string[]).includes(value)) {
        throw new AppError('filter.invalid', `related_name: "${value}" is not a resource class (one of ${relatedNames.join(', ')})`);
      }
      relatedName = value;
    }
    const { model, shape } = lookupKinds[kind];
    const fields = Object.keys(shape.fields);
    return runAsTenant(ctx.principal.accountId, async () => {
      const delegate = (this.db as unknown as Record<string, { findMany(args: object): Promise<Record<string, unknown>[]> }>)[model];
      const rows = await delegate.findMany({
        where: { deleted_at: null, ...(relatedName ? { related_name: relatedName } : {}) },
        orderBy: [{ related_name: 'asc' }, { position: 'asc' }, { created_at: 'asc' }],
      });
      const data = rows.map((row) => Object.fromEntries(fields.map((f) => [f, toWire('string', row[f])])));
      return { data, hasMore: false as const };
    });
  }

  /** The system options catalog (shared by every account, read-only), optionally of one system_type. */
  async systemOptions(entries: [string, string][]): Promise<{ data: WireOf<typeof systemOptionShape>[]; hasMore: false }> {
    let systemType: string | undefined;
    assertStorableParameters(entries);
    for (const [key, value] of entries) {
      if (key !== 'system_type') throw new AppError('filter.invalid', `unknown parameter: ${key} (system_options accept system_type only)`);
      if (systemType !== undefined) throw new AppError('filter.invalid', 'system_type: given more than once');
      systemType = value;
    }
    const rows = await this.db.systemOption.findMany({
      where: systemType === undefined ? {} : { system_type: systemType },
      orderBy: [{ position: 'asc' }, { name: 'asc' }],
    });
    return { data: rows.map(serializeSystemOption), hasMore: false };
  }
}
