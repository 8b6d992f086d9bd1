import { assetResource } from './assets/asset.resource.ts';
import { contactResource } from './contacts/contact.resource.ts';
import { customerResource } from './customers/customer.resource.ts';
import { dealResource } from './deals/deal.resource.ts';
import { estimateResource } from './estimates/estimate.resource.ts';
import { invoiceResource } from './invoices/invoice.resource.ts';
import { customerItemPriceResource } from './items/customer-item-price.resource.ts';
import { itemResource } from './items/item.resource.ts';
import { jobResource } from './jobs/job.resource.ts';
import { leadResource } from './leads/lead.resource.ts';
import { paymentResource } from './payments/payment.resource.ts';
import { salesOrderResource } from './sales-orders/sales-order.resource.ts';
import { siteResource } from './sites/site.resource.ts';
import { inventoryTransferResource } from './stock/inventory-transfer.resource.ts';
import { stockAdjustmentResource } from './stock/stock-adjustment.resource.ts';
import { stockLevelResource } from './stock/stock-level.resource.ts';
import { stockLocationResource } from './stock/stock-location.resource.ts';
import { systemResource } from './systems/system.resource.ts';
import { taskResource } from './tasks/task.resource.ts';
import { taxRateResource } from './tax-rates/tax-rate.resource.ts';
import { projectResource } from './projects/project.resource.ts';
import { ticketResource } from './tickets/ticket.resource.ts';
import { purchaseOrderReceiptResource } from './purchase-orders/purchase-order-receipt.resource.ts';
import { purchaseOrderResource } from './purchase-orders/purchase-order.resource.ts';
import { vendorResource } from './vendors/vendor.resource.ts';
import { webhookEndpointResource } from './webhooks/webhook-endpoint.resource.ts';
import { noteResource } from './notes/note.resource.ts';
import { recurringInvoiceResource } from './recurring/recurring-invoice.resource.ts';
import { recurringJobResource } from './recurring/recurring-job.resource.ts';

/**
 * Every standard resource of the API, in the order they appear in docs. A new resource is added here (see
 * docs/adding-a-resource.md): the REST routes, GraphQL types and fields, the OpenAPI document, the scope catalog,
 * the lookup classes and the default statuses (catalog.ts) are all read from this list.
 */
export const resources = [
  customerResource,
  siteResource,
  contactResource,
  leadResource,
  dealResource,
  taskResource,
  vendorResource,
  itemResource,
  customerItemPriceResource,
  taxRateResource,
  systemResource,
  assetResource,
  projectResource,
  ticketResource,
  jobResource,
  recurringJobResource,
  estimateResource,
  invoiceResource,
  recurringInvoiceResource,
  paymentResource,
  salesOrderResource,
  stockLocationResource,
  stockLevelResource,
  stockAdjustmentResource,
  inventoryTransferResource,
  purchaseOrderResource,
  purchaseOrderReceiptResource,
  webhookEndpointResource,
  noteResource,
];
