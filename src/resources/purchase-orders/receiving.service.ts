import { readActionInput, type ActionInput } from '../../kernel/action.ts';
import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, validationError } from '../../kernel/errors.ts';
import { idempotencyOf } from '../../kernel/idempotency.ts';
import { isUuid } from '../../kernel/ids.ts';
import { liveStatuses } from '../../kernel/lookups.ts';
import type { ResourceService, Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { PURCHASE_ORDER_STATUSES } from './purchase-order.resource.ts';

// POST /purchase_orders/{id}/receive: one receipt, in one transaction that holds the order's row lock from the
// first read, so concurrent receipts of one order queue and each sees what the others received (they can never
// receive more than was ordered, and no stock is lost). The receipt's own rules (its lines, the stock moves) are in
// purchase-order-receipt.resource.ts; here: the order must be live and not cancelled, and its progress afterwards.

export class ReceivingService {
  constructor(
    private readonly db: TenantClient,
    private readonly clock: Clock,
    private readonly purchaseOrders: ResourceService,
    private readonly receipts: ResourceService,
  ) {}

  receive(ctx: RequestContext, purchaseOrderId: string, input: ActionInput): Promise<{ receipt: Single; purchase_order: Single }> {
    const idempotency = idempotencyOf(ctx, 'A receipt');
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const [order] = isUuid(purchaseOrderId)
          ? await tenantQuery<{ id: string; status: string; location_id: string | null }>(
              tx,
              `SELECT id, status, location_id FROM purchase_orders WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL FOR UPDATE`,
              purchaseOrderId,
            )
          : [];
        if (!order) throw notFound('PurchaseOrder');
        if (order.status === PURCHASE_ORDER_STATUSES.cancelled) throw new AppError('purchase_order.cancelled', 'The purchase order is cancelled: nothing can be received on it.');
        const values = readActionInput(input, 'receipt');
        if (!Array.isArray(values.lines) || values.lines.length === 0) throw validationError({ lines: ['must name at least one line of the purchase order'] });
        const receipt = await this.receipts.createWithin(tx, ctx, { ...values, location_id: values.location_id === undefined ? order.location_id : values.location_id }, { values: { purchase_order_id: order.id } });
        const [{ complete }] = await tenantQuery<{ complete: boolean }>(
          tx,
          `SELECT coalesce(bool_and(received_quantity >= quantity), false) AS complete FROM purchase_order_lines WHERE account_id = $1::uuid AND purchase_order_id = $2::uuid`,
          order.id,
        );
        // The status moves only to a status the account has (an account that renamed them keeps its own).
        const next = complete ? PURCHASE_ORDER_STATUSES.received : PURCHASE_ORDER_STATUSES.partiallyReceived;
        const status = order.status !== next && (await liveStatuses(tx, 'PurchaseOrder')).includes(next) ? { status: next } : {};
        const updated = await this.purchaseOrders.touchWithin(tx, ctx, order.id, { ...status, received_at: complete ? this.clock.now() : null });
        await this.purchaseOrders.announceWithin(tx, ctx, updated, 'received', { receipt_id: receipt.record.id });
        const result = { receipt, purchase_order: updated };
        await idempotency.complete(tx, result);
        return result;
      }),
    );
  }
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    receiving: ReceivingService;
  }
}
