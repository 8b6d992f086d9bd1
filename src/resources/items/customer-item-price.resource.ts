import { addError } from '../../kernel/body.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';

/**
 * Customer pricing, part 1: a customer's own unit price for an item (part 2 is customers.price_adjustment).
 * One row per customer and item; new lines for the customer take it instead of the item's price book entry.
 */
export const customerItemPriceResource = defineResource({
  name: 'customer_item_price',
  scope: 'items',
  description: "A customer's own unit price for an item; it wins over the price book and the customer's {price_adjustment}.",
  fields: {
    customer_id: { kind: 'uuid', create: 'required', update: 'immutable', nullable: false, references: { model: 'customer', live: true, label: 'Customer' }, description: 'The customer the price is for.' },
    item_id: { kind: 'uuid', create: 'required', update: 'immutable', nullable: false, references: { model: 'item', live: true, label: 'Item' }, description: 'The item the price is for; one price per customer and item.' },
    unit_price: { kind: 'decimal', scale: 4, create: 'required', update: 'optional', nullable: false, description: "The customer's unit price of the item." },
  },
  conventions: {},
  list: {
    filters: {
      customer_id: ['eq'],
      item_id: ['eq'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true },
    defaultSort: '-created_at',
  },
  uniqueIndexes: { customer_item_prices_account_id_customer_id_item_id_key: { field: 'item_id', message: 'already has a price for this customer' } },
  hooks: {
    async beforeWrite({ tx, mode, values: { customer_id, item_id }, errors }) {
      // Both are required on create: absent, they are errors already.
      if (mode !== 'create' || customer_id === undefined || item_id === undefined || errors.customer_id || errors.item_id) return;
      const taken = await tx.customerItemPrice.count({ where: { customer_id, item_id } });
      if (taken > 0) addError(errors, 'item_id', 'already has a price for this customer');
    },
  },
});
