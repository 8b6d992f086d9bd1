import { action, type ActionDefinition } from '../../kernel/action.ts';

// POST /estimates/{id}/convert and /invoice, GraphQL convertEstimate and invoiceEstimate, through domain.estimateConversion.

// Typed as ActionDefinition[] rather than inferred: the scope catalog is derived from the resource declarations that
// hold these actions, so an inferred type here would depend on itself (see src/resources/catalog.ts).
export const estimateActions: readonly ActionDefinition[] = [
  action({
    name: 'convertEstimate',
    method: 'post',
    path: '/convert',
    // A conversion writes the estimate and creates a job.
    scopes: ['estimates:write', 'jobs:write'],
    summary: 'Convert an accepted estimate into a job',
    description:
      "In one transaction: creates a job from an estimate whose status is Accepted (customer, site, contact, system, title, scope of work, job type, reference, customer notes and a copy of every line, at the estimate's prices and tax rates), records the estimate on the job ({estimate_id}) and the job on the estimate ({converted_job_id}, {converted_at}): what an invoice needs later. The job obeys the current rules of a job create (module settings, live site, required custom fields): a violation is validation.failed naming the field. An estimate in another status is refused with estimate.not_accepted; an estimate converts once: converting it again is refused with estimate.already_converted.",
    body: {
      empty: true,
      refusal: 'must be empty: the job is made from the estimate',
      required: false,
      description: 'Empty: the job is made from the estimate alone. No body or {} is accepted; any field answers 422 validation.failed (errors.body).',
    },
    response: {
      records: { estimate: 'estimate', job: 'job' },
      status: 201,
      location: 'job',
      description:
        "{estimate}: the estimate, now with {converted_job_id} and {converted_at}; {job}: the new job, with {estimate_id}, the estimate's {customer_id}, {site_id}, {contact_id}, {system_id}, {project_id}, {title}, {scope_of_work}, {job_type}, {reference} and {customer_notes}, and a copy of every line ({item_id}, {description}, {quantity}, {unit_price}, {discount}, {tax_rate_id}, {taxable}, {labor_visible}), so its amount equals the estimate's.",
    },
    run: ({ domain, ctx, id }) => domain.estimateConversion.convert(ctx, id),
    events: ['job.created', 'estimate.updated'],
    errors: ['validation.failed', 'estimate.not_accepted', 'estimate.already_converted'],
    includes: [{ kind: 'create', resource: 'job' }],
  }),
  action({
    name: 'invoiceEstimate',
    method: 'post',
    path: '/invoice',
    // Invoicing writes the estimate and creates an invoice.
    scopes: ['estimates:write', 'invoices:write'],
    summary: 'Invoice an accepted estimate (without a job)',
    description:
      "A financial create: the Idempotency-Key header is required (a retry with the same key replays the first answer). In one transaction: creates an invoice from an estimate whose status is Accepted (customer, site, contact, reference, customer notes, tax rate and a copy of every line as stored, at the estimate's prices and tax rates, so the invoice's amount equals the estimate's), records the estimate on the invoice ({estimate_id}) and the invoice on the estimate ({converted_invoice_id}, {converted_at}). The invoice obeys the rules of an invoice create (a violation is validation.failed naming the field). An estimate in another status is refused with estimate.not_accepted; an estimate converts once, to a job or an invoice: again is refused with estimate.already_converted (an estimate converted into a job is billed by invoicing the job).",
    body: {
      overrides: 'invoice',
      except: { lineitems: 'are copied from the estimate; change them on the invoice afterwards' },
      key: 'invoice',
      required: false,
      description:
        "Invoice fields that override or add to the values taken from the estimate ({invoice_date}, {due_date}, {reference} ...), with the rules of an invoice create; {lineitems} are the estimate's and cannot be given. Optional.",
    },
    response: {
      records: { estimate: 'estimate', invoice: 'invoice' },
      status: 201,
      location: 'invoice',
      description: '{estimate}: the estimate, now with {converted_invoice_id} and {converted_at}; {invoice}: the new invoice, with {estimate_id} and a copy of every line.',
    },
    run: ({ domain, ctx, id, input }) => domain.estimateConversion.invoice(ctx, id, input),
    events: ['invoice.created', 'estimate.updated'],
    errors: ['validation.failed', 'estimate.not_accepted', 'estimate.already_converted'],
    includes: [{ kind: 'create', resource: 'invoice' }],
    idempotent: true,
    graphql: { bodyArg: 'invoice' },
  }),
];
