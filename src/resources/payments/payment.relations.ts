import type { BatchedRelation, RelationReadArgs, Relations } from '../../kernel/relation.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { wireShape, type WireOf } from '../../kernel/wire-shape.ts';

// An invoice's payments: the applications of live payments to it (Invoice.payment_applications) and those
// payments (Invoice.payments), read in batches for every invoice of an operation at once.

export const invoicePaymentShape = wireShape({
  name: 'InvoicePayment',
  description: 'What one live payment applies to an invoice: an entry of the payment\'s applications.',
  fields: {
    id: { kind: 'uuid', description: "The application's id (an entry of the payment's applications)." },
    payment_id: { kind: 'uuid', description: 'The payment.' },
    amount: { kind: 'string', description: 'What the payment applies to the invoice (a decimal string).' },
    created_at: { kind: 'datetime', description: 'When the application was made.' },
  },
  relations: {
    payment: { kind: 'reference', column: 'payment_id', model: 'payment', description: 'The payment that applies the amount.' },
  },
});

type InvoicePayment = WireOf<typeof invoicePaymentShape>;

/** Applications of live payments to each invoice, oldest first, aligned with the invoice ids. */
async function applicationsTo(invoiceIds: readonly string[], { db }: RelationReadArgs): Promise<InvoicePayment[][]> {
  const rows = await tenantQuery<InvoicePayment & { invoice_id: string }>(
    db,
    `SELECT a.id, a.payment_id, a.invoice_id, a.amount::text AS amount, a.created_at FROM payment_applications a
     JOIN payments p ON p.account_id = a.account_id AND p.id = a.payment_id AND p.deleted_at IS NULL
     WHERE a.account_id = $1::uuid AND a.invoice_id = ANY($2::uuid[]) ORDER BY a.created_at, a.id`,
    [...new Set(invoiceIds)],
  );
  const byInvoice = new Map<string, InvoicePayment[]>();
  for (const { invoice_id, created_at, ...row } of rows) {
    (byInvoice.get(invoice_id) ?? byInvoice.set(invoice_id, []).get(invoice_id)!).push({ ...row, created_at: new Date(created_at).toISOString() });
  }
  return invoiceIds.map((id) => byInvoice.get(id) ?? []);
}

const paymentApplications: BatchedRelation = {
  kind: 'batched',
  shape: invoicePaymentShape,
  scope: 'payments:read',
  many: true,
  key: (invoiceId) => invoiceId,
  load: applicationsTo,
  description: 'What live payments apply to this invoice, oldest first.',
};

/** The relations an invoice has to payments. */
export const invoicePaymentRelations: Relations = {
  payment_applications: paymentApplications,
  payments: {
    kind: 'through',
    via: 'payment_applications',
    model: 'payment',
    many: true,
    idOf: (application) => application.payment_id as string,
    description: 'The live payments that apply to this invoice, oldest application first.',
  },
};
