import { principalAccount } from './auth.ts';
import type { RequestContext } from './context.ts';
import type { SystemOrigin } from './events.ts';
import type { TenantClient } from './tenancy.ts';

/**
 * The context of work no request is behind (the scheduler creating a recurring template's occurrences): the
 * account as a request of it would see it (time zone, modules, payment terms), no key and no user. The rules run as
 * for any write of the account; the events name the system as their actor (`origin`). Null when the account is
 * gone or deactivated: nothing is done for it.
 */
export async function systemContext(db: TenantClient, origin: SystemOrigin): Promise<RequestContext | null> {
  const account = await db.account.findUnique({
    where: { id: origin.accountId },
    select: { id: true, name: true, sandbox: true, active: true, modules: true, currency: true, time_zone: true, payment_terms_days: true },
  });
  if (!account || !account.active) return null;
  return {
    requestId: `${origin.system}-${Date.now().toString(36)}`,
    apiVersion: '',
    origin,
    principal: {
      accountId: account.id,
      account: principalAccount(account),
      // No user acts: rules that read the caller's role see an admin (the scheduler may do what the template says).
      user: { id: 0n, name: 'Fieldline scheduler', email: '', role: 'admin' },
      key: { id: origin.system, scopes: [], expiresAt: null, createdAt: new Date(0), apiVersion: '' },
    },
  };
}
