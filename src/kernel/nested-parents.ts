import { requireScope } from './auth.ts';
import type { RequestContext } from './context.ts';
import { notFound } from './errors.ts';
import { isUuid } from './ids.ts';
import { modelDelegate, type RecordRow } from './model-delegates.ts';
import { nestedScopes, type Nesting } from './nesting.ts';
import type { ResourceDefinition } from './resource.ts';
import type { TenantClient, TenantTx } from './tenancy.ts';

// The parent of a nested resource's record (a note's job): resolved from the record's (type, id) columns or from
// a nested path, checked live in the caller's tenant, and the scopes it implies (src/kernel/nesting.ts).

/** What a parent is for this module: a declared resource and its liveness condition (its ResourceService). */
export interface ParentService {
  readonly def: ResourceDefinition;
  readonly live: object;
}

export class NestedParents {
  constructor(
    private readonly def: ResourceDefinition,
    private readonly nesting: Nesting,
    /** The service of a declared resource by its Prisma model. */
    private readonly byModel: (model: string) => ParentService | undefined,
  ) {}

  private declared(type: string): ParentService | undefined {
    const model = Object.hasOwn(this.nesting.relation.models, type) ? this.nesting.relation.models[type] : undefined;
    return model === undefined ? undefined : this.byModel(model);
  }

  /** The parent type's service when the parent (type, id) is a live record of the tenant; null otherwise. */
  private async live(db: TenantTx | TenantClient, type: string, id: string): Promise<ParentService | null> {
    const parent = this.declared(type);
    if (!parent || !isUuid(id)) return null;
    const found = await modelDelegate(db, parent.def.model).count({ where: { id: id.toLowerCase(), ...parent.live } });
    return found > 0 ? parent : null;
  }

  /** A nested record read or changed by id: its parent live (404 as the record's otherwise) and its scopes held (403). */
  async guard(db: TenantTx | TenantClient, ctx: RequestContext, row: RecordRow, access: 'read' | 'write'): Promise<void> {
    const parent = await this.live(db, String(row[this.nesting.typeColumn]), String(row[this.nesting.idColumn]));
    if (!parent) throw notFound(this.def.className);
    for (const scope of nestedScopes(this.def, parent.def, access)) requireScope(ctx.principal, scope);
  }

  /** The parent of a nested list or create, named by its type and id: the scopes first (403), then the parent live (404). */
  async require(db: TenantTx | TenantClient, ctx: RequestContext, type: string, id: string, access: 'read' | 'write'): Promise<ParentService> {
    const declared = this.declared(type);
    if (!declared) throw notFound(type);
    // The scopes first (the route's gate checks them before anything else), then the parent.
    for (const scope of nestedScopes(this.def, declared.def, access)) requireScope(ctx.principal, scope);
    const parent = await this.live(db, type, id);
    if (!parent) throw notFound(declared.def.className);
    return parent;
  }
}
