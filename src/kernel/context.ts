import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from './errors.ts';
import type { SystemOrigin } from './events.ts';
import type { IdempotencyScope } from './idempotency.ts';
import type { Role } from './permissions.ts';
import { vocabulary } from './vocabulary.ts';

export interface Principal {
  accountId: string;
  account: {
    id: string;
    name: string;
    sandbox: boolean;
    modules: AccountModules;
    /** ISO 4217 code of every amount of the account. */
    currency: string;
    /** IANA time zone: what "today" is for the account's documents (an invoice's default date). */
    timeZone: string;
    /** Days from an invoice's date to its default due date. */
    paymentTermsDays: number;
  };
  user: { id: bigint; name: string; email: string; role: Role };
  key: { id: string; scopes: string[]; expiresAt: Date | null; createdAt: Date; apiVersion: string };
}

export interface AccountModules {
  AddressRequired: 'Yes' | 'No';
  System: 'on' | 'off';
}

/** The values each account module takes (the CLI's --module, /me and GraphQL me.account.modules). */
export const accountModuleValues = {
  AddressRequired: vocabulary('AddressRequiredSetting', ['Yes', 'No'], {
    description: 'Whether a job needs a site (the address of the work).',
    describe: (value) => (value === 'Yes' ? 'A job needs a site.' : 'A job may have no site.'),
  }),
  System: vocabulary('SystemSetting', ['on', 'off'], {
    description: 'Whether jobs and estimates name the system (equipment) they are about.',
    describe: (value) => (value === 'on' ? 'A job needs a system, and so does an estimate at a site.' : 'Jobs and estimates need no system.'),
  }),
} as const satisfies { [K in keyof AccountModules]: readonly AccountModules[K][] };

/** Everything a service needs to know about the caller of one request. */
export interface RequestContext {
  requestId: string;
  principal: Principal;
  /** API version resolved from the Fieldline-Version header or the key's pinned version. */
  apiVersion: string;
  /**
   * Set when the request is an idempotent financial create (src/kernel/idempotency.ts): the service doing the work
   * calls complete with its result inside its transaction, before it commits.
   */
  idempotency?: IdempotencyScope;
  /** Set when no request is behind the work (the scheduler's, src/kernel/system-context.ts): the events' actor. */
  origin?: SystemOrigin;
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
