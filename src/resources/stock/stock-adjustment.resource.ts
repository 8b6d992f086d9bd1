import { Decimal } from 'decimal.js';
import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { checkStockReferences, moveStock } from './stock-moves.ts';

// A counted change of stock at one location: in (positive quantity) or out (negative), with a reason (a count, a
// delivery before purchase orders exist, breakage). A ledger entry: created, listed and read, never changed; a
// correction is another adjustment. An adjustment that would take a level below zero is refused
// (409 stock.insufficient) and nothing is stored.

export const stockAdjustmentResource = defineResource({
  name: 'stock_adjustment',
  scope: 'inventory',
  description: 'A counted change of one item\'s stock at one location: {quantity} in (positive) or out (negative), with a {reason}. Never changed once made.',
  fields: {
    location_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, references: { model: 'stockLocation', live: true, label: 'StockLocation' }, description: 'Where the stock changes.', writeRule: 'An active location.' },
    item_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, references: { model: 'item', live: true, label: 'Item' }, description: 'The item counted.', writeRule: 'A material item.' },
    quantity: {
      kind: 'decimal',
      scale: 4,
      range: [-9_999_999_999, 9_999_999_999],
      create: 'required',
      update: 'not_accepted',
      nullable: false,
      description: 'The change: positive in, negative out.',
      writeRule: 'Not 0; the location never holds less than 0.',
    },
    reason: { kind: 'string', create: 'required', update: 'not_accepted', nullable: false, description: 'Why the stock changed (count, delivery, damage ...).' },
    note: { kind: 'text', create: 'optional', update: 'not_accepted', description: 'Free text.' },
  },
  readOnly: {
    on_hand: { kind: 'decimal', scale: 4, nullable: false, description: 'What the location holds of the item after this adjustment.' },
  },
  operations: ['list', 'get', 'create'],
  conventions: {},
  errors: { create: ['stock.insufficient'] },
  list: {
    filters: {
      location_id: ['eq'],
      item_id: ['eq'],
      created_at: rangeOps,
    },
    sorts: { created_at: true },
    defaultSort: '-created_at',
  },
  hooks: {
    async beforeWrite({ tx, values, errors }) {
      if (values.quantity !== undefined && !errors.quantity && new Decimal(values.quantity).isZero()) addError(errors, 'quantity', 'must not be 0');
      const items = values.item_id && !errors.item_id ? [{ at: 'item_id', id: values.item_id }] : [];
      const locations = values.location_id && !errors.location_id ? [{ at: 'location_id', id: values.location_id }] : [];
      await checkStockReferences(tx, errors, items, locations);
    },
    async afterWrite({ tx, ctx, resources, row, mode }) {
      // An adjustment moves stock once, when it is made (the ledger serves no update).
      if (mode !== 'create') return;
      const itemId = row.item_id as string;
      const locationId = row.location_id as string;
      await moveStock(tx, ctx, resources, row.created_at, [{ itemId, locationId, delta: new Decimal(String(row.quantity)).toFixed(4) }]);
      await tenantQuery(
        tx,
        `UPDATE stock_adjustments a SET on_hand = l.quantity FROM stock_levels l
         WHERE a.account_id = $1::uuid AND a.id = $2::uuid AND l.account_id = a.account_id AND l.item_id = a.item_id AND l.location_id = a.location_id`,
        row.id,
      );
    },
  },
});
