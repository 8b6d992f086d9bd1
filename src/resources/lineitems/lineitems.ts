import { addError } from '../../kernel/body.ts';
import { validationError } from '../../kernel/errors.ts';
import type { ChildCollection } from '../../kernel/resource.ts';
import type { TenantTx } from '../../kernel/tenancy.ts';
import { adjustedPrice, lineAmounts } from './line-math.ts';

// LineitemInput, shared by every parent that has lines (jobs and estimates now; invoices and sales orders
// later): one declaration, one computation. The parent column differs (job_id, estimate_id).
//   item_id        a price book item (optional); gives description, unit_price and taxable defaults
//   description    free text (defaults to the item's name)
//   quantity       decimal, required on a new line
//   unit_price     decimal; omitted on a new line: the customer's item price, else the item's price adjusted by
//                  the customer's price_adjustment; a line without item_id must give it
//   discount       percent 0..100, default 0
//   tax_rate_id    a tax rate of the account (active on new lines); default: the parent's tax_rate_id
//   taxable        default: the item's taxable, else true
//   labor_visible  whether the line is shown to the customer (estimates' labor visibility), default true
// Served computed fields: discount_amount, tax_amount, line_total, tax_applied (see line-math.ts).

export function lineitemCollection(foreignKey: 'job_id' | 'estimate_id'): ChildCollection {
  return {
    model: 'lineitem',
    foreignKey,
    label: 'lineitem',
    description:
      'Snapshot on update: an entry with id updates that line, without id creates one, lines whose id is absent are removed, [] removes all; omit the key to keep the lines.',
    fields: {
      item_id: { kind: 'uuid', create: 'optional', update: 'optional', description: 'A price book item.' },
      description: { kind: 'text', create: 'optional', update: 'optional', max: 2000 },
      quantity: { kind: 'decimal', scale: 4, range: [0, 9_999_999_999], create: 'required', update: 'optional', nullable: false },
      unit_price: { kind: 'decimal', scale: 4, create: 'optional', update: 'optional', nullable: false, description: 'Omitted on a new line: resolved from the item and the customer\'s pricing.' },
      discount: { kind: 'decimal', scale: 4, range: [0, 100], create: 'optional', update: 'optional', nullable: false, description: 'Percent, default 0.' },
      tax_rate_id: { kind: 'uuid', create: 'optional', update: 'optional', description: "Default: the parent's tax_rate_id." },
      taxable: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, description: "Default: the item's taxable, else true." },
      labor_visible: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, description: 'Shown to the customer (labor visibility); default true.' },
    },
    readOnly: {
      discount_amount: { kind: 'decimal', nullable: false, description: 'Rounded half up to cents.' },
      tax_amount: { kind: 'decimal', nullable: false },
      line_total: { kind: 'decimal', nullable: false, description: 'quantity × unit_price − discount_amount + tax_amount.' },
      tax_applied: { kind: 'boolean', nullable: false },
    },
    async compute({ tx, parent, entry, isNew, at, errors }) {
      let item: { name: string; unit_price: unknown; taxable: boolean } | null = null;
      if (entry.item_id !== undefined && entry.item_id !== null) {
        item = await tx.item.findFirst({ where: { id: entry.item_id as string, deleted_at: null }, select: { name: true, unit_price: true, taxable: true } });
        if (!item) addError(errors, `${at}.item_id`, 'does not match any Item');
      }
      if (entry.quantity === undefined) addError(errors, `${at}.quantity`, 'is missing');
      if (isNew) {
        if (entry.description === undefined && item) entry.description = item.name;
        if (entry.taxable === undefined) entry.taxable = item ? item.taxable : true;
        if (entry.labor_visible === undefined) entry.labor_visible = true;
        if (entry.discount === undefined) entry.discount = '0';
        if (entry.tax_rate_id === undefined) entry.tax_rate_id = (parent.tax_rate_id as string | null | undefined) ?? null;
        if (entry.unit_price === undefined) {
          if (!item) {
            if (!errors[`${at}.item_id`]) addError(errors, `${at}.unit_price`, 'is missing (give unit_price or item_id)');
          } else {
            entry.unit_price = await resolveUnitPrice(tx, parent.customer_id as string | null, entry.item_id as string, item.unit_price);
          }
        }
      }
      let rate: unknown = null;
      if (entry.tax_rate_id !== null && entry.tax_rate_id !== undefined) {
        const taxRate = await tx.taxRate.findFirst({ where: { id: entry.tax_rate_id as string, deleted_at: null }, select: { rate: true, active: true } });
        if (!taxRate) addError(errors, `${at}.tax_rate_id`, 'does not match any TaxRate');
        else if (isNew && !taxRate.active) addError(errors, `${at}.tax_rate_id`, 'is an inactive tax rate');
        else rate = taxRate.rate;
      }
      if (Object.keys(errors).some((key) => key.startsWith(`${at}.`))) return;
      const amounts = lineAmounts({
        quantity: String(entry.quantity),
        unitPrice: String(entry.unit_price),
        discount: String(entry.discount ?? '0'),
        taxable: entry.taxable !== false,
        taxRate: rate === null ? null : String(rate),
      });
      // Amounts are stored as numeric(14,2): a larger line total is the client's error, not a 500.
      if (!fitsAmount(amounts.subtotal) || !fitsAmount(amounts.line_total)) {
        addError(errors, at, `line total exceeds the maximum amount ${MAX_AMOUNT}`);
        return;
      }
      const { subtotal: _subtotal, ...stored } = amounts;
      Object.assign(entry, stored);
    },
  };
}

/** The largest amount a numeric(14,2) column holds (line totals and parent amounts). */
export const MAX_AMOUNT = '999999999999.99';
const fitsAmount = (value: string) => /^-?\d{1,12}(\.\d+)?$/.test(value);

/** A parent's amount (the sum of its line totals) must fit its column too: 422 naming lineitems otherwise. */
export async function checkParentAmount(tx: TenantTx, foreignKey: 'job_id' | 'estimate_id', parentId: string): Promise<void> {
  const [row] = await tx.$queryRawUnsafe<{ total: string | null }[]>(
    `SELECT coalesce(sum(line_total), 0)::text AS total FROM lineitems WHERE ${foreignKey} = $1::uuid`,
    parentId,
  );
  if (row && !fitsAmount(row.total ?? '0')) throw validationError({ lineitems: [`the sum of the line totals exceeds the maximum amount ${MAX_AMOUNT}`] });
}

/** Customer pricing: the customer's own item price, else the price book price adjusted by the customer's percent. */
async function resolveUnitPrice(tx: Parameters<NonNullable<ChildCollection['compute']>>[0]['tx'], customerId: string | null, itemId: string, bookPrice: unknown) {
  if (!customerId) return adjustedPrice(String(bookPrice), null);
  const own = await tx.customerItemPrice.findFirst({ where: { customer_id: customerId, item_id: itemId }, select: { unit_price: true } });
  if (own) return adjustedPrice(String(own.unit_price), null);
  const customer = await tx.customer.findFirst({ where: { id: customerId }, select: { price_adjustment: true } });
  return adjustedPrice(String(bookPrice), customer?.price_adjustment === null || customer?.price_adjustment === undefined ? null : String(customer.price_adjustment));
}
