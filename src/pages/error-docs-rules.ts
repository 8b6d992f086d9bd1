import type { ErrorCode } from '../kernel/errors.ts';
import { both, ID, OTHER_ID, type ErrorDoc } from './error-docs-common.ts';

// The error pages' texts of the business-rule codes of the resources (src/pages/error-docs.ts).

export const ruleErrorDocs = {
  'lead.already_converted': {
    when: '`POST /leads/{id}/convert` (GraphQL `convertLead`) of a lead that was already converted. The detail names the customer it became.',
    fix: 'A lead converts once: use the customer in the lead\'s `converted_customer_id`.',
    apis: both,
    example: { instance: `/api/v2/leads/${ID}/convert`, detail: `The lead was already converted into customer ${OTHER_ID}.` },
  },
  'estimate.not_accepted': {
    when: '`POST /estimates/{id}/convert` (GraphQL `convertEstimate`) of an estimate whose status is not `Accepted`.',
    fix: 'Move the estimate to `Accepted` first (a `PATCH` of its `status`, with a key whose user may decide estimates), then convert it.',
    apis: both,
    example: { instance: `/api/v2/estimates/${ID}/convert`, detail: 'Only an Accepted estimate converts to a job (this one is Sent).' },
  },
  'estimate.already_converted': {
    when: '`POST /estimates/{id}/convert` (GraphQL `convertEstimate`) of an estimate that was already converted into a job. The detail names the job.',
    fix: 'An estimate converts once: use the job in the estimate\'s `converted_job_id`.',
    apis: both,
    example: { instance: `/api/v2/estimates/${ID}/convert`, detail: `The estimate was already converted into job ${OTHER_ID}.` },
  },
  'idempotency_key.invalid': {
    when: 'The `Idempotency-Key` header (GraphQL `idempotencyKey`) of a financial create is empty, longer than 255 characters, or holds a character outside printable ASCII (letters, digits and `!` to `~`; no spaces), or the header is sent twice.',
    fix: 'Send one key of 1 to 255 printable ASCII characters per operation: a UUID is the usual choice.',
    apis: both,
    example: { instance: '/api/v2/invoices', detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters (no spaces).' },
  },
  'invoice.has_payments': {
    when: '`DELETE /invoices/{id}` (GraphQL `deleteInvoice`) of an invoice that live payments apply to (its `balance` is below its `amount`).',
    fix: 'Delete (void) the payments that apply to the invoice, or change their `applications`, then delete the invoice.',
    apis: both,
    example: { instance: `/api/v2/invoices/${ID}`, detail: 'Payments apply 125.50 to this invoice: delete (void) them first.' },
  },
  'job.already_invoiced': {
    when: '`POST /jobs/{id}/invoice` (GraphQL `invoiceJob`) of a job that a live invoice already bills (an invoice whose `job_id` is the job).',
    fix: 'Read the existing invoice (`GET /invoices?q=` or GraphQL `job.invoices`) and change it; to bill the job again from scratch, delete that invoice first.',
    apis: both,
    example: { instance: `/api/v2/jobs/${ID}/invoice`, detail: `The job is billed by invoice 1042 (${ID}); delete that invoice to invoice the job again.` },
  },
  'sales_order.already_invoiced': {
    when: '`POST /sales_orders/{id}/invoice` (GraphQL `invoiceSalesOrder`) of a sales order that a live invoice already bills (an invoice whose `sales_order_id` is the sales order).',
    fix: 'Read the existing invoice (GraphQL `salesOrder.invoices`, or `GET /invoices/{id}` with the id the detail names) and change it; to bill the sales order again from scratch, delete that invoice first.',
    apis: both,
    example: { instance: `/api/v2/sales_orders/${ID}/invoice`, detail: `The sales order is billed by invoice 1042 (${OTHER_ID}); delete that invoice to invoice the sales order again.` },
  },
  'purchase_order.has_receipts': {
    when: 'A change of a purchase order to Cancelled (`PATCH /purchase_orders/{id}`, GraphQL `updatePurchaseOrder`), or its deletion, once goods of it have been received.',
    fix: 'What arrived stays accounted for: leave the order as it is, or return the goods with a stock adjustment and record it in the memo. Lines still open can be reduced to what was received.',
    apis: both,
    example: { instance: `/api/v2/purchase_orders/${ID}`, detail: 'Goods of 2 line(s) of this purchase order have been received: it cannot be cancelled.' },
  },
  'purchase_order.cancelled': {
    when: '`POST /purchase_orders/{id}/receive` (GraphQL `receivePurchaseOrder`) of a purchase order whose status is Cancelled.',
    fix: 'Receive the goods on a purchase order that is not cancelled (create one for them), or move this one out of Cancelled first.',
    apis: both,
    example: { instance: `/api/v2/purchase_orders/${ID}/receive`, detail: 'The purchase order is cancelled: nothing can be received on it.' },
  },
  'ticket.already_converted': {
    when: '`POST /tickets/{id}/convert` (GraphQL `convertTicket`) of a ticket that was already converted into a job. The detail names the job.',
    fix: "A ticket converts once: use the job in the ticket's `converted_job_id`.",
    apis: both,
    example: { instance: `/api/v2/tickets/${ID}/convert`, detail: `The ticket was already converted into job ${OTHER_ID}.` },
  },
  'ticket.closed': {
    when: '`POST /tickets/{id}/convert` (GraphQL `convertTicket`) of a ticket whose status is Closed.',
    fix: 'A Closed ticket is done with: move it to another status (Open) first if the work is still wanted, then convert it.',
    apis: both,
    example: { instance: `/api/v2/tickets/${ID}/convert`, detail: 'The ticket is Closed: reopen it (another status) before converting it.' },
  },
  'recurring.ended': {
    when: '`POST /recurring_jobs/{id}/pause` or `/resume` (and the same of `/recurring_invoices`; GraphQL `pauseRecurringJob`, `resumeRecurringJob` ...) of a template whose series has ended: its end date passed or its count was reached.',
    fix: 'An ended series has nothing left to pause or resume: change its `end_date` or `count` (PATCH) to extend it, which makes it active again, or create a new template.',
    apis: both,
    example: { instance: `/api/v2/recurring_jobs/${ID}/resume`, detail: 'The series has ended: it has no occurrence left to resume; change its end to go on.' },
  },
  'recurring.occurrence_created': {
    when: '`POST /recurring_jobs/{id}/skip` (or `/recurring_invoices/{id}/skip`; GraphQL `skipRecurringJobOccurrence` ...) of an occurrence whose job or invoice was created already. The detail names the record.',
    fix: 'The occurrence happened: delete (or cancel) the job or invoice it created instead. Skip occurrences that are still upcoming (`GET .../occurrences`).',
    apis: both,
    example: { instance: `/api/v2/recurring_jobs/${ID}/skip`, detail: `The occurrence of 2027-01-04 was created already (${OTHER_ID}): delete that record instead of skipping the occurrence.` },
  },
  'stock.insufficient': {
    when: '`POST /stock_adjustments` or `POST /inventory_transfers` (GraphQL `createStockAdjustment`, `createInventoryTransfer`) that would take what a location holds of an item below zero. Nothing is stored and no stock moves.',
    fix: 'Read what the location holds (`GET /stock_levels?item_id=...&location_id=...`), then move at most that, or count the stock in first with a stock adjustment.',
    apis: both,
    example: { instance: '/api/v2/inventory_transfers', detail: `Location ${ID} holds 2.0000 of item ${ID}; the write takes 3.0000. Nothing was moved.` },
  },
  'stock_location.has_stock': {
    when: '`DELETE /stock_locations/{id}` (GraphQL `deleteStockLocation`) of a location that holds a quantity of some item.',
    fix: 'Transfer the stock to another location, or adjust it out, then delete the location (or make it inactive instead).',
    apis: both,
    example: { instance: `/api/v2/stock_locations/${ID}`, detail: 'The location holds 3 item(s): transfer or adjust them out first.' },
  },
} satisfies Partial<Record<ErrorCode, ErrorDoc>>;
