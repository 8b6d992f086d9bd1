import type { Clock } from '../../kernel/clock.ts';
import { currentTenant, runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, validationError } from '../../kernel/errors.ts';
import { appendEvent } from '../../kernel/events.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import type { TenantClient } from '../../kernel/tenancy.ts';

// POST /estimates/{id}/convert: an Accepted estimate becomes a job, in one transaction. The job takes the
// estimate's customer, site, contact, system, title, scope of work, job type, reference and notes, and a copy
// of every line (item, description, quantity, unit price, discount, tax rate, taxable, labor visibility), so
// its amount equals the estimate's. The job records estimate_id and the estimate records converted_job_id:
// what an invoice needs later (who, where, what was agreed, at which prices and taxes). Converts once.

export const ACCEPTED_STATUS = 'Accepted';
const copiedFields = ['customer_id', 'site_id', 'contact_id', 'system_id', 'title', 'scope_of_work', 'job_type', 'reference', 'customer_notes'] as const;
const copiedLineFields = ['item_id', 'description', 'quantity', 'unit_price', 'discount', 'tax_rate_id', 'taxable', 'labor_visible'] as const;

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
      this.db.$transaction(
        async (tx) => {
          const locked = isUuid(estimateId)
            ? await tx.$queryRawUnsafe<{ status: string; converted_job_id: string | null }[]>(
                `SELECT status, converted_job_id FROM estimates WHERE id = $1::uuid AND account_id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
                estimateId,
                currentTenant(),
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
          input.lineitems = (estimate.lineitems as Record<string, unknown>[]).map((line) =>
            Object.fromEntries(copiedLineFields.filter((f) => line[f] !== null && line[f] !== undefined).map((f) => [f, line[f]])),
          );
          // The job obeys today's rules (module settings, live site): a violation is a 422 naming the field.
          const created = await this.jobs.createWithin(tx, ctx, input);
          const jobId = created.record.id as string;
          const now = this.clock.now();
          await tx.job.updateMany({ where: { id: jobId }, data: { estimate_id: estimateId } });
          const current = await tx.estimate.findFirst({ where: { id: estimateId }, select: { updated_at: true } });
          await tx.estimate.updateMany({
            where: { id: estimateId },
            data: { converted_job_id: jobId, converted_at: now, updated_at: new Date(Math.max(now.getTime(), current!.updated_at.getTime() + 1)), lock_version: { increment: 1 } },
          });
          const converted = await this.estimates.getWithin(tx, estimateId);
          await appendEvent(tx, ctx, { resource: 'Estimate', topicPrefix: 'estimate', recordId: estimateId, action: 'updated', payload: converted.record });
          return { estimate: converted, job: await this.jobs.getWithin(tx, jobId) };
        },
        { timeout: 15_000, maxWait: 10_000 },
      ),
    );
  }
}
