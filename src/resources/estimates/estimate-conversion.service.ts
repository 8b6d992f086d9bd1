import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound } from '../../kernel/errors.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient, type TenantTx } from '../../kernel/tenancy.ts';
import { idempotencyOf } from '../../kernel/idempotency.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// POST /estimates/{id}/convert: an Accepted estimate becomes a job, in one transaction. The job takes the
// estimate's customer, site, contact, system, title, scope of work, job type, reference and notes (checked
// against today's rules, like any new job), and a copy of every line as stored (item, description, quantity,
// unit price, discount, tax rate and the percent applied, taxable, labor visibility and the computed amounts):
// what was agreed is neither repriced nor re-validated, so the job's amount equals the estimate's even when a
// tax rate changed, was deactivated or an item was deleted since. The job records estimate_id (already in its
// created event) and the estimate converted_job_id: what an invoice needs later (who, where, what was agreed,
// at which prices and taxes).
//
// POST /estimates/{id}/invoice: the same rule makes an invoice instead (work billed without a job): the
// estimate's customer, site, contact, reference, customer notes and tax rate, its lines as stored, estimate_id
// on the invoice and converted_invoice_id on the estimate. An estimate converts once, to a job or an invoice.

export const ACCEPTED_STATUS = 'Accepted';
const jobFields = ['customer_id', 'site_id', 'contact_id', 'system_id', 'project_id', 'title', 'scope_of_work', 'job_type', 'reference', 'customer_notes'] as const;
const invoiceFields = ['customer_id', 'site_id', 'contact_id', 'reference', 'customer_notes', 'tax_rate_id'] as const;

/** The values of `fields` the record has (null and absent ones are left to the target's defaults). */
function copied(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) if (record[field] !== null && record[field] !== undefined) input[field] = record[field];
  return input;
}

export class EstimateConversionService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
    private readonly estimates: ResourceService,
    private readonly jobs: ResourceService,
    private readonly invoices: ResourceService,
  ) {}

  /** POST /estimates/{id}/convert: the estimate becomes a job. */
  convert(ctx: RequestContext, estimateId: string): Promise<{ estimate: Single; job: Single }> {
    return this.converting(ctx, estimateId, 'job', async (tx, estimate, lines) => {
      // The job obeys today's rules (module settings, live site): a violation is a 422 naming the field.
      const job = await this.jobs.createWithin(tx, ctx, copied(estimate, jobFields), { values: { estimate_id: estimateId }, children: { lineitems: lines } });
      const converted = await this.estimates.touchWithin(tx, ctx, estimateId, { converted_job_id: job.record.id, converted_at: this.clock.now() });
      await this.estimates.announceWithin(tx, ctx, converted, 'converted', { converted_to: { job_id: job.record.id } });
      return { estimate: converted, job };
    });
  }

  /**
   * POST /estimates/{id}/invoice: the estimate becomes an invoice (a financial create: once per idempotency key).
   * The optional input overrides or adds invoice fields; the lines are the estimate's.
   */
  invoice(ctx: RequestContext, estimateId: string, input: ActionInput): Promise<{ estimate: Single; invoice: Single }> {
    const idempotency = idempotencyOf(ctx, 'An invoice');
    return this.converting(ctx, estimateId, 'invoice', async (tx, estimate, lines) => {
      const overrides = readActionInput(input, 'invoice');
      const invoice = await this.invoices.createWithin(tx, ctx, { ...copied(estimate, invoiceFields), ...overrides }, { values: { estimate_id: estimateId }, children: { lineitems: lines } });
      const converted = await this.estimates.touchWithin(tx, ctx, estimateId, { converted_invoice_id: invoice.record.id, converted_at: this.clock.now() });
      await this.estimates.announceWithin(tx, ctx, converted, 'converted', { converted_to: { invoice_id: invoice.record.id } });
      const result = { estimate: converted, invoice };
      await idempotency.complete(tx, result);
      return result;
    });
  }

  /**
   * The conversion rule, once for both targets, in one transaction: the estimate is locked, must be Accepted and
   * not converted yet (to a job or an invoice: an estimate converts once); `make` gets it and its stored lines.
   */
  private converting<R>(
    ctx: RequestContext,
    estimateId: string,
    target: 'job' | 'invoice',
    make: (tx: TenantTx, estimate: Record<string, unknown>, lines: Record<string, unknown>[]) => Promise<R>,
  ): Promise<R> {
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const locked = isUuid(estimateId)
          ? await tenantQuery<{ status: string; converted_job_id: string | null; converted_invoice_id: string | null }>(
              tx,
              `SELECT status, converted_job_id, converted_invoice_id FROM estimates WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              estimateId,
            )
          : [];
        if (locked.length === 0) throw notFound('Estimate');
        const [{ status, converted_job_id: jobId, converted_invoice_id: invoiceId }] = locked;
        if (jobId) throw new AppError('estimate.already_converted', `The estimate was already converted into job ${jobId}${target === 'invoice' ? `: invoice the job (POST /jobs/${jobId}/invoice)` : ''}.`);
        if (invoiceId) throw new AppError('estimate.already_converted', `The estimate was already invoiced: invoice ${invoiceId}.`);
        if (status !== ACCEPTED_STATUS) {
          throw new AppError('estimate.not_accepted', `Only an ${ACCEPTED_STATUS} estimate converts to a ${target} (this one is ${status}).`);
        }
        const estimate = (await this.estimates.getWithin(tx, estimateId)).record;
        // The stored lines (the kernel keeps the line columns and gives them new ids).
        const lines = await tx.lineitem.findMany({ where: { estimate_id: estimateId }, orderBy: [{ position: 'asc' }, { created_at: 'asc' }] });
        return make(tx, estimate, lines);
      }),
    );
  }
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    estimateConversion: EstimateConversionService;
  }
}
