import { addError } from '../../kernel/body.ts';
import type { WriteHookArgs } from '../../kernel/resource.ts';

// Where work happens, shared by jobs and estimates: customer, site and system must agree, and the account's
// module settings decide what is required.
//   AddressRequired (Yes by default): site_id is required, unless the setting is No.
//   System module (off by default): when on, system_id is required on jobs, and on estimates that have a site.
//   site_id is taken from the system when omitted; customer_id from the site's customer when omitted.
//   The site must belong to customer_id and the system to the site (422 naming the field).

export async function checkWorkLocation(args: WriteHookArgs, systemRequired: 'always' | 'with_site'): Promise<void> {
  const { tx, ctx, mode, values, existing, errors } = args;
  if (errors.customer_id || errors.site_id || errors.system_id) return;
  const current = (key: string) => (key in values ? values[key] : (existing?.[key] ?? null)) as string | null;
  const modules = ctx.principal.account.modules;

  const systemId = current('system_id');
  const system = systemId ? await tx.system.findFirst({ where: { id: systemId, deleted_at: null }, select: { site_id: true } }) : null;
  if (system && !('site_id' in values) && (mode === 'create' || existing?.site_id === null || existing?.site_id === undefined)) {
    values.site_id = system.site_id;
  }
  const siteId = current('site_id');
  const site = siteId ? await tx.site.findFirst({ where: { id: siteId, deleted_at: null }, select: { customer_id: true } }) : null;
  if (site && site.customer_id && !('customer_id' in values) && (mode === 'create' || !existing?.customer_id)) {
    values.customer_id = site.customer_id;
  }
  const customerId = current('customer_id');

  if (modules.AddressRequired !== 'No' && !siteId && (mode === 'create' || 'site_id' in values || 'system_id' in values)) {
    addError(errors, 'site_id', mode === 'create' && !('site_id' in values) ? 'is missing (the AddressRequired setting is Yes)' : "can't be blank (the AddressRequired setting is Yes)");
  }
  const needsSystem = modules.System === 'on' && (systemRequired === 'always' || Boolean(siteId));
  if (needsSystem && !systemId && (mode === 'create' || 'system_id' in values || 'site_id' in values)) {
    addError(errors, 'system_id', 'is missing (the System module is on)');
  }
  if (site && customerId && site.customer_id !== customerId) addError(errors, 'site_id', 'does not belong to customer_id');
  if (system && siteId && system.site_id !== siteId) addError(errors, 'system_id', 'does not belong to site_id');
}
