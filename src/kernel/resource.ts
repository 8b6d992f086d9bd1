import type { FieldSpec } from './fields.ts';
import type { FilterSpec, SortSpec } from './listing.ts';
import type { ScopeResource } from './scopes.ts';
import type { FieldErrors } from './errors.ts';
import type { RequestContext } from './context.ts';
import type { TenantTx } from './tenancy.ts';

// A resource declares only what is its own; every shared convention (ids, timestamps, ETag, number, status,
// labels, custom_fields, list parameters, events, soft delete) is applied by the kernel's resource service
// and adapters from this declaration.

export interface WriteHookArgs<Row = Record<string, unknown>> {
  tx: TenantTx;
  ctx: RequestContext;
  mode: 'create' | 'update';
  /** Validated values about to be written (wire names). */
  values: Record<string, unknown>;
  /** The record before the change (update only). */
  existing: Row | null;
  errors: FieldErrors;
}

export interface ResourceDefinition {
  /** Body key and GraphQL stem: "customer". */
  name: string;
  /** Path segment: "customers". */
  plural: string;
  /** Resource class for lookups (related_name) and events: "Customer". */
  className: string;
  /** Prisma delegate: "customer". */
  model: string;
  /** SQL table: "customers". */
  table: string;
  scope: ScopeResource;
  description: string;
  /** Writable fields of the resource itself, in wire (snake_case) names. */
  fields: Record<string, FieldSpec>;
  conventions: {
    number?: boolean;
    status?: boolean;
    labels?: boolean;
    customFields?: boolean;
    softDelete?: boolean;
  };
  list: {
    filters: Record<string, FilterSpec>;
    sorts: Record<string, SortSpec>;
    defaultSort: string;
    searchable?: string;
  };
  /** Unique indexes whose violation is a validation error on a field. */
  uniqueIndexes?: Record<string, { field: string; message: string }>;
  hooks?: {
    /** Resource-specific rules, run inside the write transaction before the row is written. */
    beforeWrite?(args: WriteHookArgs): Promise<void>;
  };
}

export interface RecordFieldInfo {
  name: string;
  kind: FieldSpec['kind'] | 'json' | 'string[]';
  nullable: boolean;
  description?: string;
}

/** The fields of a record as served: id, own fields, convention fields, timestamps. */
export function outputFields(def: ResourceDefinition): RecordFieldInfo[] {
  const out: RecordFieldInfo[] = [{ name: 'id', kind: 'uuid', nullable: false }];
  if (def.conventions.number) out.push({ name: 'number', kind: 'string', nullable: false, description: 'Sequential per account unless given on create; immutable.' });
  for (const [name, spec] of Object.entries(def.fields)) {
    out.push({ name, kind: spec.kind, nullable: spec.create !== 'required', description: spec.description });
  }
  if (def.conventions.status) out.push({ name: 'status', kind: 'string', nullable: false, description: 'display_name of a live status of this resource.' });
  if (def.conventions.labels) out.push({ name: 'labels', kind: 'string[]', nullable: false });
  if (def.conventions.customFields) out.push({ name: 'custom_fields', kind: 'json', nullable: false, description: 'Keyed by custom field definition id.' });
  out.push({ name: 'created_at', kind: 'datetime', nullable: false }, { name: 'updated_at', kind: 'datetime', nullable: false });
  return out;
}

/** SQL columns read for a record (serialised fields plus what the ETag needs). */
export function selectColumns(def: ResourceDefinition): string[] {
  return [...outputFields(def).map((f) => f.name), 'lock_version'];
}
