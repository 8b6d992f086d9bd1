import { addError } from '../../kernel/body.ts';
import { validationError } from '../../kernel/errors.ts';
import { defineChildCollection } from '../../kernel/define-resource.ts';
import type { ChildCollection } from '../../kernel/resource.ts';
import type { TenantTx } from '../../kernel/tenancy.ts';
import { checkTaxRateActive } from '../tax-rates/active-tax-rate.ts';
import { adjustedPrice, lineAmounts } from './line-math.ts';

// LineitemInput, shared by every parent that has lines (jobs, estimates, invoices and sales orders): one
// declaration, one computation. The parent column differs (job_id, estimate_id, invoice_id, sales_order_id).
//   item_id        a price book item (optional); gives description, unit_price and taxable defaults
//   description    free text (defaults to the item's name)
//   quantity       decimal, required on a new line
//   unit_price     decimal; omitted on a new line, or on a line whose item_id changes: the customer's item price,
//                  else the item's price adjusted by the customer's price_adjustment; a new line without
//                  item_id must give it
//   discount       percent 0..100, default 0
//   tax_rate_id    a tax rate of the account (active when it is put on a line); default: the parent's tax_rate_id
//   taxable        default: the item's taxable, else true
//   labor_visible  whether the line is shown to the customer (estimates' labor visibility), default true
// Served computed fields: applied_tax_rate (the percent applied), discount_amount, tax_amount, line_total,
// tax_applied (see line-math.ts).
//
// A line keeps what it was computed with. item_id and tax_rate_id are checked (live item; live and active tax
// rate) only when the line is new or that value changes, so a line whose item or tax rate was deleted or
// deactivated since stays editable. The tax percent is read from the tax rate only then too and stored on the
// line (applied_tax_rate): later edits recompute the line with its stored percent, so changing a tax rate's
// percent never reprices existing lines (only lines added, or switched to that rate, afterwards).

interface ItemRow {
  id: string;
  name: string;
  unit_price: unknown;
  taxable: boolean;
}

/** The column naming a line's parent (exactly one is set: the CHECK lineitems_one_parent). */
export type LineParentKey = 'job_id' | 'estimate_id' | 'invoice_id' | 'sales_order_id' | 'recurring_job_id' | 'recurring_invoice_id';

export function lineitemCollection(foreignKey: LineParentKey): ChildCollection {
  const parentLabel = foreignKey.replace(/_id$/, '').replace(/_/g, ' ');
  return defineChildCollection({
    model: 'lineitem',
    table: 'lineitems',
    foreignKey,
    label: 'lineitem',
    description: 'The lines of the record (items, quantities, prices and tax), in order.',
    writeRule:
      'On update a snapshot: an entry with id changes that line, an entry without id adds one, lines whose id is absent are removed, [] removes all; omit the field to keep the lines.',
    fields: {
      item_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'item', live: true, label: 'Item' }, description: 'The price book item of the line.' },
      description: { kind: 'text', create: 'optional', update: 'optional', max: 2000, description: 'Text of the line.', writeRule: "Default on a new line: the item's name." },
      quantity: { kind: 'decimal', scale: 4, range: [0, 9_999_999_999], create: 'required', update: 'optional', nullable: false, description: 'Quantity of units.' },
      unit_price: {
        kind: 'decimal',
        scale: 4,
        create: 'optional',
        update: 'optional',
        nullable: false,
        alwaysSet: true,
        description: 'Price of one unit.',
        writeRule: "Omitted on a new line, or when {item_id} changes: the customer's price of the item, else the item's price adjusted by the customer's price adjustment.",
      },
      discount: { kind: 'decimal', scale: 4, range: [0, 100], create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'Discount in percent, 0 to 100.', writeRule: 'Default 0.' },
      tax_rate_id: {
        kind: 'uuid',
        create: 'optional',
        update: 'optional',
        references: { model: 'taxRate', live: true, label: 'TaxRate' },
        description: 'The tax rate of the line.',
        writeRule: "Must be an active tax rate when it is set. Default on a new line: the parent's tax rate ({tax_rate_id} of the estimate).",
      },
      taxable: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'Whether the line is taxed.', writeRule: "Default on a new line: the item's {taxable}, else true." },
      labor_visible: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, description: 'Whether the line is shown to the customer (labor visibility).', writeRule: 'Default true on a new line.' },
    },
    readOnly: {
      applied_tax_rate: {
        kind: 'decimal',
        scale: 4,
        nullable: true,
        description: "Percent of the tax rate applied when the line's tax rate was set (null without tax rate); a later change of the tax rate does not reprice the line.",
      },
      discount_amount: { kind: 'decimal', nullable: false, description: 'The discount of the line, rounded half up to cents.' },
      tax_amount: { kind: 'decimal', nullable: false, description: 'The tax of the line, rounded half up to cents (0 when no tax is applied).' },
      line_total: { kind: 'decimal', nullable: false, description: 'The total of the line: {quantity} × {unit_price} − {discount_amount} + {tax_amount}.' },
      tax_applied: { kind: 'boolean', nullable: false, description: 'Whether tax was applied: the line is taxable and its tax rate is above 0.' },
    },
    async compute({ tx, parent, entries, errors }) {
      // New lines take their defaults first (the tax rate may come from the parent). Ids are compared as stored.
      const defaultedTax = new Set<number>();
      entries.forEach(({ entry, previous }, index) => {
        for (const key of ['item_id', 'tax_rate_id'] as const) {
          const id = entry[key];
          if (typeof id === 'string') entry[key] = id.toLowerCase();
        }
        if (previous === null && entry.tax_rate_id === undefined) {
          entry.tax_rate_id = typeof parent.tax_rate_id === 'string' ? parent.tax_rate_id : null;
          if (entry.tax_rate_id !== null) defaultedTax.add(index);
        }
      });
      // References are looked up only where the line is new or the value changes, once per write for all lines.
      // changedId: the line's item_id or tax_rate_id where it is new to the line, else null.
      const changedId = (key: 'item_id' | 'tax_rate_id', { entry, previous }: (typeof entries)[number]) => {
        const id = entry[key];
        return typeof id === 'string' && (previous === null || id !== previous[key]) ? id : null;
      };
      const itemIds = [...new Set(entries.map((e) => changedId('item_id', e)).filter((id) => id !== null))];
      const taxIds = [...new Set(entries.map((e) => changedId('tax_rate_id', e)).filter((id) => id !== null))];
      const items = new Map<string, ItemRow>(
        itemIds.length === 0
          ? []
          : (await tx.item.findMany({ where: { id: { in: itemIds }, deleted_at: null }, select: { id: true, name: true, unit_price: true, taxable: true } })).map((i) => [i.id, i]),
      );
      const taxRates = new Map(
        taxIds.length === 0
          ? []
          : (await tx.taxRate.findMany({ where: { id: { in: taxIds }, deleted_at: null }, select: { id: true, rate: true, active: true } })).map((r) => [r.id, r]),
      );
      // The price of a line whose item is new to it, unless the client gave one.
      const pricedItems = entries.flatMap((e) => {
        const itemId = changedId('item_id', e);
        const item = itemId === null ? undefined : items.get(itemId);
        return item && !('unit_price' in e.sent) ? [item] : [];
      });
      const prices = await resolveUnitPrices(tx, typeof parent.customer_id === 'string' ? parent.customer_id : null, pricedItems);

      entries.forEach((line, index) => {
        const { entry, previous, at } = line;
        const isNew = previous === null;
        let item: ItemRow | undefined;
        const itemId = changedId('item_id', line);
        if (itemId !== null) {
          item = items.get(itemId);
          if (!item) addError(errors, `${at}.item_id`, 'does not match any Item');
        }
        if (entry.quantity === undefined) addError(errors, `${at}.quantity`, 'is missing');
        if (isNew) {
          if (entry.description === undefined && item) entry.description = item.name;
          if (entry.taxable === undefined) entry.taxable = item ? item.taxable : true;
          if (entry.labor_visible === undefined) entry.labor_visible = true;
          if (entry.discount === undefined) entry.discount = '0';
          if (entry.unit_price === undefined && !item && !errors[`${at}.item_id`]) addError(errors, `${at}.unit_price`, 'is missing (give unit_price or item_id)');
        }
        if (item && prices.has(item.id) && !('unit_price' in line.sent)) entry.unit_price = prices.get(item.id);
        const taxRateId = changedId('tax_rate_id', line);
        if (taxRateId !== null) {
          const taxRate = taxRates.get(taxRateId);
          const from = defaultedTax.has(index) ? ` (the ${parentLabel}'s tax_rate_id, the default of new lines)` : '';
          if (!taxRate) addError(errors, `${at}.tax_rate_id`, `does not match any TaxRate${from}`);
          else if (checkTaxRateActive(taxRate, errors, `${at}.tax_rate_id`, from)) entry.applied_tax_rate = taxRate.rate;
        } else if (entry.tax_rate_id === null || entry.tax_rate_id === undefined) {
          entry.applied_tax_rate = null;
        }
        // Otherwise the line keeps the percent stored when its tax rate was set.
        if (Object.keys(errors).some((key) => key.startsWith(`${at}.`))) return;
        const rate = entry.applied_tax_rate;
        const amounts = lineAmounts({
          quantity: String(entry.quantity),
          unitPrice: String(entry.unit_price),
          discount: String(entry.discount ?? '0'),
          taxable: entry.taxable !== false,
          taxRate: rate === null || rate === undefined ? null : String(rate),
        });
        // Amounts are stored as numeric(14,2): a larger line total is the client's error, not a 500.
        if (!fitsAmount(amounts.subtotal) || !fitsAmount(amounts.line_total)) {
          addError(errors, at, `line total exceeds the maximum amount ${MAX_AMOUNT}`);
          return;
        }
        const { subtotal: _subtotal, ...stored } = amounts;
        Object.assign(entry, stored);
      });
    },
  });
}

/** The largest amount a numeric(14,2) column holds (line totals and parent amounts). */
export const MAX_AMOUNT = '999999999999.99';
/** Whether an amount fits the money columns (14 digits, 2 places). */
export const fitsAmount = (value: string) => /^-?\d{1,12}(\.\d+)?$/.test(value);

/** A parent's amount (the sum of its line totals) must fit its column too: 422 naming lineitems otherwise. */
export function checkParentAmount(total: string): void {
  if (!fitsAmount(total)) throw validationError({ lineitems: [`the sum of the line totals exceeds the maximum amount ${MAX_AMOUNT}`] });
}

/**
 * Customer pricing, for the given items at once (item id → unit price): the customer's own item price, else the
 * price book price adjusted by the customer's percent.
 */
async function resolveUnitPrices(tx: TenantTx, customerId: string | null, items: ItemRow[]): Promise<Map<string, string>> {
  const prices = new Map<string, string>();
  if (items.length === 0) return prices;
  const ids = [...new Set(items.map((item) => item.id))];
  const own = customerId
    ? new Map(
        (await tx.customerItemPrice.findMany({ where: { customer_id: customerId, item_id: { in: ids } }, select: { item_id: true, unit_price: true } })).map((p) => [
          p.item_id,
          p.unit_price,
        ]),
      )
    : new Map<string, unknown>();
  const needsAdjustment = customerId !== null && items.some((item) => !own.has(item.id));
  const customer = needsAdjustment ? await tx.customer.findFirst({ where: { id: customerId }, select: { price_adjustment: true } }) : null;
  const adjustment = customer?.price_adjustment === null || customer?.price_adjustment === undefined ? null : String(customer.price_adjustment);
  for (const item of items) {
    prices.set(item.id, own.has(item.id) ? adjustedPrice(String(own.get(item.id)), null) : adjustedPrice(String(item.unit_price), adjustment));
  }
  return prices;
}
