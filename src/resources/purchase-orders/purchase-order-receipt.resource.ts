import { Decimal } from 'decimal.js';
import { addError, throwIfErrors } from '../../kernel/body.ts';
import { calendarDateIn } from '../../kernel/dates.ts';
import { defineChildCollection, defineResource } from '../../kernel/define-resource.ts';
import type { FieldErrors } from '../../kernel/errors.ts';
import { validationError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { checkStockReferences, moveStock } from '../stock/stock-moves.ts';

// Receipts: what arrived of a purchase order at one time, made only by receiving the order (receiving.service.ts,
// which holds the order's lock). A ledger entry: listed and read, never changed. In the receipt's transaction each
// line's received quantity grows (never past what was ordered) and the material items that arrived are added to
// the receiving location's stock (stock-moves.ts), or nothing is stored.

const receiptLines = defineChildCollection({
  model: 'purchaseOrderReceiptLine',
  table: 'purchase_order_receipt_lines',
  foreignKey: 'receipt_id',
  label: 'purchase order receipt line',
  description: 'What arrived: lines of the purchase order, each once, with the quantity received.',
  fields: {
    line_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, description: 'The id of the purchase order line received (one of the order\'s {lines}).' },
    quantity: { kind: 'decimal', scale: 4, range: [0.0001, 9_999_999_999], create: 'required', update: 'not_accepted', nullable: false, description: 'How much of the line arrived: greater than 0.' },
  },
  readOnly: {
    item_id: { kind: 'uuid', nullable: true, references: { model: 'item', label: 'Item' }, description: "The item of the purchase order line; null for a described line." },
  },
  // The order's lines are locked (its row already is, by the receiving service): what they received cannot move
  // between this check and the write.
  async compute({ tx, parent, entries, errors }) {
    const lines = new Map(
      (
        await tenantQuery<{ id: string; item_id: string | null; quantity: string; received_quantity: string }>(
          tx,
          `SELECT id, item_id, quantity::text AS quantity, received_quantity::text AS received_quantity FROM purchase_order_lines WHERE account_id = $1::uuid AND purchase_order_id = $2::uuid FOR UPDATE`,
          parent.purchase_order_id as string,
        )
      ).map((line) => [line.id, line]),
    );
    const seen = new Set<string>();
    for (const { entry, at } of entries) {
      if (typeof entry.line_id !== 'string') continue;
      const id = (entry.line_id = entry.line_id.toLowerCase());
      const line = lines.get(id);
      if (!line) {
        addError(errors, `${at}.line_id`, 'does not match any line of this purchase order');
        continue;
      }
      if (seen.has(id)) addError(errors, `${at}.line_id`, 'is given more than once');
      seen.add(id);
      entry.item_id = line.item_id;
      if (entry.quantity === undefined) continue;
      const after = new Decimal(line.received_quantity).plus(String(entry.quantity));
      if (after.gt(line.quantity)) {
        const open = new Decimal(line.quantity).minus(line.received_quantity).toFixed(4);
        addError(errors, `${at}.quantity`, `is more than the ${open} still to receive of the line (ordered ${new Decimal(line.quantity).toFixed(4)}, received ${new Decimal(line.received_quantity).toFixed(4)})`);
      }
    }
  },
});

export const purchaseOrderReceiptResource = defineResource({
  name: 'purchase_order_receipt',
  scope: 'purchase_orders',
  description: 'What arrived of a purchase order at one time: the lines received with their quantities, and where the stock went. Made by receiving the order; never changed.',
  fields: {
    location_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'not_accepted',
      references: { model: 'stockLocation', live: true, label: 'StockLocation' },
      description: 'The stock location the material items were added to.',
      writeRule: "Default: the purchase order's {location_id}. An active location; required when a material item is received.",
    },
    received_date: { kind: 'date', create: 'optional', update: 'not_accepted', nullable: false, alwaysSet: true, description: 'The date the goods arrived.', writeRule: "Default: today in the account's time zone." },
    note: { kind: 'text', create: 'optional', update: 'not_accepted', description: 'Free text (the delivery note number, damage ...).' },
  },
  readOnly: {
    purchase_order_id: { kind: 'uuid', nullable: false, references: { model: 'purchaseOrder', label: 'PurchaseOrder' }, description: 'The purchase order received.' },
  },
  children: { lines: receiptLines },
  operations: ['list', 'get'],
  conventions: {},
  list: {
    filters: { purchase_order_id: ['eq'], location_id: ['eq'], received_date: rangeOps, created_at: rangeOps },
    sorts: { created_at: true, received_date: true },
    defaultSort: '-created_at',
  },
  hooks: {
    async beforeWrite({ ctx, values, now }) {
      values.received_date ??= calendarDateIn(now, ctx.principal.account.timeZone);
    },
    async afterWrite({ tx, ctx, resources, row, mode }) {
      if (mode !== 'create') return;
      const lines = await tx.purchaseOrderReceiptLine.findMany({ where: { receipt_id: row.id } });
      for (const line of lines) {
        await tenantQuery(
          tx,
          `UPDATE purchase_order_lines SET received_quantity = received_quantity + $3::numeric, updated_at = $4::timestamptz WHERE account_id = $1::uuid AND id = $2::uuid`,
          line.line_id,
          String(line.quantity),
          row.created_at,
        );
      }
      // Material items go into stock (deleted since the order or not: what arrived is on the shelf).
      const itemIds = [...new Set(lines.map((line) => line.item_id).filter((id): id is string => id !== null))];
      const materials = new Set((await tx.item.findMany({ where: { id: { in: itemIds }, item_type: 'material' }, select: { id: true } })).map((item) => item.id));
      const stocked = lines.filter((line) => line.item_id !== null && materials.has(line.item_id));
      if (stocked.length === 0) return;
      const location = row.location_id as string | null;
      if (location === null) throw validationError({ location_id: ['is missing: material items are received into a stock location (give one here or on the purchase order)'] });
      const errors: FieldErrors = {};
      await checkStockReferences(tx, errors, [], [{ at: 'location_id', id: location }]);
      throwIfErrors(errors);
      await moveStock(tx, ctx, resources, row.created_at, stocked.map((line) => ({ itemId: line.item_id!, locationId: location, delta: new Decimal(String(line.quantity)).toFixed(4) })));
    },
  },
});
