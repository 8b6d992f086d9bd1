import { Decimal } from 'decimal.js';
import { addError } from '../../kernel/body.ts';
import { calendarDateIn } from '../../kernel/dates.ts';
import { defineChildCollection, defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { checkStockReferences, moveStock } from './stock-moves.ts';

// Stock moved from one location to another (warehouse to van, van to van). The stock moves in the transaction
// that creates the transfer, or not at all: a line that would take the source below zero refuses the whole
// transfer (409 stock.insufficient). A ledger entry with a number: created, listed and read, never changed; moving
// stock back is another transfer. A financial create: POST needs an Idempotency-Key.

const transferLines = defineChildCollection({
  model: 'inventoryTransferLine',
  table: 'inventory_transfer_lines',
  foreignKey: 'transfer_id',
  label: 'transfer line',
  description: 'What moves: each item once, with its quantity.',
  fields: {
    item_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, references: { model: 'item', live: true, label: 'Item' }, description: 'The item moved (a material item).' },
    quantity: { kind: 'decimal', scale: 4, range: [0.0001, 9_999_999_999], create: 'required', update: 'not_accepted', nullable: false, description: 'How much moves: greater than 0.' },
  },
  async compute({ tx, entries, errors }) {
    const items: { at: string; id: string }[] = [];
    const seen = new Set<string>();
    for (const { entry, at } of entries) {
      if (entry.quantity === undefined) addError(errors, `${at}.quantity`, 'is missing');
      if (typeof entry.item_id !== 'string') {
        addError(errors, `${at}.item_id`, 'is missing');
        continue;
      }
      entry.item_id = entry.item_id.toLowerCase();
      if (seen.has(entry.item_id)) addError(errors, `${at}.item_id`, 'is given more than once');
      seen.add(entry.item_id);
      items.push({ at: `${at}.item_id`, id: entry.item_id });
    }
    await checkStockReferences(tx, errors, items, []);
  },
});

export const inventoryTransferResource = defineResource({
  name: 'inventory_transfer',
  scope: 'inventory',
  description: 'Stock moved from one location to another, all of it when the transfer is created or none. Never changed once made.',
  fields: {
    from_location_id: { kind: 'uuid', create: 'required', update: 'not_accepted', nullable: false, references: { model: 'stockLocation', live: true, label: 'StockLocation' }, description: 'Where the stock comes from.', writeRule: 'An active location.' },
    to_location_id: {
      kind: 'uuid',
      create: 'required',
      update: 'not_accepted',
      nullable: false,
      references: { model: 'stockLocation', live: true, label: 'StockLocation' },
      description: 'Where the stock goes.',
      writeRule: 'An active location other than {from_location_id}.',
    },
    transfer_date: { kind: 'date', create: 'optional', update: 'not_accepted', nullable: false, alwaysSet: true, description: 'The date of the transfer.', writeRule: "Default: today in the account's time zone." },
    note: { kind: 'text', create: 'optional', update: 'not_accepted', description: 'Free text.' },
  },
  children: { lines: transferLines },
  operations: ['list', 'get', 'create'],
  conventions: { number: true },
  idempotentCreate: true,
  errors: { create: ['stock.insufficient'] },
  list: {
    filters: {
      from_location_id: ['eq'],
      to_location_id: ['eq'],
      transfer_date: rangeOps,
      created_at: rangeOps,
    },
    sorts: { created_at: true, transfer_date: true, number: true },
    defaultSort: '-created_at',
  },
  hooks: {
    async beforeWrite({ tx, ctx, values, children, errors, now }) {
      values.transfer_date ??= calendarDateIn(now, ctx.principal.account.timeZone);
      if (values.from_location_id && values.to_location_id && values.from_location_id.toLowerCase() === values.to_location_id.toLowerCase()) {
        addError(errors, 'to_location_id', 'must differ from {from_location_id}');
      }
      if (!children.lines?.length && !errors.lines) addError(errors, 'lines', 'must name at least one item');
      const locations = (['from_location_id', 'to_location_id'] as const).filter((field) => values[field] && !errors[field]).map((field) => ({ at: field, id: values[field]! }));
      await checkStockReferences(tx, errors, [], locations);
    },
    async afterWrite({ tx, ctx, resources, row, mode }) {
      // A transfer moves stock once, when it is made (the ledger serves no update).
      if (mode !== 'create') return;
      const lines = await tx.inventoryTransferLine.findMany({ where: { transfer_id: row.id } });
      const from = row.from_location_id as string;
      const to = row.to_location_id as string;
      await moveStock(
        tx,
        ctx,
        resources,
        row.created_at,
        lines.flatMap((line) => {
          const quantity = new Decimal(String(line.quantity));
          return [
            { itemId: line.item_id, locationId: from, delta: quantity.negated().toFixed(4) },
            { itemId: line.item_id, locationId: to, delta: quantity.toFixed(4) },
          ];
        }),
      );
    },
  },
});
