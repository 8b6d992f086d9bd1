import type { Role } from '../../../src/kernel/permissions.ts';
import type { Tenant, TenantClients, TestApp } from '../app.ts';
import { unique } from './records.ts';

// Users, keys and modules of a tenant, made through the admin service (as the `fieldline` command does).

/** A user of the tenant with the given role, and a REST client with a key of that user (every scope unless given). */
export async function userClient(t: TestApp, tenant: Tenant, role: Role, name = unique('User '), scopes?: string[]) {
  const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name, email: `${unique('u')}@example.test`, role });
  const key = await t.app.domain.admin.createKey({ userId: user.id, scopes });
  return { user, api: t.client(key.token) };
}

export type Modules = { AddressRequired?: 'Yes' | 'No'; System?: 'on' | 'off' };

export function setModules(t: TestApp, tenant: Tenant, modules: Modules) {
  return t.app.domain.admin.updateAccount(tenant.accountId, { modules });
}

/** A new tenant (with clients of its key) whose account has these modules. */
export async function tenantWith(t: TestApp, modules: Modules): Promise<TenantClients> {
  const clients = await t.newTenant();
  await setModules(t, clients.tenant, modules);
  return clients;
}
