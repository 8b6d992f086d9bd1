import { action, type ActionDefinition } from '../../kernel/action.ts';
import { billableSalesOrder } from '../invoices/billing.service.ts';

// POST /sales_orders/{id}/invoice and GraphQL invoiceSalesOrder, through domain.billing (src/resources/invoices/billing.service.ts).

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const salesOrderActions: readonly ActionDefinition[] = [
  action({
    name: 'invoiceSalesOrder',
    method: 'post',
    path: '/invoice',
    scopes: ['sales_orders:read', 'invoices:write'],
    summary: 'Invoice a sales order',
    description:
      "A financial create: the Idempotency-Key header is required (a retry with the same key replays the first answer). In one transaction: creates an invoice for the sales order (its customer, site, contact, reference, customer notes, tax rate and a copy of every line as stored, so the invoice's amount equals the order's), with {sales_order_id}. The invoice obeys the rules of an invoice create; the order's status is neither checked nor changed. A sales order is billed by one live invoice: invoicing it again is refused with sales_order.already_invoiced until that invoice is deleted.",
    body: {
      overrides: 'invoice',
      except: { lineitems: 'are copied from the sales order; change them on the invoice afterwards' },
      key: 'invoice',
      required: false,
      description:
        "Invoice fields that override or add to the values taken from the sales order ({invoice_date}, {due_date}, {reference} ...), with the rules of an invoice create; {lineitems} are the order's and cannot be given. Optional.",
    },
    response: {
      records: { invoice: 'invoice' },
      status: 201,
      location: 'invoice',
      description: '{invoice}: the new invoice, with {sales_order_id} and a copy of every line.',
    },
    run: ({ domain, ctx, id, input }) => domain.billing.invoice(ctx, billableSalesOrder, id, input),
    events: ['invoice.created'],
    errors: ['validation.failed', 'sales_order.already_invoiced'],
    includes: [{ kind: 'create', resource: 'invoice' }],
    idempotent: true,
    graphql: { bodyArg: 'invoice' },
  }),
];
