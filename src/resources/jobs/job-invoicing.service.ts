import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound } from '../../kernel/errors.ts';
import { idempotencyOf } from '../../kernel/idempotency.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { invoiceOverrides } from '../invoices/invoice-overrides.ts';

// POST /jobs/{id}/invoice: bills a job, in one transaction, once per idempotency key (a financial create). The
// invoice takes the job's customer, site, contact and reference (the optional {"invoice": {...}} overrides or
// adds invoice fields, as any invoice create checks them) and a copy of every line as stored, so its amount is
// the job's; it records job_id, and the job's estimate_id when the job came from an estimate. A job is billed by
// one live invoice: invoicing it again is refused with job.already_invoiced (409) until that invoice is deleted
// (the job's row lock orders concurrent requests; the unique index invoices_job_live_key backs the rule).

interface JobRow {
  customer_id: string | null;
  site_id: string | null;
  contact_id: string | null;
  reference: string | null;
  estimate_id: string | null;
}

export class JobInvoicingService {
  constructor(
    private readonly db: TenantClient,
    private readonly invoices: ResourceService,
  ) {}

  invoice(ctx: RequestContext, jobId: string, body: unknown): Promise<{ invoice: Single }> {
    const idempotency = idempotencyOf(ctx, 'An invoice');
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const [job] = isUuid(jobId)
          ? await tenantQuery<JobRow>(
              tx,
              `SELECT customer_id, site_id, contact_id, reference, estimate_id FROM jobs WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              jobId,
            )
          : [];
        if (!job) throw notFound('Job');
        const overrides = invoiceOverrides(body, 'job');
        const [billed] = await tenantQuery<{ id: string; number: string }>(
          tx,
          `SELECT id, number FROM invoices WHERE account_id = $1::uuid AND job_id = $2::uuid AND deleted_at IS NULL`,
          jobId,
        );
        if (billed) throw new AppError('job.already_invoiced', `The job is billed by invoice ${billed.number} (${billed.id}); delete that invoice to invoice the job again.`);
        const input: Record<string, unknown> = {};
        for (const field of ['customer_id', 'site_id', 'contact_id', 'reference'] as const) if (job[field] !== null) input[field] = job[field];
        const lines = await tx.lineitem.findMany({ where: { job_id: jobId }, orderBy: [{ position: 'asc' }, { created_at: 'asc' }] });
        const invoice = await this.invoices.createWithin(tx, ctx, { ...input, ...overrides }, { values: { job_id: jobId, estimate_id: job.estimate_id }, children: { lineitems: lines } });
        const result = { invoice };
        await idempotency.complete(tx, result);
        return result;
      }),
    );
  }
}
