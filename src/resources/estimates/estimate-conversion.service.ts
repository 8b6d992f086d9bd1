import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, validationError } from '../../kernel/errors.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// POST /estimates/{id}/convert: an Accepted estimate becomes a job, in one transaction. The job takes the
// estimate's customer, site, contact, system, title, scope of work, job type, reference and notes (checked
// against today's rules, like any new job), and a copy of every line as stored (item, description, quantity,
// unit price, discount, tax rate and the percent applied, taxable, labor visibility and the computed amounts):
// what was agreed is neither repriced nor re-validated, so the job's amount equals the estimate's even when a
// tax rate changed, was deactivated or an item was deleted since. The job records estimate_id (already in its
// created event) and the estimate converted_job_id: what an invoice needs later (who, where, what was agreed,
// at which prices and taxes). Converts once.

export const ACCEPTED_STATUS = 'Accepted';
const copiedFields = ['customer_id', 'site_id', 'contact_id', 'system_id', 'title', 'scope_of_work', 'job_type', 'reference', 'customer_notes'] as const;

export class EstimateConversionService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
    private readonly estimates: ResourceService,
    private readonly jobs: ResourceService,
  ) {}

  convert(ctx: RequestContext, estimateId: string, body: unknown): Promise<{ estimate: Single; job: Single }> {
    if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length > 0)) {
      throw validationError({ body: ['must be empty: the job is made from the estimate'] });
    }
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const locked = isUuid(estimateId)
          ? await tenantQuery<{ status: string; converted_job_id: string | null }>(
              tx,
              `SELECT status, converted_job_id FROM estimates WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              estimateId,
            )
          : [];
        if (locked.length === 0) throw notFound('Estimate');
        if (locked[0].converted_job_id) {
          throw new AppError('estimate.already_converted', `The estimate was already converted into job ${locked[0].converted_job_id}.`);
        }
        if (locked[0].status !== ACCEPTED_STATUS) {
          throw new AppError('estimate.not_accepted', `Only an ${ACCEPTED_STATUS} estimate converts to a job (this one is ${locked[0].status}).`);
        }
        const estimate = (await this.estimates.getWithin(tx, estimateId)).record;
        const input: Record<string, unknown> = {};
        for (const field of copiedFields) if (estimate[field] !== null && estimate[field] !== undefined) input[field] = estimate[field];
        // The job obeys today's rules (module settings, live site): a violation is a 422 naming the field.
        // Its lines are the estimate's stored lines (the kernel keeps the line columns and gives them new ids).
        const lines = await tx.lineitem.findMany({ where: { estimate_id: estimateId }, orderBy: [{ position: 'asc' }, { created_at: 'asc' }] });
        const job = await this.jobs.createWithin(tx, ctx, input, { values: { estimate_id: estimateId }, children: { lineitems: lines } });
        const converted = await this.estimates.touchWithin(tx, ctx, estimateId, { converted_job_id: job.record.id, converted_at: this.clock.now() });
        return { estimate: converted, job };
      }),
    );
  }
}
