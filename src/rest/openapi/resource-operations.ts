import { bodyKeyOf, restPath, serves, type ResourceDefinition } from '../../kernel/resource.ts';
import { nestedScopes, parentsOf } from '../../kernel/nesting.ts';
import { resources } from '../../domain.ts';
import { createAnswers } from '../openapi-operations.ts';
import { wireShapeSchema } from '../wire-shape-schema.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { docText } from './doc-text.ts';
import { createExample, recordExample, shapeExample, updateExample } from './examples.ts';
import { listEnvelope, listExample, singleEnvelope, singleExample } from './envelopes.ts';
import { responseHeaders } from './headers.ts';
import { listQuerySchema } from './list-parameters.ts';
import { camel, title, words } from './naming.ts';
import { recordSchema } from './record-schemas.ts';
import { createBodyName, createSchema, updateSchema } from './write-schemas.ts';
import { z } from './zod.ts';
import { registerAttachmentOperations } from './attachment-operations.ts';

// The five standard operations of a resource (list, create, get, update, delete) and the schemas they use,
// all from its declaration.

/** Registers the resource's schemas and operations; returns its registered record schema. */
export function registerResourceOperations({ register, response, parameters, addOperation }: DocumentBuilder, def: ResourceDefinition): z.ZodType {
  const cls = def.className;
  // A nested resource's record is read with its parent's read scope (known once it is found), written with its own write scope too.
  const read: string[] = def.nested ? [] : [`${def.scope}:read`];
  const write = `${def.scope}:write`;
  const parentScopeNote = def.nested
    ? ` Needs the read scope of the resource of the ${words(def.name)}'s parent (jobs:read for a ${words(def.name)} on a job), checked once the ${words(def.name)} is found: a ${words(def.name)} that is absent, another account's or on a parent that is not live is 404 first, a missing scope then 403.`
    : '';
  const tags = [title(def.plural)];
  const example = recordExample(def);
  const record = register(cls, recordSchema(def));
  const single = register(`${cls}Response`, singleEnvelope(record), singleExample(example));
  const list = register(`${cls}List`, listEnvelope(record), listExample(example));
  // A create whose answer adds fields to the record (a webhook endpoint's secret) answers the record and those.
  const answer = createAnswers[def.name];
  const created = () =>
    answer
      ? register(
          `${cls}CreatedResponse`,
          singleEnvelope(record.extend(wireShapeSchema(answer).shape).openapi({ description: docText(answer.description) })),
          singleExample({ ...example, ...shapeExample(answer) }),
        )
      : single;
  // Write bodies only for the writes the resource serves. The record is the body's only member: another one is
  // refused as an unknown field is (src/rest/record-body.ts recordFromBody).
  let createBodyOnce: z.ZodType | undefined;
  const createBody = () => (createBodyOnce ??= registerCreateBody());
  const registerCreateBody = () => register(`${cls}CreateRequest`, z.object({ [bodyKeyOf(def)]: register(createBodyName(def), createSchema(def)) }).strict(), { [bodyKeyOf(def)]: createExample(def) });
  const updateBody = () => register(`${cls}UpdateRequest`, z.object({ [bodyKeyOf(def)]: register(`${cls}Update`, updateSchema(def)) }).strict(), { [bodyKeyOf(def)]: updateExample(def) });
  const collection = `/${restPath(def)}`;
  const item = `/${restPath(def)}/{id}`;
  const id = z.object({ id: parameters.recordId });
  const noun = words(def.name);
  // get and update answer the same: the record with its ETag.
  const current = response(cls, () => ({ description: `The ${noun}.`, headers: responseHeaders('ETag'), schema: single }));

  // A nested resource: its list and create under each parent's record.
  for (const { parent } of parentsOf(def, resources)) {
    const under = `/${restPath(parent)}/{id}/${def.plural}`;
    const parentNoun = words(parent.name);
    const parentTags = [title(parent.plural)];
    addOperation(
      { kind: 'list', def, parent },
      {
        method: 'get',
        path: under,
        operationId: camel(`list_${parent.name}_${def.plural}`),
        tags: parentTags,
        summary: `List the ${words(def.plural)} of a ${parentNoun}`,
        description: `Keyset-paginated list of the ${words(def.plural)} of the ${parentNoun} (newest first by default); a cursor is bound to the ${parentNoun}. The ${parentNoun} must be live in the account (404 otherwise).`,
        parameters: parameters.list.of(def),
        request: { params: id, query: listQuerySchema(def) },
        scopes: nestedScopes(def, parent, 'read'),
        ok: { 200: { description: `A page of the ${parentNoun}'s ${words(def.plural)}.`, headers: responseHeaders('Link'), content: { 'application/json': { schema: list } } } },
      },
    );
    addOperation(
      { kind: 'create', def, parent },
      {
        method: 'post',
        path: under,
        operationId: camel(`create_${parent.name}_${def.name}`),
        tags: parentTags,
        summary: `Add a ${noun} to a ${parentNoun}`,
        description: `The ${noun} is on the ${parentNoun}, which must be live in the account (404 otherwise); its author is the user of the key. The ${parentNoun} itself does not change (its ETag and updated_at stay).`,
        request: { params: id, body: { required: true, content: { 'application/json': { schema: createBody() } } } },
        scopes: nestedScopes(def, parent, 'write'),
        ok: { 201: { description: `The created ${noun}.`, headers: responseHeaders('ETag', 'Location'), content: { 'application/json': { schema: single } } } },
      },
    );
  }
  if (serves(def, 'list')) {
    addOperation(
      { kind: 'list', def },
      {
        method: 'get',
        path: collection,
        operationId: camel(`list_${def.plural}`),
        tags,
        summary: `List ${words(def.plural)}`,
        // The filters, q, sort and limit are described by their parameters, paging by info (the same on every list).
        description: `Keyset-paginated list of ${words(def.plural)}.`,
        parameters: parameters.list.of(def),
        request: { query: listQuerySchema(def) },
        scopes: read,
        ok: { 200: { description: `A page of ${words(def.plural)}.`, headers: responseHeaders('Link'), content: { 'application/json': { schema: list } } } },
      },
    );
  }
  if (serves(def, 'create')) {
    addOperation(
      { kind: 'create', def },
      {
        method: 'post',
        path: collection,
        operationId: camel(`create_${def.name}`),
        tags,
        summary: `Create a ${noun}`,
        request: { body: { required: true, content: { 'application/json': { schema: createBody() } } }, ...(def.idempotentCreate ? { headers: [parameters.idempotencyKey] } : {}) },
        scopes: [write],
        ok: {
          201: {
            description: `The created ${noun}${def.idempotentCreate ? ' (or, for a retry with the same Idempotency-Key and body, the same answer replayed)' : ''}.`,
            headers: def.idempotentCreate ? responseHeaders('ETag', 'Location', 'Idempotent-Replayed') : responseHeaders('ETag', 'Location'),
            content: { 'application/json': { schema: created() } },
          },
        },
      },
    );
  }
  if (serves(def, 'get')) {
    addOperation(
      { kind: 'get', def },
      {
        method: 'get',
        path: item,
        operationId: camel(`get_${def.name}`),
        tags,
        summary: `Get a ${noun}`,
        ...(parentScopeNote ? { description: parentScopeNote.trim() } : {}),
        request: { params: id },
        scopes: read,
        ok: { 200: current },
      },
    );
  }
  if (serves(def, 'update')) {
    addOperation(
      { kind: 'update', def },
      {
        method: 'patch',
        path: item,
        operationId: camel(`update_${def.name}`),
        tags,
        summary: `Update a ${noun}`,
        ...(parentScopeNote ? { description: parentScopeNote.trim() } : {}),
        request: {
          params: id,
          headers: [parameters.ifMatch],
          body: { required: true, content: { 'application/json': { schema: updateBody() } } },
        },
        scopes: [write],
        ok: { 200: current },
      },
    );
  }
  if (serves(def, 'delete')) {
    addOperation(
      { kind: 'delete', def },
      {
        method: 'delete',
        path: item,
        operationId: camel(`delete_${def.name}`),
        tags,
        summary: `Delete a ${noun}`,
        description: (def.conventions.softDelete ? 'Soft delete: the record is discarded and no longer served.' : 'Deletes the record.') + parentScopeNote,
        request: { params: id, headers: [parameters.ifMatch] },
        scopes: [write],
        ok: { 204: response('Deleted', () => ({ description: 'Deleted.', headers: responseHeaders() })) },
      },
    );
  }
  registerAttachmentOperations({ parameters, addOperation }, def, current);
  return record;
}
