import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound } from '../../kernel/errors.ts';
import { isUuid } from '../../kernel/ids.ts';
import { liveStatuses } from '../../kernel/lookups.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { moveLinkages } from '../contacts/contact-linkage.service.ts';

// POST /leads/{id}/convert: in one transaction, creates a customer from the lead (the input may override or add
// customer fields), moves the lead's sites, contact linkages (primaries stay primaries) and deals to it, and marks the lead converted (status "Converted" when that status is live). A lead converts once.

export const CONVERTED_STATUS = 'Converted';

export class LeadConversionService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
    private readonly leads: ResourceService,
    private readonly customers: ResourceService,
    private readonly sites: ResourceService,
    private readonly deals: ResourceService,
  ) {}

  convert(ctx: RequestContext, leadId: string, input: ActionInput): Promise<{ lead: Single; customer: Single }> {
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const locked = isUuid(leadId)
          ? await tenantQuery<{ converted_customer_id: string | null }>(
              tx,
              `SELECT converted_customer_id FROM leads WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              leadId,
            )
          : [];
        if (locked.length === 0) throw notFound('Lead');
        // The input is checked after the lead's existence and before the conversion rule (the documented order).
        const overrides = readActionInput(input, 'customer');
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

        // The lead's live sites, locked (in their display order, fl_site_order_key) so that each moves from its
        // current version; each move is an ordinary write of the site (updated_at forward, new ETag, site.updated).
        const sites = await tenantQuery<{ id: string }>(
          tx,
          `SELECT s.id FROM sites s WHERE s.account_id = $1::uuid AND s.lead_id = $2::uuid AND s.deleted_at IS NULL ORDER BY fl_site_order_key(s) FOR UPDATE`,
          leadId,
        );
        for (const { id } of sites) {
          await this.sites.touchWithin(tx, ctx, id, { siteable_type: 'Customer', siteable_id: customerId, customer_id: customerId, lead_id: null });
        }

        await moveLinkages(tx, ctx, { type: 'Lead', id: leadId }, { type: 'Customer', id: customerId }, now);

        // The lead's live deals move to the customer the same way (oldest first; each a deal.updated).
        const deals = await tenantQuery<{ id: string }>(
          tx,
          `SELECT d.id FROM deals d WHERE d.account_id = $1::uuid AND d.lead_id = $2::uuid AND d.deleted_at IS NULL ORDER BY d.created_at, d.id FOR UPDATE`,
          leadId,
        );
        for (const { id } of deals) await this.deals.touchWithin(tx, ctx, id, { customer_id: customerId, lead_id: null });

        const statuses = await liveStatuses(tx, 'Lead');
        const convertedLead = await this.leads.touchWithin(tx, ctx, leadId, {
          converted_customer_id: customerId,
          converted_at: now,
          ...(statuses.includes(CONVERTED_STATUS) ? { status: CONVERTED_STATUS } : {}),
        });
        await this.leads.announceWithin(tx, ctx, convertedLead, 'converted', { converted_to: { customer_id: customerId } });
        // The customer as it is now (its primary site address and search text follow the moved sites).
        return { lead: convertedLead, customer: await this.customers.getWithin(tx, customerId) };
      }),
    );
  }
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    leadConversion: LeadConversionService;
  }
}
