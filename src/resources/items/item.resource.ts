import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

export const itemTypes = vocabulary('ItemType', ['material', 'labor', 'service'], {
  description: 'The kind of a catalog item.',
  describe: (type) => ({ material: 'Material: parts and supplies.', labor: 'Labor: time worked.', service: 'Service: a piece of work sold as a whole.' })[type],
});

/** The price book: what can be put on a line. */
export const itemResource = defineResource({
  name: 'item',
  description: 'A price book entry: a material, a labor rate or a service, with its unit price and cost.',
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the item.' },
    sku: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Stock keeping unit code.' },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free-text description of the item.' },
    item_type: { kind: 'string', enum: itemTypes, create: 'required', update: 'optional', nullable: false, description: 'Kind of item: material, labor or service.' },
    unit_price: { kind: 'decimal', scale: 4, create: 'required', update: 'optional', nullable: false, description: 'Price book unit price.' },
    cost: { kind: 'decimal', scale: 4, create: 'optional', update: 'optional', description: 'Unit cost.' },
    taxable: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'Whether new lines of the item are taxed.', writeRule: 'Default true.' },
    preferred_vendor_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'vendor', live: true, label: 'Vendor' }, description: 'The vendor the item is usually bought from.' },
  },
  relations: {
    stock_levels: { kind: 'collection', model: 'stockLevel', column: 'item_id', description: 'Where the item is stocked: its stock levels per location, not paginated.' },
  },
  conventions: { number: true, labels: true, customFields: true, softDelete: true },
  list: {
    filters: {
      item_type: ['eq', 'in'],
      sku: ['eq'],
      preferred_vendor_id: ['eq'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, name: true, number: true },
    defaultSort: '-created_at',
    search: { fields: ['name', 'number', 'sku', 'description'], text: 'name, number, sku and description' },
  },
});
