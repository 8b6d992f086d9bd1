import { AppError } from './errors.ts';
import { liveStatuses } from './lookups.ts';
import type { ResourceDefinition } from './resource.ts';
import { assertStorableParameters } from './storable.ts';
import type { TenantClient } from './tenancy.ts';

/** A status filter (status, status[in]) naming a status that is not live is 400 filter.invalid (see ListOptions). */
export async function checkStatusFilter(db: TenantClient, def: ResourceDefinition, entries: [string, string][]): Promise<void> {
  const given = entries.filter(([key]) => key === 'status' || key === 'status[in]');
  if (given.length === 0 || !def.conventions.status) return;
  // Text the database cannot store is refused first, as every list parameter is (never echoed back).
  assertStorableParameters(given);
  const live = await liveStatuses(db, def.className);
  for (const [key, value] of given) {
    const unknown = (key === 'status' ? [value] : value.split(',')).find((status) => !live.includes(status));
    if (unknown !== undefined) {
      throw new AppError('filter.invalid', `${key}: "${unknown}" is not a status of ${def.className} records (configured: ${live.join(', ')})`);
    }
  }
}
