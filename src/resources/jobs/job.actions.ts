import { action, type ActionDefinition } from '../../kernel/action.ts';
import { billableJob } from '../invoices/billing.service.ts';

// POST /jobs/{id}/invoice and GraphQL invoiceJob, through domain.billing (src/resources/invoices/billing.service.ts).

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const jobActions: readonly ActionDefinition[] = [
  action({
    name: 'invoiceJob',
    method: 'post',
    path: '/invoice',
    scopes: ['jobs:read', 'invoices:write'],
    summary: 'Invoice a job',
    description:
      "A financial create: the Idempotency-Key header is required (a retry with the same key replays the first answer). In one transaction: creates an invoice for the job (its customer, site, contact, reference and a copy of every line as stored, at the job's prices and tax rates, so the invoice's amount equals the job's), with {job_id} and the job's {estimate_id}. The invoice obeys the rules of an invoice create (a job without a customer needs {customer_id} in the body: validation.failed otherwise). A job is billed by one live invoice: invoicing it again is refused with job.already_invoiced until that invoice is deleted.",
    body: {
      overrides: 'invoice',
      except: { lineitems: 'are copied from the job; change them on the invoice afterwards' },
      key: 'invoice',
      required: false,
      description:
        "Invoice fields that override or add to the values taken from the job ({invoice_date}, {due_date}, {customer_notes}, {tax_rate_id} ...), with the rules of an invoice create; {lineitems} are the job's and cannot be given. Optional.",
    },
    response: {
      records: { invoice: 'invoice' },
      status: 201,
      location: 'invoice',
      description: "{invoice}: the new invoice, with {job_id}, the job's {estimate_id} and a copy of every line.",
    },
    run: ({ domain, ctx, id, input }) => domain.billing.invoice(ctx, billableJob, id, input),
    events: ['invoice.created'],
    errors: ['validation.failed', 'job.already_invoiced'],
    includes: [{ kind: 'create', resource: 'invoice' }],
    idempotent: true,
    graphql: { bodyArg: 'invoice' },
  }),
];
