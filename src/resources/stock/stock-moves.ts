import { Decimal } from 'decimal.js';
import { addError } from '../../kernel/body.ts';
import type { RequestContext } from '../../kernel/context.ts';
import { AppError, type FieldErrors } from '../../kernel/errors.ts';
import { appendEvent } from '../../kernel/events.ts';
import { newId } from '../../kernel/ids.ts';
import type { ResourceLookup } from '../../kernel/resource.ts';
import { readShared, type TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// On-hand stock, in one place: stock_levels holds one row per item and location (quantity >= 0, a CHECK). Every
// movement (an adjustment, a transfer) goes through moveStock inside the writing transaction:
//   - moves of the same item and location are summed, then applied in (item, location) order, so two writes over
//     the same levels lock them in the same order and never deadlock;
//   - a decrease is one conditional UPDATE (quantity + delta >= 0), which PostgreSQL re-checks on the row's latest
//     version after waiting for a concurrent writer: two transfers out of one location never oversell;
//   - a shortfall refuses the whole write (409 stock.insufficient, naming the item, the location and what is
//     there), so nothing moves; an increase creates the level when the item was never at the location;
//   - each level written is an ordinary write of it (updated_at forward, lock_version + 1: a new ETag) and
//     appends stock_level.updated with the level as served.

export interface StockMove {
  itemId: string;
  locationId: string;
  /** Signed quantity (4 decimals): positive in, negative out. */
  delta: string;
}

export async function moveStock(tx: TenantTx, ctx: RequestContext, resources: ResourceLookup, now: Date, moves: readonly StockMove[]): Promise<void> {
  const summed = new Map<string, { itemId: string; locationId: string; delta: Decimal }>();
  for (const move of moves) {
    const key = `${move.itemId}:${move.locationId}`;
    const entry = summed.get(key) ?? summed.set(key, { itemId: move.itemId, locationId: move.locationId, delta: new Decimal(0) }).get(key)!;
    entry.delta = entry.delta.plus(move.delta);
  }
  const ordered = [...summed.values()].filter((move) => !move.delta.isZero()).sort((a, b) => (a.itemId === b.itemId ? compare(a.locationId, b.locationId) : compare(a.itemId, b.itemId)));
  const levels = resources('stock_level');
  for (const { itemId, locationId, delta } of ordered) {
    const amount = delta.toFixed(4);
    const [written] = delta.isPositive()
      ? await tenantQuery<{ id: string }>(
          tx,
          `INSERT INTO stock_levels AS l (id, account_id, item_id, location_id, quantity, created_at, updated_at)
           VALUES ($2::uuid, $1::uuid, $3::uuid, $4::uuid, $5::numeric, $6::timestamptz, $6::timestamptz)
           ON CONFLICT (account_id, item_id, location_id) DO UPDATE SET quantity = l.quantity + EXCLUDED.quantity,
             updated_at = GREATEST(EXCLUDED.updated_at, l.updated_at + interval '1 millisecond'), lock_version = l.lock_version + 1
           RETURNING id`,
          newId(),
          itemId,
          locationId,
          amount,
          now,
        )
      : await tenantQuery<{ id: string }>(
          tx,
          `UPDATE stock_levels l SET quantity = l.quantity + $4::numeric,
             updated_at = GREATEST($5::timestamptz, l.updated_at + interval '1 millisecond'), lock_version = l.lock_version + 1
           WHERE l.account_id = $1::uuid AND l.item_id = $2::uuid AND l.location_id = $3::uuid AND l.quantity + $4::numeric >= 0
           RETURNING id`,
          itemId,
          locationId,
          amount,
          now,
        );
    if (!written) {
      const [level] = await tenantQuery<{ quantity: string }>(
        tx,
        `SELECT quantity::text AS quantity FROM stock_levels WHERE account_id = $1::uuid AND item_id = $2::uuid AND location_id = $3::uuid`,
        itemId,
        locationId,
      );
      throw new AppError(
        'stock.insufficient',
        `Location ${locationId} holds ${level?.quantity ?? '0.0000'} of item ${itemId}; the write takes ${delta.negated().toFixed(4)}. Nothing was moved.`,
      );
    }
    const level = await levels.getWithin(tx, written.id);
    // A level only ever moves its quantity (updated_at is left out of changed_fields everywhere).
    await appendEvent(tx, ctx, { resource: 'StockLevel', topicPrefix: 'stock_level', recordId: written.id, action: 'updated', payload: level.record, details: { changed_fields: ['quantity'] }, etag: level.etag });
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Checks the items and locations a movement names, share-locked so neither changes under it: each item a live
 * material item (labor and services are not stocked), each location live and active. Errors go under `at` keys.
 */
export async function checkStockReferences(
  tx: TenantTx,
  errors: FieldErrors,
  items: readonly { at: string; id: string }[],
  locations: readonly { at: string; id: string }[],
): Promise<void> {
  const foundItems = new Map(
    (await readShared<{ id: string; item_type: string; deleted_at: Date | null }>(tx, 'items', 'id, item_type, deleted_at', [...new Set(items.map((i) => i.id.toLowerCase()))])).map((row) => [row.id, row]),
  );
  for (const { at, id } of items) {
    const item = foundItems.get(id.toLowerCase());
    if (!item || item.deleted_at) addError(errors, at, 'does not match any Item');
    else if (item.item_type !== 'material') addError(errors, at, `is a ${item.item_type} item: only material items are stocked`);
  }
  const foundLocations = new Map(
    (await readShared<{ id: string; active: boolean; deleted_at: Date | null }>(tx, 'stock_locations', 'id, active, deleted_at', [...new Set(locations.map((l) => l.id.toLowerCase()))])).map((row) => [row.id, row]),
  );
  for (const { at, id } of locations) {
    const location = foundLocations.get(id.toLowerCase());
    if (!location || location.deleted_at) addError(errors, at, 'does not match any StockLocation');
    else if (!location.active) addError(errors, at, 'is an inactive stock location');
  }
}
