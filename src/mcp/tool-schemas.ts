import { wireText } from '../kernel/api-text.ts';
import type { DocumentedOperation, JsonSchema } from './documented-schemas.ts';

// The pieces of the tools' input and output schemas and annotations: the operation's body member and list
// parameters from the document, the arguments only MCP has (etag, idempotency_key), and the structured results.

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export function objectSchema(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** The record's body member (under the body key) of an operation's request body, as the document describes it. */
export function bodyMember(operation: DocumentedOperation | undefined, key: string): JsonSchema | undefined {
  const properties = operation?.body?.properties as Record<string, JsonSchema> | undefined;
  return properties?.[key] ?? operation?.body;
}

/** The list parameters (query) of an operation as tool properties, by their names in the document. */
export function queryProperties(operation: DocumentedOperation | undefined): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const parameter of operation?.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    properties[parameter.name] = { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) };
  }
  return properties;
}

/**
 * The structured content of a call that answers the operation's body: the body's schema from the document, with
 * `etag` (one record) or `etags` (an action's records, by the same keys as its data) beside `data`, as the tools
 * answer them.
 */
export function outputOf(operation: DocumentedOperation | undefined, etag: 'etag' | 'etags' | null): JsonSchema | undefined {
  const body = operation?.response;
  if (!body || body.type !== 'object') return undefined;
  if (etag === null) return body;
  const properties = { ...(body.properties as Record<string, JsonSchema>) };
  if (etag === 'etag') properties.etag = { type: 'string', description: "The record's etag (update_* and delete_* take it)." };
  else properties.etags = { type: 'object', additionalProperties: { type: 'string' }, description: 'The etag of each record of data, by the same keys.' };
  return { ...body, properties, required: [...((body.required as string[] | undefined) ?? []), ...(etag === 'etag' ? ['etag'] : [])] };
}

export const deletedSchema: JsonSchema = objectSchema({ deleted: { const: true }, id: { type: 'string', description: 'The id of the deleted record.' } }, ['deleted', 'id']);

export const doneSchema: JsonSchema = objectSchema({ done: { const: true } }, ['done']);

export const idSchema = (noun: string): JsonSchema => ({ type: 'string', format: 'uuid', description: `Id of the ${noun} (UUID v7). Unknown or another account's: resource.not_found.` });
export const etagSchema = (tool: string): JsonSchema => ({
  type: 'string',
  description: `The record's current etag, as get_${tool} (or the last write) answered it. Without it: precondition.required; stale (the record changed since): precondition.failed, read it again first.`,
});
export const idempotencyKeySchema: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Required: a key of your choosing, unique per intended create (a UUID). A retry with the same key and arguments answers the first result again instead of creating twice; the same key with other arguments is idempotency_key.in_use. Kept 24 hours.',
};

export const words = (name: string) => name.replace(/_/g, ' ');
export const text = (...parts: (string | undefined)[]) => parts.filter(Boolean).map((part) => wireText(part!.trim())).join(' ');
export const annotations = (title: string, kind: 'read' | 'create' | 'update' | 'delete', idempotent: boolean): ToolAnnotations => ({
  title,
  readOnlyHint: kind === 'read',
  destructiveHint: kind === 'delete',
  idempotentHint: kind === 'read' || idempotent,
  openWorldHint: false,
});
