import type { Client } from '../http.ts';
import { createRecord, unique, type Created } from './records.ts';

// The catalog: items (the price book) and tax rates.

export function createItem(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'items', 'item', { name: unique('Item '), item_type: 'material', unit_price: '10', ...fields });
}

export function createTaxRate(api: Client, fields: Record<string, unknown> = {}): Promise<Created> {
  return createRecord(api, 'tax_rates', 'tax_rate', { name: unique('Tax '), rate: '8.25', ...fields });
}
