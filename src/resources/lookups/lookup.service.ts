import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { subjectError } from '../../kernel/errors.ts';
import { toWire } from '../../kernel/fields.ts';
import { relatedNames } from '../catalog.ts';
import { isStorableText, UNSTORABLE_MESSAGE } from '../../kernel/storable.ts';
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

  /** The live entries of a lookup kind, of one resource class when `relatedName` is given (one of relatedNames). */
  list(ctx: RequestContext, kind: LookupKind, query: { relatedName?: string } = {}): Promise<{ data: Record<string, unknown>[]; hasMore: false }> {
    const relatedName = query.relatedName;
    if (relatedName !== undefined && !(relatedNames as readonly string[]).includes(relatedName)) {
      throw subjectError('filter.invalid', { kind: 'parameter', name: 'related_name' }, (name) => `${name}: "${relatedName}" is not a resource class (one of ${relatedNames.join(', ')})`);
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
  async systemOptions(query: { systemType?: string } = {}): Promise<{ data: WireOf<typeof systemOptionShape>[]; hasMore: false }> {
    const systemType = query.systemType;
    if (systemType !== undefined && !isStorableText(systemType)) {
      throw subjectError('filter.invalid', { kind: 'parameter', name: 'system_type' }, (name) => `${name}: ${UNSTORABLE_MESSAGE}`);
    }
    const rows = await this.db.systemOption.findMany({
      where: systemType === undefined ? {} : { system_type: systemType },
      orderBy: [{ position: 'asc' }, { name: 'asc' }],
    });
    return { data: rows.map(serializeSystemOption), hasMore: false };
  }
}
