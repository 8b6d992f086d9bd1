import { subjectError } from './errors.ts';
import type { ListRequest } from './listing.ts';
import { liveStatuses } from './lookups.ts';
import type { ResourceDefinition } from './resource.ts';
import { isStorableText } from './storable.ts';
import type { TenantClient } from './tenancy.ts';

/** A status filter (status, status[in]) naming a status that is not live is 400 filter.invalid (see ListOptions). */
export async function checkStatusFilter(db: TenantClient, def: ResourceDefinition, request: ListRequest): Promise<void> {
  const given = (request.filters ?? []).filter((filter) => filter.field === 'status' && (filter.op === undefined || filter.op === 'in'));
  if (given.length === 0 || !def.conventions.status) return;
  const live = await liveStatuses(db, def.className);
  for (const filter of given) {
    const values = typeof filter.value === 'string' ? (filter.op === 'in' ? filter.value.split(',') : [filter.value]) : filter.value;
    // Text the database cannot store is refused by the list itself, as every list parameter is (never echoed back).
    if (values.some((status) => !isStorableText(status))) continue;
    const unknown = values.find((status) => !live.includes(status));
    if (unknown !== undefined) {
      throw subjectError('filter.invalid', { kind: 'filter', field: 'status', op: filter.op }, (name) => `${name}: "${unknown}" is not a status of ${def.className} records (configured: ${live.join(', ')})`);
    }
  }
}
