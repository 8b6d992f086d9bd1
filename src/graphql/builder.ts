import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import PrismaPlugin from '@pothos/plugin-prisma';
import ComplexityPlugin from '@pothos/plugin-complexity';
import type { Domain } from '../domain.ts';
import type PrismaTypes from '../generated/pothos-types.ts';
import { getDatamodel } from '../generated/pothos-types.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { requireScope } from '../kernel/auth.ts';
import type { Principal, RequestContext } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import type { Scope } from '../kernel/scopes.ts';
import { fieldCost, type OperationCost } from './limits.ts';

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
  PrismaTypes: PrismaTypes;
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
 * A new builder: scope-auth first (its checks run before every other plugin's resolvers), then prisma and
 * complexity; relations batch through loaders.ts with dataloader itself. Building needs no database: the Prisma client is taken from the request context when a resolver runs.
 */
export function createBuilder(): Builder {
  return new SchemaBuilder<FieldlineSchemaTypes>({
    plugins: [ScopeAuthPlugin, PrismaPlugin, ComplexityPlugin],
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
    // enforced once per operation before execution by src/graphql/limits.ts, so the plugin's own per-resolver
    // check is off.
    complexity: { fieldComplexity: fieldCost, disabled: true },
    prisma: {
      // The tenant-scoped client: every query of a prismaObject/prismaField is scoped to the caller's account
      // (execution runs inside runAsTenant, see server.ts).
      client: (ctx) => ctx.domain.db as unknown as PrismaClient,
      dmmf: getDatamodel(),
      exposeDescriptions: false,
      onUnusedQuery: null,
    },
  });
}
