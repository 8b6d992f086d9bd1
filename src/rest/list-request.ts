import { AppError } from '../kernel/errors.ts';
import type { ListRequest, ListRequestDraft } from '../kernel/listing.ts';
import { assertStorableParameters } from '../kernel/storable.ts';

// A list's query string -> the kernel's list request (kernel/listing.ts ListRequest): the spec's cursor, limit,
// sort, q, `<filter>` / `<filter>[<operator>]` and `custom_fields[<definition id>]` parameters. What only a query
// string can get wrong (a parameter given twice, a name of no list parameter's shape) is refused here; the rest
// is the kernel's, whose refusals name their subject as listParameterName (src/kernel/errors.ts) does.

const invalid = (detail: string) => new AppError('filter.invalid', detail);

/** The list request of a query string's entries, in order. */
export function listRequestOf(entries: [string, string][]): ListRequest {
  // Text PostgreSQL cannot store (NUL, lone surrogates) in any parameter, name or value: 400 naming it.
  assertStorableParameters(entries);
  const seen = new Set<string>();
  const request: ListRequestDraft = { filters: [], customFields: [] };
  for (const [key, value] of entries) {
    if (seen.has(key)) throw invalid(`${key}: given more than once`);
    seen.add(key);
    if (key === 'cursor' || key === 'limit' || key === 'sort' || key === 'q') {
      request[key] = value;
      continue;
    }
    const m = /^([a-z_]+)(?:\[([^\][]+)\])?$/.exec(key);
    if (!m) throw invalid(`unknown parameter: ${key}`);
    const [, field, modifier] = m;
    if (field === 'custom_fields') {
      if (!modifier) throw invalid(`unknown parameter: ${key}`);
      request.customFields.push({ id: modifier, value });
      continue;
    }
    if (field === 'cursor' || field === 'limit' || field === 'sort' || field === 'q') throw invalid(`unknown parameter: ${key}`);
    request.filters.push({ field, op: modifier, value });
  }
  return request;
}

/** The query of a lookup list (GET /statuses ...): related_name only, once. */
export function lookupQueryOf(entries: [string, string][], kind: string): { relatedName?: string } {
  return { relatedName: onlyParameter(entries, 'related_name', kind) };
}

/** The query of GET /system_options: system_type only, once. */
export function systemOptionsQueryOf(entries: [string, string][]): { systemType?: string } {
  return { systemType: onlyParameter(entries, 'system_type', 'system_options') };
}

/** The value of the one parameter a read accepts, given at most once. */
function onlyParameter(entries: [string, string][], name: string, what: string): string | undefined {
  assertStorableParameters(entries);
  let found: string | undefined;
  for (const [key, value] of entries) {
    if (key !== name) throw invalid(`unknown parameter: ${key} (${what} accept ${name} only)`);
    if (found !== undefined) throw invalid(`${name}: given more than once`);
    found = value;
  }
  return found;
}
