import { DEFAULT_LIMIT, MAX_LIMIT } from '../../kernel/listing.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { listEnvelope, singleEnvelope } from './envelopes.ts';
import { responseHeaders } from './headers.ts';
import { listQuerySchema } from './list-parameters.ts';
import { camel, title, words } from './naming.ts';
import { recordSchema } from './record-schemas.ts';
import { createSchema, updateSchema } from './write-schemas.ts';
import { z } from './zod.ts';

// The five standard operations of a resource (list, create, get, update, delete) and the schemas they use,
// all from its declaration.

/** The sentence listing a resource's list filters: "status (=, [in]), created_at ([gt], ...)". */
function filtersNote(def: ResourceDefinition): string {
  return Object.entries(def.list.filters)
    .map(([field, f]) => `${field} (${f.ops.map((op) => (op === 'eq' ? '=' : `[${op}]`)).join(', ')})`)
    .join(', ');
}

/** Registers the resource's schemas and operations; returns its registered record schema. */
export function registerResourceOperations({ registry, parameters, addOperation }: DocumentBuilder, def: ResourceDefinition): z.ZodType {
  const cls = def.className;
  const read = `${def.scope}:read`;
  const write = `${def.scope}:write`;
  const tags = [title(def.plural)];
  const record = registry.register(cls, recordSchema(def));
  const single = registry.register(`${cls}Response`, singleEnvelope(record));
  const list = registry.register(`${cls}List`, listEnvelope(record));
  const create = registry.register(`${cls}Create`, createSchema(def));
  const update = registry.register(`${cls}Update`, updateSchema(def));
  const createBody = registry.register(`${cls}CreateRequest`, z.object({ [def.name]: create }));
  const updateBody = registry.register(`${cls}UpdateRequest`, z.object({ [def.name]: update }));
  const collection = `/${def.plural}`;
  const item = `/${def.plural}/{id}`;
  const id = z.object({ id: parameters.recordId });
  const noun = words(def.name);
  const bodyNote = `The record travels under the key "${def.name}": a missing key gives 422 validation.failed with errors.${def.name} = ["is missing"], a non-object value ["must be an object"].`;
  const filters = filtersNote(def);

  addOperation(
    { kind: 'list', def },
    {
      method: 'get',
      path: collection,
      operationId: camel(`list_${def.plural}`),
      tags,
      summary: `List ${words(def.plural)}`,
      description: [
        `Keyset-paginated list of ${words(def.plural)}: {data, has_more}; the Link header holds the next page's URL while has_more is true.`,
        filters ? `Filters: ${filters}.` : '',
        def.list.searchable ? `q searches ${def.list.searchable}.` : '',
        Object.keys(def.list.sorts).length ? `Sort: ${Object.keys(def.list.sorts).join(', ')} (prefix - for descending), default ${def.list.defaultSort}.` : '',
        `limit 1..${MAX_LIMIT}, default ${DEFAULT_LIMIT}. Unknown parameters, fields or operators: 400 filter.invalid.`,
      ]
        .filter(Boolean)
        .join(' '),
      request: { query: listQuerySchema(def) },
      scopes: [read],
      ok: { 200: { description: `A page of ${words(def.plural)}.`, headers: responseHeaders('Link'), content: { 'application/json': { schema: list } } } },
    },
  );
  addOperation(
    { kind: 'create', def },
    {
      method: 'post',
      path: collection,
      operationId: camel(`create_${def.name}`),
      tags,
      summary: `Create a ${noun}`,
      description: `${bodyNote} Answers 201 with Location and ETag.`,
      request: { body: { required: true, content: { 'application/json': { schema: createBody } } } },
      scopes: [write],
      ok: { 201: { description: `The created ${noun}.`, headers: responseHeaders('ETag', 'Location'), content: { 'application/json': { schema: single } } } },
    },
  );
  addOperation(
    { kind: 'get', def },
    {
      method: 'get',
      path: item,
      operationId: camel(`get_${def.name}`),
      tags,
      summary: `Get a ${noun}`,
      request: { params: id },
      scopes: [read],
      ok: { 200: { description: `The ${noun}.`, headers: responseHeaders('ETag'), content: { 'application/json': { schema: single } } } },
    },
  );
  addOperation(
    { kind: 'update', def },
    {
      method: 'patch',
      path: item,
      operationId: camel(`update_${def.name}`),
      tags,
      summary: `Update a ${noun}`,
      description: `${bodyNote} If-Match is compared and the row written in one atomic statement.`,
      request: {
        params: id,
        headers: [parameters.ifMatch],
        body: { required: true, content: { 'application/json': { schema: updateBody } } },
      },
      scopes: [write],
      ok: { 200: { description: `The updated ${noun}.`, headers: responseHeaders('ETag'), content: { 'application/json': { schema: single } } } },
    },
  );
  addOperation(
    { kind: 'delete', def },
    {
      method: 'delete',
      path: item,
      operationId: camel(`delete_${def.name}`),
      tags,
      summary: `Delete a ${noun}`,
      description: def.conventions.softDelete ? 'Soft delete: the record is discarded and no longer served.' : 'Deletes the record.',
      request: { params: id, headers: [parameters.ifMatch] },
      scopes: [write],
      ok: { 204: { description: 'Deleted.', headers: responseHeaders() } },
    },
  );
  return record;
}
