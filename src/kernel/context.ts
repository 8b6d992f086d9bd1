import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from './errors.ts';
import type { Role } from './permissions.ts';

export interface Principal {
  accountId: string;
  account: { id: string; name: string; sandbox: boolean; modules: AccountModules };
  user: { id: bigint; name: string; email: string; role: Role };
  key: { id: string; scopes: string[]; expiresAt: Date | null; createdAt: Date; apiVersion: string };
}

export interface AccountModules {
  AddressRequired: 'Yes' | 'No';
  System: 'on' | 'off';
}

/** Everything a service needs to know about the caller of one request. */
export interface RequestContext {
  requestId: string;
  principal: Principal;
  /** API version resolved from the Fieldline-Version header or the key's pinned version. */
  apiVersion: string;
}

// The tenant of the running request. The data layer reads it to scope every query (src/kernel/tenancy.ts).
const tenantStorage = new AsyncLocalStorage<{ accountId: string }>();

export function runAsTenant<T>(accountId: string, fn: () => T): T {
  return tenantStorage.run({ accountId }, fn);
}

export function currentTenant(): string {
  const store = tenantStorage.getStore();
  if (!store) throw new AppError('internal.error', null, {}, {});
  return store.accountId;
}

export function currentTenantOrNull(): string | null {
  return tenantStorage.getStore()?.accountId ?? null;
}
