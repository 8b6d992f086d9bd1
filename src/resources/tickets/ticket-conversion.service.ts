import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound } from '../../kernel/errors.ts';
import { isUuid } from '../../kernel/ids.ts';
import { liveStatuses } from '../../kernel/lookups.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// POST /tickets/{id}/convert: in one transaction, a job is made from the ticket (customer, site, contact; the
// subject as title, the description as scope of work, the priority in the job's words), the optional input
// overriding or adding job fields, checked by the rules of a job create. The job records ticket_id and the
// ticket converted_job_id and converted_at, and moves to Resolved when that status is live. The ticket's row is
// locked first, so of concurrent conversions one makes the job and the others answer ticket.already_converted.

/** The status a converted ticket moves to, when the account has it (an account that renamed it opts out). */
export const RESOLVED_STATUS = 'Resolved';
/** A Closed ticket is done with: reopen it before converting it. */
export const CLOSED_STATUS = 'Closed';
/** A job's priority is free text: the ticket's, capitalised. */
const jobPriority = (priority: string) => priority.charAt(0).toUpperCase() + priority.slice(1);

export class TicketConversionService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
    private readonly tickets: ResourceService,
    private readonly jobs: ResourceService,
  ) {}

  convert(ctx: RequestContext, ticketId: string, input: ActionInput): Promise<{ ticket: Single; job: Single }> {
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const locked = isUuid(ticketId)
          ? await tenantQuery<{ status: string; converted_job_id: string | null }>(
              tx,
              `SELECT status, converted_job_id FROM tickets WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              ticketId,
            )
          : [];
        if (locked.length === 0) throw notFound('Ticket');
        // The input is checked after the ticket's existence and before the conversion rules (the documented order).
        const overrides = readActionInput(input, 'job');
        const [{ status, converted_job_id: jobId }] = locked;
        if (jobId) throw new AppError('ticket.already_converted', `The ticket was already converted into job ${jobId}.`);
        if (status === CLOSED_STATUS) throw new AppError('ticket.closed', `The ticket is ${CLOSED_STATUS}: reopen it (another status) before converting it.`);
        const ticket = (await this.tickets.getWithin(tx, ticketId)).record;
        const copied: Record<string, unknown> = {
          customer_id: ticket.customer_id,
          title: ticket.subject,
          priority: jobPriority(String(ticket.priority)),
          ...(ticket.site_id ? { site_id: ticket.site_id } : {}),
          ...(ticket.contact_id ? { contact_id: ticket.contact_id } : {}),
          ...(ticket.description ? { scope_of_work: ticket.description } : {}),
        };
        // The job obeys today's rules (module settings, live site, required custom fields): a violation is a 422 naming the field.
        const job = await this.jobs.createWithin(tx, ctx, { ...copied, ...overrides }, { values: { ticket_id: ticketId } });
        const statuses = await liveStatuses(tx, 'Ticket');
        const converted = await this.tickets.touchWithin(tx, ctx, ticketId, {
          converted_job_id: job.record.id,
          converted_at: this.clock.now(),
          ...(statuses.includes(RESOLVED_STATUS) ? { status: RESOLVED_STATUS } : {}),
        });
        await this.tickets.announceWithin(tx, ctx, converted, 'converted', { converted_to: { job_id: job.record.id } });
        return { ticket: converted, job };
      }),
    );
  }
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    ticketConversion: TicketConversionService;
  }
}
