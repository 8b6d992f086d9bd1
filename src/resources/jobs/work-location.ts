import { addError } from '../../kernel/body.ts';
import type { WriteHookArgs } from '../../kernel/resource.ts';
import { readShared } from '../../kernel/tenancy.ts';

// Where work happens, shared by jobs and estimates: customer, site and system must agree, and the account's
// module settings decide what is required.
//   AddressRequired (Yes by default): site_id is required, unless the setting is No.
//   System module (off by default): when on, system_id is required on jobs, and on estimates that have a site.
//   site_id is taken from the system when omitted; customer_id from the site's customer when omitted.
//   The site must belong to customer_id and the system to the site (422 naming the field).

const live = <Row extends { deleted_at: Date | null }>(rows: Row[]): Row | null => rows.find((row) => row.deleted_at === null) ?? null;

/** The columns of a work record (job, estimate) that say where the work happens. */
type WorkLocation = Record<'customer_id' | 'site_id' | 'system_id' | 'project_id', string | null>;

export async function checkWorkLocation(args: WriteHookArgs<Partial<WorkLocation>, WorkLocation>, systemRequired: 'always' | 'with_site'): Promise<void> {
  const { tx, ctx, mode, values, existing, errors } = args;
  if (errors.customer_id || errors.site_id || errors.system_id || errors.project_id) return;
  const current = (key: keyof WorkLocation) => (key in values ? (values[key] ?? null) : (existing?.[key] ?? null));
  const modules = ctx.principal.account.modules;

  // The referenced rows are read with a share lock: their names are copied into the record's search text, which
  // a concurrent rename must not leave stale (readShared). A deleted system or site is as absent as a missing one.
  const systemId = current('system_id');
  const system = live(systemId ? await readShared<{ site_id: string; deleted_at: Date | null }>(tx, 'systems', 'site_id, deleted_at', [systemId]) : []);
  if (system && !('site_id' in values) && (mode === 'create' || existing?.site_id === null || existing?.site_id === undefined)) {
    values.site_id = system.site_id;
  }
  const siteId = current('site_id');
  const site = live(siteId ? await readShared<{ customer_id: string | null; deleted_at: Date | null }>(tx, 'sites', 'customer_id, deleted_at', [siteId]) : []);
  if (site && site.customer_id && !('customer_id' in values) && (mode === 'create' || !existing?.customer_id)) {
    values.customer_id = site.customer_id;
  }
  // A project's customer is the record's when neither the site nor the body names one.
  const projectId = current('project_id');
  const project = projectId ? await tx.project.findFirst({ where: { id: projectId.toLowerCase(), deleted_at: null }, select: { customer_id: true } }) : null;
  if (project && !current('customer_id') && !('customer_id' in values)) values.customer_id = project.customer_id;
  const customerId = current('customer_id');
  if (customerId) await readShared(tx, 'customers', 'id', [customerId]);
  if (project && (mode === 'create' || 'project_id' in values || 'customer_id' in values) && project.customer_id !== customerId?.toLowerCase()) {
    addError(errors, 'project_id', 'is a project of another customer than {customer_id}');
  }

  if (modules.AddressRequired !== 'No' && !siteId && (mode === 'create' || 'site_id' in values || 'system_id' in values)) {
    addError(errors, 'site_id', mode === 'create' && !('site_id' in values) ? 'is missing (the AddressRequired setting is Yes)' : "can't be blank (the AddressRequired setting is Yes)");
  }
  const needsSystem = modules.System === 'on' && (systemRequired === 'always' || Boolean(siteId));
  if (needsSystem && !systemId && (mode === 'create' || 'system_id' in values || 'site_id' in values)) {
    addError(errors, 'system_id', 'is missing (the System module is on)');
  }
  if (site && customerId && site.customer_id !== customerId) addError(errors, 'site_id', 'does not belong to {customer_id}');
  if (system && siteId && system.site_id !== siteId) addError(errors, 'system_id', 'does not belong to {site_id}');
}
