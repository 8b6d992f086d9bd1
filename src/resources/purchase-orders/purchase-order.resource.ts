import { Decimal } from 'decimal.js';
import { addError } from '../../kernel/body.ts';
import { calendarDateIn } from '../../kernel/dates.ts';
import { defineChildCollection, defineResource } from '../../kernel/define-resource.ts';
import { AppError, validationError } from '../../kernel/errors.ts';
import { toWire } from '../../kernel/fields.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { readShared } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { fitsAmount, MAX_AMOUNT } from '../lineitems/lineitems.ts';
import { purchaseOrderActions } from './purchase-order.actions.ts';

// Purchase orders: what the tenant orders from a vendor, line by line at a unit cost (a purchase line is its own
// shape: cost, not price; no tax or discount), received into a stock location by receipts (receiving.service.ts).
// Each line keeps how much of it has been received; a line's item and quantity are held to what was received.

/** The statuses the server reads or moves by name (the account's defaults; an account that renames them opts out). */
export const PURCHASE_ORDER_STATUSES = { partiallyReceived: 'Partially Received', received: 'Received', cancelled: 'Cancelled' } as const;

interface LineItemRow {
  id: string;
  name: string;
  cost: unknown;
}

const purchaseOrderLines = defineChildCollection({
  model: 'purchaseOrderLine',
  table: 'purchase_order_lines',
  foreignKey: 'purchase_order_id',
  label: 'purchase order line',
  description: 'What is ordered: items or described goods, each with its quantity and unit cost, and how much has been received.',
  writeRule:
    'On update a snapshot: an entry with id changes that line, an entry without id adds one, lines whose id is absent are removed, [] removes all; omit the field to keep the lines. A line that has received stock keeps its item, cannot go below what it received and cannot be removed.',
  fields: {
    item_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'item', live: true, label: 'Item' }, description: 'The item ordered; a material item is added to stock when received.' },
    description: { kind: 'text', create: 'optional', update: 'optional', nullable: false, max: 2000, description: 'Text of the line.', writeRule: "Default on a new line: the item's name; required without {item_id}." },
    quantity: { kind: 'decimal', scale: 4, range: [0.0001, 9_999_999_999], create: 'required', update: 'optional', nullable: false, description: 'Quantity ordered: greater than 0.' },
    unit_cost: {
      kind: 'decimal',
      scale: 4,
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      description: 'Cost of one unit.',
      writeRule: "Omitted on a new line, or when {item_id} changes: the item's cost; required when the line has no item or the item no cost.",
    },
  },
  readOnly: {
    line_total: { kind: 'decimal', nullable: false, description: 'Quantity times unit cost, rounded half up to 2 places.' },
    received_quantity: { kind: 'decimal', scale: 4, nullable: false, description: 'How much of the line has been received so far.' },
  },
  async compute({ tx, entries, existing, errors }) {
    // A line that received stock cannot leave the order (what arrived would no longer be accounted for).
    const kept = new Set(entries.map(({ previous }) => previous?.id).filter((id) => id !== undefined));
    for (const line of existing) {
      if (!kept.has(line.id as string) && new Decimal(String(line.received_quantity)).gt(0)) {
        addError(errors, 'lines', `cannot remove the line ${line.id}: ${new Decimal(String(line.received_quantity)).toFixed(4)} of it has been received`);
      }
    }
    for (const { entry } of entries) if (typeof entry.item_id === 'string') entry.item_id = entry.item_id.toLowerCase();
    // Items are looked up where a line is new or its item changes, once per write.
    const changed = (e: (typeof entries)[number]) => typeof e.entry.item_id === 'string' && (e.previous === null || e.entry.item_id !== e.previous.item_id);
    const itemIds = [...new Set(entries.filter(changed).map((e) => e.entry.item_id as string))];
    const items = new Map<string, LineItemRow>(
      itemIds.length === 0 ? [] : (await tx.item.findMany({ where: { id: { in: itemIds }, deleted_at: null }, select: { id: true, name: true, cost: true } })).map((i) => [i.id, i]),
    );
    for (const e of entries) {
      const { entry, sent, previous, at } = e;
      const received = new Decimal(String(previous?.received_quantity ?? 0));
      if (received.gt(0) && previous && entry.item_id !== previous.item_id) addError(errors, `${at}.item_id`, 'cannot change on a line that has received stock');
      if (changed(e)) {
        const item = items.get(entry.item_id as string);
        if (!item) {
          addError(errors, `${at}.item_id`, 'does not match any Item');
          continue;
        }
        if (sent.description === undefined) entry.description = item.name;
        if (sent.unit_cost === undefined) {
          if (item.cost === null) addError(errors, `${at}.unit_cost`, 'is missing (the item has no cost)');
          else entry.unit_cost = new Decimal(String(item.cost)).toFixed(4);
        }
      } else if (previous === null) {
        if (entry.description === undefined) addError(errors, `${at}.description`, 'is missing (give a description or an item_id)');
        if (entry.unit_cost === undefined) addError(errors, `${at}.unit_cost`, 'is missing (give a unit_cost or an item_id)');
      }
      if (entry.quantity !== undefined && received.gt(0) && new Decimal(String(entry.quantity)).lt(received)) {
        addError(errors, `${at}.quantity`, `must be at least the ${received.toFixed(4)} already received`);
      }
      if (entry.quantity !== undefined && entry.unit_cost !== undefined) {
        const total = new Decimal(String(entry.quantity)).times(String(entry.unit_cost)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);
        if (fitsAmount(total)) entry.line_total = total;
        else addError(errors, at, `line total exceeds the maximum amount ${MAX_AMOUNT}`);
      }
      entry.received_quantity = received.toFixed(4);
    }
  },
});

export const purchaseOrderResource = defineResource({
  name: 'purchase_order',
  description:
    'What the tenant orders from a vendor, line by line at a unit cost, and its {amount}. Received, in full or in parts, into a stock location: each receipt adds the material items that arrived to that location\'s stock.',
  fields: {
    vendor_id: {
      kind: 'uuid',
      create: 'required',
      update: 'optional',
      nullable: false,
      references: { model: 'vendor', live: true, label: 'Vendor' },
      description: 'The vendor the order is placed with.',
      writeRule: 'Cannot change once anything has been received.',
    },
    location_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'stockLocation', live: true, label: 'StockLocation' },
      description: 'The stock location the order is received into (a receipt may name another).',
    },
    job_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'job', live: true, label: 'Job' }, description: 'The job the goods are bought for.' },
    order_date: { kind: 'date', create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'The date the order was placed.', writeRule: "Default: today in the account's time zone." },
    expected_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the goods are expected.', writeRule: 'Not before {order_date}.' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: "Partner-defined reference (e.g. the vendor's order confirmation number)." },
    memo: { kind: 'text', create: 'optional', update: 'optional', description: 'Internal notes about the order.' },
  },
  readOnly: {
    amount: { kind: 'decimal', nullable: false, description: "Sum of the line totals, computed by the server, in the account's currency." },
    received_at: { kind: 'datetime', nullable: true, description: 'When the last of the order was received; null while anything is outstanding.' },
  },
  children: { lines: purchaseOrderLines },
  relations: {
    receipts: { kind: 'collection', model: 'purchaseOrderReceipt', column: 'purchase_order_id', description: 'What arrived of the order, one receipt per delivery, oldest first, not paginated.' },
  },
  conventions: { number: true, status: { defaults: ['Draft', 'Ordered', PURCHASE_ORDER_STATUSES.partiallyReceived, PURCHASE_ORDER_STATUSES.received, PURCHASE_ORDER_STATUSES.cancelled] }, labels: true, customFields: true, softDelete: true },
  events: { extra: [{ action: 'received', description: 'Goods of the purchase order were received; `data` is the order after the receipt, `details.receipt_id` names the receipt.' }] },
  errors: { update: ['purchase_order.has_receipts'], delete: ['purchase_order.has_receipts'] },
  actions: purchaseOrderActions,
  list: {
    filters: {
      vendor_id: ['eq'],
      job_id: ['eq'],
      location_id: ['eq'],
      status: ['eq', 'in'],
      order_date: rangeOps,
      expected_date: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, number: true, status: true, order_date: true, expected_date: true },
    defaultSort: '-created_at',
    search: { fields: ['number', 'reference', 'status', 'memo'], text: 'number, reference, status, memo and vendor name' },
  },
  hooks: {
    async beforeWrite({ tx, ctx, mode, values, existing, errors, now }) {
      if (mode === 'create') values.order_date ??= calendarDateIn(now, ctx.principal.account.timeZone);
      // Calendar dates compare as strings (YYYY-MM-DD), the stored ones as the wire serves them.
      const orderDate = 'order_date' in values ? values.order_date : (toWire('date', existing?.order_date) as string | null);
      const expected = 'expected_date' in values ? values.expected_date : (toWire('date', existing?.expected_date) as string | null);
      if (orderDate && expected && !errors.order_date && !errors.expected_date && expected < orderDate) addError(errors, 'expected_date', 'must not be before {order_date}');
      // The vendor's name goes into the order's search text (a trigger, fl_purchase_order_search_text): share-locked
      // so that a concurrent rename is not missed (readShared).
      if (typeof values.vendor_id === 'string' && !errors.vendor_id) await readShared(tx, 'vendors', 'id', [values.vendor_id.toLowerCase()]);
      // What received goods protect is read only when a write touches it (the lines' own rules are in their compute).
      const cancelling = values.status === PURCHASE_ORDER_STATUSES.cancelled && existing?.status !== PURCHASE_ORDER_STATUSES.cancelled;
      const revendoring = values.vendor_id !== undefined && values.vendor_id.toLowerCase() !== existing?.vendor_id;
      if (mode !== 'update' || !existing || !(cancelling || revendoring)) return;
      const received = await receivedLines(tx, existing.id);
      if (received === 0) return;
      if (revendoring) addError(errors, 'vendor_id', 'cannot change once goods of the order have been received');
      if (cancelling) {
        throw new AppError('purchase_order.has_receipts', `Goods of ${received} line(s) of this purchase order have been received: it cannot be cancelled.`);
      }
    },
    async afterWrite({ tx, mode, row, previousChildren }) {
      // The amount moves only with the lines.
      if (mode === 'update' && !('lines' in previousChildren)) return;
      const [sum] = await tenantQuery<{ total: string }>(tx, `SELECT coalesce(sum(line_total), 0)::text AS total FROM purchase_order_lines WHERE account_id = $1::uuid AND purchase_order_id = $2::uuid`, row.id);
      if (!fitsAmount(sum.total)) throw validationError({ lines: [`the sum of the line totals exceeds the maximum amount ${MAX_AMOUNT}`] });
      await tenantQuery(
        tx,
        `UPDATE purchase_orders p SET amount = t.total FROM (SELECT coalesce(sum(line_total), 0) AS total FROM purchase_order_lines WHERE account_id = $1::uuid AND purchase_order_id = $2::uuid) t
         WHERE p.account_id = $1::uuid AND p.id = $2::uuid AND p.amount IS DISTINCT FROM t.total`,
        row.id,
      );
    },
    async beforeDelete({ tx, row }) {
      const received = await receivedLines(tx, row.id);
      if (received > 0) throw new AppError('purchase_order.has_receipts', `Goods of ${received} line(s) of this purchase order have been received: it cannot be deleted (what arrived stays accounted for).`);
    },
  },
});

/** How many lines of the order have received anything. */
async function receivedLines(tx: Parameters<typeof tenantQuery>[0], purchaseOrderId: string): Promise<number> {
  const [row] = await tenantQuery<{ n: number }>(tx, `SELECT count(*)::int AS n FROM purchase_order_lines WHERE account_id = $1::uuid AND purchase_order_id = $2::uuid AND received_quantity > 0`, purchaseOrderId);
  return row?.n ?? 0;
}
