import { type Domain, describeCaller, lookupKinds, type LookupKind } from '../domain.ts';
import type { ActionDefinition, ActionInput } from '../kernel/action.ts';
import { wireText } from '../kernel/api-text.ts';
import { addError, NOT_PERMITTED, throwIfErrors } from '../kernel/body.ts';
import type { RequestContext } from '../kernel/context.ts';
import { AppError, validationError, type FieldErrors } from '../kernel/errors.ts';
import { hasAttachmentValues, withDownloadLinks } from '../kernel/file-links.ts';
import type { ListRequestDraft } from '../kernel/listing.ts';
import { nestedScopes, parentsOf } from '../kernel/nesting.ts';
import { bucketOf, type Bucket } from '../kernel/rate-limit.ts';
import { Single } from '../kernel/resource-service.ts';
import { bodyKeyOf, restPath, serves, type ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import { snakeCase } from '../kernel/naming.ts';
import { DocumentedSchemas, type DocumentedOperation, type JsonSchema } from './documented-schemas.ts';

// The MCP tools, generated from the resource declarations (src/domain.ts `resources`): for each resource the
// standard operations it serves (list_<plural>, get_<name>, create_<name>, update_<name>, delete_<name>), the list
// and create under each parent of a nested resource, and each declared action (convert_estimate ...). Nothing here
// is written per resource; a new declaration gets its tools by itself. Written by hand only what is not a
// resource: `me`, the lookups and the system options. Each tool calls the same service as the REST route it stands
// for, with the same values, and its input schema is that route's (the OpenAPI document: documented-schemas.ts).

/** What a tool answers: the structured content (the REST wire format of its data) and a short text. */
export interface ToolOutcome {
  structured: Record<string, unknown>;
  text: string;
}

export interface ToolCall {
  domain: Domain;
  ctx: RequestContext;
  args: Record<string, unknown>;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** Every scope the caller needs (tools/list shows the tool only to a key holding them all). */
  scopes: readonly Scope[];
  /** The rate bucket of the REST request the tool stands for. */
  bucket: Bucket;
  run(call: ToolCall): Promise<ToolOutcome>;
}

type Args = Record<string, unknown>;

// ---- argument readers: the adapter's own input, refused with the codes REST gives for the same mistakes ----

/** Refuses any argument the tool does not take (validation.failed naming it), as REST refuses an unknown member. */
function onlyKnown(args: Args, known: readonly string[]): void {
  const errors: FieldErrors = {};
  for (const name of Object.keys(args)) if (!known.includes(name)) addError(errors, name, NOT_PERMITTED);
  throwIfErrors(errors);
}

/** A record id: a string, else no record has it (as an id REST cannot find). */
function idArg(args: Args, name = 'id'): string {
  const value = args[name];
  if (value === undefined) throw validationError({ [name]: ['is missing'] });
  if (typeof value !== 'string') throw new AppError('resource.not_found', 'No record has this id.');
  return value;
}

/** The record under the resource's body key, an object. */
function recordArg(args: Args, key: string, required = true): Record<string, unknown> {
  const value = args[key];
  if (value === undefined && !required) return {};
  if (value === undefined) throw validationError({ [key]: ['is missing'] });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw validationError({ [key]: ['must be an object'] });
  return value as Record<string, unknown>;
}

/** The etag argument (If-Match of REST): absent, the service answers precondition.required. */
function etagArg(args: Args): string | undefined {
  const value = args.etag;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validationError({ etag: ['must be a string'] });
  return value;
}

const LIST_CONTROLS = ['cursor', 'limit', 'sort', 'q'] as const;

/**
 * A list tool's arguments as the kernel's list request: the list parameters of the OpenAPI operation, by the same
 * names (`cursor`, `limit`, `sort`, `q`, `<filter>`, `<filter>[<operator>]`, `custom_fields[<definition id>]`).
 */
function listRequestOf(args: Args): ListRequestDraft {
  const request: ListRequestDraft = { filters: [], customFields: [] };
  const text = (name: string, value: unknown): string | string[] => {
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new AppError('filter.invalid', `${name}: must be a string`);
  };
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if ((LIST_CONTROLS as readonly string[]).includes(key)) {
      const given = text(key, value);
      if (Array.isArray(given)) throw new AppError('filter.invalid', `${key}: must be a string`);
      request[key as (typeof LIST_CONTROLS)[number]] = given;
      continue;
    }
    const m = /^([a-z_]+)(?:\[([^\][]+)\])?$/.exec(key);
    if (!m || (LIST_CONTROLS as readonly string[]).includes(m[1])) throw new AppError('filter.invalid', `unknown parameter: ${key}`);
    const [, field, modifier] = m;
    if (field === 'custom_fields') {
      const given = text(key, value);
      if (!modifier || Array.isArray(given)) throw new AppError('filter.invalid', `unknown parameter: ${key}`);
      request.customFields.push({ id: modifier, value: given });
      continue;
    }
    request.filters.push({ field, op: modifier, value: text(key, value) });
  }
  return request;
}

// ---- rendering: the REST wire format of the records ----

/** A record as REST serves it (JSON values: decimals as strings, dates as ISO text), with its download links. */
async function wired(domain: Domain, single: Single): Promise<Single> {
  const record = single.record;
  if (!hasAttachmentValues(record.custom_fields)) return single;
  const sign = await domain.attachments.signer();
  return new Single({ ...record, custom_fields: withDownloadLinks(record.custom_fields, sign) }, single.etag);
}

const json = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

function singleOutcome(def: ResourceDefinition, single: Single, verb: string): ToolOutcome {
  const record = json(single.record);
  const structured = { data: record, etag: single.etag };
  return { structured, text: `${def.className} ${String(record.id)} ${verb} (etag ${single.etag}).\n${JSON.stringify(record)}` };
}

function listOutcome(what: string, data: unknown[], hasMore: boolean, nextCursor: string | null): ToolOutcome {
  const structured = { data: json(data) as unknown as unknown[], has_more: hasMore, next_cursor: nextCursor };
  const more = hasMore ? ` More: call again with cursor "${nextCursor}".` : '';
  return { structured, text: `${data.length} ${what}.${more}\n${JSON.stringify(structured.data)}` };
}

// ---- schemas: the operation's input from the document ----

function objectSchema(properties: Record<string, JsonSchema>, required: string[]): JsonSchema {
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** The record's body member (under the body key) of an operation's request body, as the document describes it. */
function bodyMember(operation: DocumentedOperation | undefined, key: string): JsonSchema | undefined {
  const properties = operation?.body?.properties as Record<string, JsonSchema> | undefined;
  return properties?.[key] ?? operation?.body;
}

/** The list parameters (query) of an operation as tool properties, by their names in the document. */
function queryProperties(operation: DocumentedOperation | undefined): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const parameter of operation?.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    properties[parameter.name] = { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) };
  }
  return properties;
}

const idSchema = (noun: string): JsonSchema => ({ type: 'string', format: 'uuid', description: `Id of the ${noun} (UUID v7). Unknown or another account's: resource.not_found.` });
const etagSchema = (tool: string): JsonSchema => ({
  type: 'string',
  description: `The record's current etag, as get_${tool} (or the last write) answered it. Without it: precondition.required; stale (the record changed since): precondition.failed, read it again first.`,
});
const idempotencyKeySchema: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Required: a key of your choosing, unique per intended create (a UUID). A retry with the same key and arguments answers the first result again instead of creating twice; the same key with other arguments is idempotency_key.in_use. Kept 24 hours.',
};

const words = (name: string) => name.replace(/_/g, ' ');
const text = (...parts: (string | undefined)[]) => parts.filter(Boolean).map((part) => wireText(part!.trim())).join(' ');
const annotations = (title: string, kind: 'read' | 'create' | 'update' | 'delete', idempotent: boolean): ToolAnnotations => ({
  title,
  readOnlyHint: kind === 'read',
  destructiveHint: kind === 'delete',
  idempotentHint: kind === 'read' || idempotent,
  openWorldHint: false,
});

// ---- the standard operations of a resource ----

function resourceTools(domain: Domain, documented: DocumentedSchemas, def: ResourceDefinition, all: readonly ResourceDefinition[]): McpTool[] {
  const service = domain.resource(def.name);
  const tools: McpTool[] = [];
  const plural = restPath(def);
  const collection = `/${plural}`;
  const item = `/${plural}/{id}`;
  const key = bodyKeyOf(def);
  const noun = words(def.name);
  const about = def.description;
  const read: Scope[] = def.nested ? [] : [`${def.scope}:read` as Scope];
  const write: Scope[] = [`${def.scope}:write` as Scope];
  const readBucket: Bucket = def.rateBucket ?? 'read';
  const writeBucket: Bucket = def.rateBucket ?? 'write';

  if (serves(def, 'list')) {
    const operation = documented.operation('get', collection);
    const properties = queryProperties(operation);
    tools.push({
      name: `list_${def.plural}`,
      description: text(`List ${words(def.plural)}: a page, newest first unless sorted; has_more and next_cursor give the next page (pass cursor, keep the other arguments).`, about),
      inputSchema: objectSchema(properties, []),
      annotations: annotations(`List ${words(def.plural)}`, 'read', true),
      scopes: read,
      bucket: readBucket,
      async run({ ctx, args }) {
        onlyKnown(args, Object.keys(properties));
        const page = await service.list(ctx, listRequestOf(args));
        const data = await Promise.all(page.data.map(async (single) => (await wired(domain, single)).record));
        return listOutcome(words(def.plural), data, page.hasMore, page.nextCursor);
      },
    });
  }
  if (serves(def, 'get')) {
    tools.push({
      name: `get_${def.name}`,
      description: text(`Get one ${noun} by id, with its etag (pass it to update_${def.name} or delete_${def.name}).`, about),
      inputSchema: objectSchema({ id: idSchema(noun) }, ['id']),
      annotations: annotations(`Get a ${noun}`, 'read', true),
      scopes: read,
      bucket: readBucket,
      async run({ ctx, args }) {
        onlyKnown(args, ['id']);
        return singleOutcome(def, await wired(domain, await service.get(ctx, idArg(args))), 'read');
      },
    });
  }
  if (serves(def, 'create')) {
    const member = bodyMember(documented.operation('post', collection), key) ?? { type: 'object' };
    const properties: Record<string, JsonSchema> = { [key]: member };
    const required = [key];
    if (def.idempotentCreate) {
      properties.idempotency_key = idempotencyKeySchema;
      required.push('idempotency_key');
    }
    tools.push({
      name: `create_${def.name}`,
      description: text(`Create ${def.idempotentCreate ? 'an idempotent (financial) ' : 'a '}${noun}: its fields under "${key}".`, about),
      inputSchema: objectSchema(properties, required),
      annotations: annotations(`Create a ${noun}`, 'create', def.idempotentCreate === true),
      scopes: write,
      bucket: writeBucket,
      async run({ ctx, args }) {
        onlyKnown(args, Object.keys(properties));
        const values = recordArg(args, key);
        if (def.idempotentCreate && args.idempotency_key !== undefined) {
          // The same store and rules as REST's Idempotency-Key: keyed on the tool and its arguments.
          const request = { key: args.idempotency_key, method: 'MCP', path: `create_${def.name}`, body: { [key]: values } };
          const outcome = await domain.idempotency.run(ctx, request, (scoped) => service.create(scoped, values));
          const single = 'legacy' in outcome ? await service.get(ctx, outcome.legacy.recordId) : outcome.records[def.name];
          return singleOutcome(def, single, outcome.replayed ? 'created (replayed: this key was used before)' : 'created');
        }
        // Without a key a financial create is refused by the service (idempotency_key.required).
        return singleOutcome(def, await service.create(ctx, values), 'created');
      },
    });
  }
  if (serves(def, 'update')) {
    const member = bodyMember(documented.operation('patch', item), key) ?? { type: 'object' };
    tools.push({
      name: `update_${def.name}`,
      description: text(`Update a ${noun}: the fields to change under "${key}", and the etag of the version you read (a stale etag is refused: read again).`, about),
      inputSchema: objectSchema({ id: idSchema(noun), etag: etagSchema(def.name), [key]: member }, ['id', 'etag', key]),
      annotations: annotations(`Update a ${noun}`, 'update', true),
      scopes: write,
      bucket: writeBucket,
      async run({ ctx, args }) {
        onlyKnown(args, ['id', 'etag', key]);
        // As on REST, the record is found and the etag compared before the fields are read (404, then 412, then 422).
        const updated = await service.update(ctx, idArg(args), etagArg(args), () => recordArg(args, key));
        return singleOutcome(def, await wired(domain, updated), 'updated');
      },
    });
  }
  if (serves(def, 'delete')) {
    tools.push({
      name: `delete_${def.name}`,
      description: text(`Delete a ${noun}${def.conventions.softDelete ? ' (soft delete: no longer served)' : ''}, given the etag of the version you read.`, about),
      inputSchema: objectSchema({ id: idSchema(noun), etag: etagSchema(def.name) }, ['id', 'etag']),
      annotations: annotations(`Delete a ${noun}`, 'delete', true),
      scopes: write,
      bucket: writeBucket,
      async run({ ctx, args }) {
        onlyKnown(args, ['id', 'etag']);
        const id = idArg(args);
        await service.remove(ctx, id, etagArg(args));
        return { structured: { deleted: true, id }, text: `${def.className} ${id} deleted.` };
      },
    });
  }
  // A nested resource (notes): its list and create under each parent's record.
  for (const { type, parent } of parentsOf(def, all)) {
    const under = `/${restPath(parent)}/{id}/${def.plural}`;
    const parentNoun = words(parent.name);
    const listProperties = { id: idSchema(parentNoun), ...queryProperties(documented.operation('get', under)) };
    tools.push({
      name: `list_${parent.name}_${def.plural}`,
      description: text(`List the ${words(def.plural)} of a ${parentNoun} (id: the ${parentNoun}'s), paged as every list.`, about),
      inputSchema: objectSchema(listProperties, ['id']),
      annotations: annotations(`List the ${words(def.plural)} of a ${parentNoun}`, 'read', true),
      scopes: nestedScopes(def, parent, 'read'),
      bucket: readBucket,
      async run({ ctx, args }) {
        onlyKnown(args, Object.keys(listProperties));
        const { id: _id, ...rest } = args;
        const page = await service.listUnder(ctx, type, idArg(args), listRequestOf(rest));
        return listOutcome(words(def.plural), page.data.map((single) => single.record), page.hasMore, page.nextCursor);
      },
    });
    const member = bodyMember(documented.operation('post', under), key) ?? { type: 'object' };
    tools.push({
      name: `create_${parent.name}_${def.name}`,
      description: text(`Add a ${noun} to a ${parentNoun} (id: the ${parentNoun}'s): its fields under "${key}".`, about),
      inputSchema: objectSchema({ id: idSchema(parentNoun), [key]: member }, ['id', key]),
      annotations: annotations(`Add a ${noun} to a ${parentNoun}`, 'create', false),
      scopes: nestedScopes(def, parent, 'write'),
      bucket: writeBucket,
      async run({ ctx, args }) {
        onlyKnown(args, ['id', key]);
        return singleOutcome(def, await service.createUnder(ctx, type, idArg(args), recordArg(args, key)), 'created');
      },
    });
  }
  for (const action of def.actions ?? []) tools.push(actionTool(domain, documented, def, action));
  return tools;
}

// ---- declared actions ----

/** The action's input from the tool's arguments, as the action declares its body (the record under `key`). */
function actionInputOf(action: ActionDefinition, args: Args): ActionInput {
  const body = action.body;
  if (!body || 'empty' in body) return () => ({});
  return () => recordArg(args, body.key, body.required);
}

function actionTool(domain: Domain, documented: DocumentedSchemas, def: ResourceDefinition, action: ActionDefinition): McpTool {
  const path = `/${restPath(def)}/{id}${action.path}`;
  const operation = documented.operation(action.method, path);
  const properties: Record<string, JsonSchema> = { id: idSchema(words(def.name)) };
  const required = ['id'];
  for (const [name, description] of Object.entries(action.params ?? {})) {
    properties[name] = { type: 'string', description: wireText(description) };
    required.push(name);
  }
  const body = action.body && !('empty' in action.body) ? action.body : undefined;
  if (body) {
    properties[body.key] = { ...(bodyMember(operation, body.key) ?? { type: 'object' }), description: wireText(body.description) };
    if (body.required) required.push(body.key);
  }
  if (action.idempotent) {
    properties.idempotency_key = idempotencyKeySchema;
    required.push('idempotency_key');
  }
  const name = snakeCase(action.name);
  const kind = action.method === 'get' ? 'read' : action.method === 'delete' ? 'delete' : action.method === 'patch' ? 'update' : 'create';
  return {
    name,
    description: text(action.summary, action.description, action.response.description),
    inputSchema: objectSchema(properties, required),
    annotations: annotations(action.summary, kind, kind === 'read' || kind === 'delete' || action.idempotent === true),
    scopes: action.scopes,
    bucket: def.rateBucket ?? bucketOf(action.method),
    async run({ ctx, args }) {
      onlyKnown(args, Object.keys(properties));
      const id = idArg(args);
      const params = Object.fromEntries(Object.keys(action.params ?? {}).map((param) => [param, idArg(args, param)]));
      const call = (scoped: RequestContext) => action.run({ domain, ctx: scoped, id, params, input: actionInputOf(action, args) });
      if (action.idempotent && args.idempotency_key !== undefined) {
        const { idempotency_key: key, ...rest } = args;
        const outcome = await domain.idempotency.run(ctx, { key, method: 'MCP', path: name, body: rest }, call);
        if ('legacy' in outcome) return { structured: { data: JSON.parse(outcome.legacy.body).data ?? null }, text: `${action.summary}: done (replayed).` };
        return recordsOutcome(action, outcome.records, outcome.replayed);
      }
      return actionOutcome(action, await call(ctx));
    },
  };
}

function recordsOutcome(action: ActionDefinition, records: Record<string, Single>, replayed = false): ToolOutcome {
  const data = Object.fromEntries(Object.entries(records).map(([key, single]) => [key, json(single.record)]));
  const etags = Object.fromEntries(Object.entries(records).map(([key, single]) => [key, single.etag]));
  return { structured: { data, etags }, text: `${action.summary}: done${replayed ? ' (replayed: this key was used before)' : ''}.\n${JSON.stringify(data)}` };
}

function actionOutcome(action: ActionDefinition, result: unknown): ToolOutcome {
  const response = action.response;
  if (response.status === 204) return { structured: { done: true }, text: `${action.summary}: done.` };
  if ('records' in response) return recordsOutcome(action, result as Record<string, Single>);
  if ('list' in response) {
    const data = json(result) as unknown as unknown[];
    return { structured: { data, has_more: false, next_cursor: null }, text: `${action.summary}: ${data.length}.\n${JSON.stringify(data)}` };
  }
  const data = json(result);
  return { structured: { data }, text: `${action.summary}: done.\n${JSON.stringify(data)}` };
}

// ---- what is not a resource: the caller, the lookups, the system options ----

function handWrittenTools(): McpTool[] {
  const readAny = { scopes: [] as Scope[], bucket: 'read' as Bucket };
  const tools: McpTool[] = [
    {
      name: 'me',
      description: 'The caller: the account, the user and the API key (its scopes, the API version it is pinned to). Any valid key.',
      inputSchema: objectSchema({}, []),
      annotations: annotations('Who am I', 'read', true),
      ...readAny,
      async run({ ctx, args }) {
        onlyKnown(args, []);
        const data = json(describeCaller(ctx));
        return { structured: { data }, text: JSON.stringify(data) };
      },
    },
  ];
  for (const kind of Object.keys(lookupKinds) as LookupKind[]) {
    tools.push({
      name: `list_${kind}`,
      description: `The account's ${words(kind)} (tenant-configured lookups), all of them, not paged; related_name narrows them to one record class (e.g. Job). Any valid key.`,
      inputSchema: objectSchema({ related_name: { type: 'string', description: 'The record class the entries belong to (Job, Customer ...).' } }, []),
      annotations: annotations(`List ${words(kind)}`, 'read', true),
      ...readAny,
      async run({ domain, ctx, args }) {
        onlyKnown(args, ['related_name']);
        const relatedName = args.related_name === undefined ? undefined : String(args.related_name);
        const data = (await domain.lookups.list(ctx, kind, { relatedName })).data;
        return listOutcome(words(kind), data, false, null);
      },
    });
  }
  tools.push({
    name: 'list_system_options',
    description: 'The system options catalog (fixed choices of system fields), not paged; system_type narrows it to one type. Any valid key.',
    inputSchema: objectSchema({ system_type: { type: 'string', description: 'One system type.' } }, []),
    annotations: annotations('List system options', 'read', true),
    ...readAny,
    async run({ domain, args }) {
      onlyKnown(args, ['system_type']);
      const systemType = args.system_type === undefined ? undefined : String(args.system_type);
      const data = (await domain.lookups.systemOptions({ systemType })).data;
      return listOutcome('system options', data, false, null);
    },
  });
  return tools;
}

/** Every tool, by name: generated from the declarations, plus the few that are not resources. */
export function buildTools(domain: Domain, openapi: object): Map<string, McpTool> {
  const documented = new DocumentedSchemas(openapi);
  const definitions = [...domain.resources.values()].map((service) => service.def);
  const tools = [...handWrittenTools(), ...definitions.flatMap((def) => resourceTools(domain, documented, def, definitions))];
  const byName = new Map<string, McpTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`mcp: two tools are named ${tool.name}`);
    byName.set(tool.name, tool);
  }
  return byName;
}
