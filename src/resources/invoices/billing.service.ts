import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, type ErrorCode } from '../../kernel/errors.ts';
import { idempotencyOf } from '../../kernel/idempotency.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// Billing a record: POST /jobs/{id}/invoice and POST /sales_orders/{id}/invoice make an invoice from a job or a
// sales order, in one transaction, once per idempotency key (a financial create). The invoice takes the source's
// customer, site, contact and the other fields its kind copies (the optional input overrides or adds invoice
// fields, as any invoice create checks them) and a copy of every line as stored, so its amount is the
// source's; it records the source (job_id, sales_order_id) and what the source carries on (a job's estimate_id).
// A source is billed by one live invoice: invoicing it again is refused (409, the kind's code) until that invoice
// is deleted; the source's row lock orders concurrent requests and a partial unique index on the invoice column
// backs the rule. The source's status is the tenant's workflow: billing neither requires nor moves one.

export interface BillableKind {
  /** The source's table and its class in messages: jobs / Job. */
  table: string;
  className: string;
  /** Its name in messages: "job", "sales order". */
  noun: 'job' | 'sales order';
  /** The invoice column (and the lines' parent column) naming the source. */
  column: 'job_id' | 'sales_order_id';
  /** Invoice fields taken from the source's columns of the same name. */
  copied: readonly string[];
  /** Source columns recorded on the invoice as they are (read-only invoice fields). */
  carried?: readonly string[];
  code: Extract<ErrorCode, 'job.already_invoiced' | 'sales_order.already_invoiced'>;
}

export const billableJob: BillableKind = {
  table: 'jobs',
  className: 'Job',
  noun: 'job',
  column: 'job_id',
  copied: ['customer_id', 'site_id', 'contact_id', 'reference'],
  carried: ['estimate_id'],
  code: 'job.already_invoiced',
};

export const billableSalesOrder: BillableKind = {
  table: 'sales_orders',
  className: 'SalesOrder',
  noun: 'sales order',
  column: 'sales_order_id',
  copied: ['customer_id', 'site_id', 'contact_id', 'reference', 'customer_notes', 'tax_rate_id'],
  code: 'sales_order.already_invoiced',
};

export class BillingService {
  constructor(
    private readonly db: TenantClient,
    private readonly invoices: ResourceService,
  ) {}

  invoice(ctx: RequestContext, kind: BillableKind, sourceId: string, input: ActionInput): Promise<{ invoice: Single }> {
    const idempotency = idempotencyOf(ctx, 'An invoice');
    const columns = [...kind.copied, ...(kind.carried ?? [])];
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const [source] = isUuid(sourceId)
          ? await tenantQuery<Record<string, unknown>>(
              tx,
              `SELECT ${columns.join(', ')} FROM ${kind.table} WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              sourceId,
            )
          : [];
        if (!source) throw notFound(kind.className);
        const overrides = readActionInput(input, 'invoice');
        const [billed] = await tenantQuery<{ id: string; number: string }>(
          tx,
          `SELECT id, number FROM invoices WHERE account_id = $1::uuid AND ${kind.column} = $2::uuid AND deleted_at IS NULL`,
          sourceId,
        );
        if (billed) throw new AppError(kind.code, `The ${kind.noun} is billed by invoice ${billed.number} (${billed.id}); delete that invoice to invoice the ${kind.noun} again.`);
        const fromSource: Record<string, unknown> = {};
        for (const field of kind.copied) if (source[field] !== null) fromSource[field] = source[field];
        const values: Record<string, unknown> = { [kind.column]: sourceId };
        for (const field of kind.carried ?? []) values[field] = source[field];
        const lines = await tx.lineitem.findMany({ where: { [kind.column]: sourceId }, orderBy: [{ position: 'asc' }, { created_at: 'asc' }] });
        const invoice = await this.invoices.createWithin(tx, ctx, { ...fromSource, ...overrides }, { values, children: { lineitems: lines } });
        const result = { invoice };
        await idempotency.complete(tx, result);
        return result;
      }),
    );
  }
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    billing: BillingService;
  }
}
