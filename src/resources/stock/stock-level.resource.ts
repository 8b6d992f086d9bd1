import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';

// On-hand quantities per item and location, kept by the server (stock-moves.ts): read-only (list and get). A level
// exists once stock has been at the location; it stays at 0 when all of it moved out.

export const stockLevelResource = defineResource({
  name: 'stock_level',
  scope: 'inventory',
  description: 'How much of an item a stock location holds, kept by stock adjustments and inventory transfers. Read-only.',
  fields: {},
  readOnly: {
    item_id: { kind: 'uuid', nullable: false, references: { model: 'item', label: 'Item' }, description: 'The item.' },
    location_id: { kind: 'uuid', nullable: false, references: { model: 'stockLocation', label: 'StockLocation' }, description: 'The stock location.' },
    quantity: { kind: 'decimal', scale: 4, nullable: false, description: 'On hand: never negative.' },
  },
  operations: ['list', 'get'],
  // Levels are written by stock adjustments and transfers: one updated event per level they move.
  events: { actions: ['updated'] },
  conventions: {},
  list: {
    filters: {
      item_id: ['eq'],
      location_id: ['eq'],
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true },
    defaultSort: 'created_at',
  },
});
