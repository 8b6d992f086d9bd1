import { action, type ActionDefinition } from '../../kernel/action.ts';

// POST /purchase_orders/{id}/receive and GraphQL receivePurchaseOrder, through domain.receiving (receiving.service.ts).

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const purchaseOrderActions: readonly ActionDefinition[] = [
  action({
    name: 'receivePurchaseOrder',
    method: 'post',
    path: '/receive',
    scopes: ['purchase_orders:write', 'inventory:write'],
    summary: 'Receive goods of a purchase order',
    description:
      "Records what arrived, in full or in part, as a receipt, in one transaction: each line's received quantity grows by what arrived (never past what was ordered, counting earlier receipts), the material items are added to the receiving location's stock, and the order's status moves to Partially Received, or to Received with {received_at} set when every line is received in full (when the account has those statuses). The Idempotency-Key header is required: a retry with the same key replays the first answer and receives nothing twice. A cancelled order is refused with purchase_order.cancelled.",
    body: {
      overrides: 'purchase_order_receipt',
      key: 'receipt',
      required: false,
      description: 'The receipt: {lines} (at least one: each a line of the order with the quantity that arrived), and optionally {location_id}, {received_date} and {note}.',
    },
    response: {
      records: { receipt: 'purchase_order_receipt', purchase_order: 'purchase_order' },
      status: 201,
      location: 'receipt',
      description: '{receipt}: the new receipt; {purchase_order}: the order after it, with its lines\' received quantities and its status.',
    },
    run: ({ domain, ctx, id, input }) => domain.receiving.receive(ctx, id, input),
    events: ['purchase_order.received', 'stock_level.updated'],
    errors: ['validation.failed', 'purchase_order.cancelled'],
    idempotent: true,
    graphql: { bodyArg: 'receipt' },
  }),
];
