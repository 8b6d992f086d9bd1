import { recordFromBody } from '../../kernel/body.ts';
import type { Clock } from '../../kernel/clock.ts';
import { currentTenant, runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, validationError } from '../../kernel/errors.ts';
import { appendEvent } from '../../kernel/events.ts';
import { isUuid } from '../../kernel/ids.ts';
import { liveStatuses } from '../../kernel/lookups.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import type { TenantClient } from '../../kernel/tenancy.ts';
import type { LinkageRow } from '../contacts/contact-linkage.service.ts';
import { serializeLinkage } from '../contacts/contact-linkage.service.ts';

// POST /leads/{id}/convert: in one transaction, creates a customer from the lead (the body may override or add
// customer fields under "customer"), moves the lead's sites and contact linkages to it (primaries stay
// primaries), and marks the lead converted (status "Converted" when that status is live). A lead converts once.

export const CONVERTED_STATUS = 'Converted';

/** The optional {"customer": {...}} body; any other key is refused, so that a misspelt one never converts with defaults silently. */
function overridesOf(body: unknown): Record<string, unknown> {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const stray = Object.keys(body).filter((key) => key !== 'customer');
    if (stray.length > 0) throw validationError(Object.fromEntries(stray.map((key) => [key, ['is not a permitted field']])));
  }
  return body === undefined || (typeof body === 'object' && body !== null && !('customer' in body)) ? {} : recordFromBody(body, 'customer');
}

export class LeadConversionService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
    private readonly leads: ResourceService,
    private readonly customers: ResourceService,
    private readonly sites: ResourceService,
  ) {}

  convert(ctx: RequestContext, leadId: string, body: unknown): Promise<{ lead: Single; customer: Single }> {
    return runAsTenant(ctx.principal.accountId, () =>
      this.db.$transaction(
        async (tx) => {
          const locked = isUuid(leadId)
            ? await tx.$queryRawUnsafe<{ converted_customer_id: string | null }[]>(
                `SELECT converted_customer_id FROM leads WHERE id = $1::uuid AND account_id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
                leadId,
                currentTenant(),
              )
            : [];
          if (locked.length === 0) throw notFound('Lead');
          // The body is checked after the lead's existence and before the conversion rule (the documented order).
          const overrides = overridesOf(body);
          if (locked[0].converted_customer_id) {
            throw new AppError('lead.already_converted', `The lead was already converted into customer ${locked[0].converted_customer_id}.`);
          }
          const lead = (await tx.lead.findFirst({ where: { id: leadId } }))!;
          const personName = [lead.first_name, lead.last_name].filter(Boolean).join(' ');
          const customerInput: Record<string, unknown> = {
            organization: lead.organization ?? personName,
            ...(lead.description ? { description: lead.description } : {}),
            ...(lead.assignee_id !== null ? { assignee_id: Number(lead.assignee_id) } : {}),
            ...(lead.phone ? { main_phone: lead.phone } : {}),
            ...overrides,
          };
          const customer = await this.customers.createWithin(tx, ctx, customerInput);
          const customerId = customer.record.id as string;
          const now = this.clock.now();

          const sites = await tx.site.findMany({ where: { lead_id: leadId, deleted_at: null }, select: { id: true } });
          await tx.site.updateMany({
            where: { lead_id: leadId, deleted_at: null },
            data: { siteable_type: 'Customer', siteable_id: customerId, customer_id: customerId, lead_id: null, updated_at: now, lock_version: { increment: 1 } },
          });
          for (const { id } of sites) {
            const site = await this.sites.getWithin(tx, id);
            await appendEvent(tx, ctx, { resource: 'Site', topicPrefix: 'site', recordId: id, action: 'updated', payload: site.record });
          }

          const linkages = (await tx.contactLinkage.findMany({ where: { linkable_type: 'Lead', linkable_id: leadId } })) as LinkageRow[];
          await tx.contactLinkage.updateMany({
            where: { linkable_type: 'Lead', linkable_id: leadId },
            data: { linkable_type: 'Customer', linkable_id: customerId, updated_at: now },
          });
          for (const row of linkages) {
            const moved = { ...row, linkable_type: 'Customer', linkable_id: customerId, updated_at: now };
            await appendEvent(tx, ctx, { resource: 'ContactLinkage', topicPrefix: 'contact_linkage', recordId: row.id, action: 'updated', payload: serializeLinkage(moved) });
          }

          const statuses = await liveStatuses(tx, 'Lead');
          await tx.lead.updateMany({
            where: { id: leadId },
            data: {
              converted_customer_id: customerId,
              converted_at: now,
              ...(statuses.includes(CONVERTED_STATUS) ? { status: CONVERTED_STATUS } : {}),
              updated_at: new Date(Math.max(now.getTime(), lead.updated_at.getTime() + 1)),
              lock_version: { increment: 1 },
            },
          });
          const convertedLead = await this.leads.getWithin(tx, leadId);
          await appendEvent(tx, ctx, { resource: 'Lead', topicPrefix: 'lead', recordId: leadId, action: 'updated', payload: convertedLead.record });
          // The customer as it is now (its primary site address and search text follow the moved sites).
          return { lead: convertedLead, customer: await this.customers.getWithin(tx, customerId) };
        },
        { timeout: 15_000, maxWait: 10_000 },
      ),
    );
  }
}
