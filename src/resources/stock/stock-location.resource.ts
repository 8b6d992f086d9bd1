import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { AppError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

// Where stock is kept: warehouses, and vehicles (a technician's van, with that technician). Quantities are in
// stock_levels (stock-level.resource.ts); a location that holds stock is not deleted.

export const stockLocationKinds = vocabulary('StockLocationKind', ['warehouse', 'vehicle'], {
  description: 'What a stock location is.',
  describe: (kind) => ({ warehouse: 'A warehouse, shop or yard.', vehicle: "A vehicle: a technician's van or truck." })[kind],
});

export const stockLocationResource = defineResource({
  name: 'stock_location',
  scope: 'inventory',
  description: "A place where stock is kept: a warehouse, or a vehicle with its technician. Its on-hand quantities are the stock levels with its id.",
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the location.', writeRule: 'Unique among live locations (case-insensitive).' },
    kind: { kind: 'string', enum: stockLocationKinds, create: 'required', update: 'optional', nullable: false, description: 'warehouse or vehicle.' },
    active: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'Whether stock may move in or out.', writeRule: 'Default true.' },
    technician_id: {
      kind: 'int64',
      create: 'optional',
      update: 'optional',
      references: { model: 'user', label: 'user of this account' },
      description: 'The technician who drives the vehicle.',
      writeRule: 'Only for a vehicle.',
    },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free text (address, plate number).' },
  },
  relations: {
    stock_levels: { kind: 'collection', model: 'stockLevel', column: 'location_id', description: 'What the location holds: its stock levels, not paginated.' },
  },
  conventions: { softDelete: true },
  errors: { delete: ['stock_location.has_stock'] },
  list: {
    filters: {
      kind: ['eq'],
      active: ['eq'],
      technician_id: ['eq'],
      created_at: rangeOps,
    },
    sorts: { name: true, created_at: true },
    defaultSort: 'name',
    search: { fields: ['name', 'description'], text: 'name and description' },
  },
  uniqueIndexes: { stock_locations_account_id_name_live_key: { field: 'name', message: 'has already been taken' } },
  hooks: {
    async beforeWrite({ values, existing, errors }) {
      const kind = 'kind' in values ? values.kind : existing?.kind;
      const technician = 'technician_id' in values ? values.technician_id : existing?.technician_id;
      if (kind !== 'vehicle' && technician !== null && technician !== undefined && !errors.technician_id && !errors.kind) {
        addError(errors, 'technician_id' in values ? 'technician_id' : 'kind', 'a technician belongs to a vehicle only');
      }
    },
    async beforeDelete({ tx, row }) {
      const [held] = await tenantQuery<{ items: number }>(tx, `SELECT count(*)::int AS items FROM stock_levels WHERE account_id = $1::uuid AND location_id = $2::uuid AND quantity > 0`, row.id);
      if (held && held.items > 0) throw new AppError('stock_location.has_stock', `The location holds ${held.items} item(s): transfer or adjust them out first.`);
    },
  },
});
