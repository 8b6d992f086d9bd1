import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ComplexityPlugin from '@pothos/plugin-complexity';
import type { Domain } from '../../domain.ts';
import { requireScope } from '../../kernel/auth.ts';
import type { Principal, RequestContext } from '../../kernel/context.ts';
import { AppError } from '../../kernel/errors.ts';
import type { Scope } from '../../kernel/scopes.ts';
import { fieldCost } from './cost.ts';
import { type OperationCost } from './meter.ts';

/**
 * What every resolver sees. A GraphQL request is authenticated (and rate limited, and its version resolved)
 * before execution starts (see gate.ts), so a context always has a principal.
 */
export interface GraphQLContext {
  domain: Domain;
  requestId: string;
  principal: Principal;
  apiVersion: string;
  /** The request's cost and throttle state (limits.ts), reported in extensions.cost. */
  cost: OperationCost;
}

/** The kernel's request context for a service call. */
export function requestContext(ctx: GraphQLContext): RequestContext {
  return { requestId: ctx.requestId, principal: ctx.principal, apiVersion: ctx.apiVersion };
}

export interface FieldlineSchemaTypes {
  Context: GraphQLContext;
  AuthScopes: { scope: Scope; authenticated: boolean };
  // Fields are non-null unless they say otherwise (root fields do, so one failing field keeps the others' data).
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: string; Output: string | Date };
    Date: { Input: string; Output: string | Date };
    SafeInt: { Input: number; Output: number | bigint };
    Decimal: { Input: string | number; Output: string | number };
    JSON: { Input: unknown; Output: unknown };
  };
}

export type Builder = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<FieldlineSchemaTypes>>;

/**
 * A new builder: scope-auth first (its checks run before the other plugins' resolvers), then complexity. Relations
 * batch through loaders.ts with dataloader (docs/decisions.md says why not plugin-prisma). Building needs no
 * database.
 */
export function createBuilder(): Builder {
  return new SchemaBuilder<FieldlineSchemaTypes>({
    plugins: [ScopeAuthPlugin, ComplexityPlugin],
    defaultFieldNullability: false,
    scopeAuth: {
      // The kernel's requireScope throws auth.scope_missing with required_scope and granted_scopes, the same
      // error REST gives; scope-auth lets errors thrown by a scope loader through unchanged.
      authScopes: (ctx) => ({
        authenticated: Boolean(ctx.principal),
        scope: (scope: Scope) => {
          requireScope(ctx.principal, scope);
          return true;
        },
      }),
      unauthorizedError: () => new AppError('auth.permission_denied', 'This operation is not allowed for this API key.'),
    },
    // Each field carries its cost in the schema (fieldCost unless the field says otherwise); the limits are
    // enforced once per operation before execution by src/graphql/transport/limits.ts, so the plugin's own per-resolver
    // check is off.
    complexity: { fieldComplexity: fieldCost, disabled: true },
  });
}
