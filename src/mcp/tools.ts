import { type Domain, describeCaller, lookupKinds, type LookupKind } from '../domain.ts';
import type { ActionDefinition, ActionInput } from '../kernel/action.ts';
import { wireText } from '../kernel/api-text.ts';
import type { RequestContext } from '../kernel/context.ts';
import { nestedScopes, parentsOf } from '../kernel/nesting.ts';
import { bucketOf, type Bucket } from '../kernel/rate-limit.ts';
import { bodyKeyOf, restPath, serves, type ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import { snakeCase } from '../kernel/naming.ts';
import { DocumentedSchemas, type JsonSchema } from './documented-schemas.ts';
import { etagArg, idArg, listRequestOf, onlyKnown, recordArg, textParameter, type Args } from './tool-arguments.ts';
import { actionOutcome, listOutcome, recordsOutcome, singleOutcome, wired, wiredRecords, json, type ToolOutcome } from './tool-results.ts';
import { annotations, bodyMember, deletedSchema, doneSchema, etagSchema, idempotencyKeySchema, idSchema, objectSchema, outputOf, queryProperties, text, words, type ToolAnnotations } from './tool-schemas.ts';

// The MCP tools, generated from the resource declarations (src/domain.ts `resources`): for each resource the
// standard operations it serves (list_<plural>, get_<name>, create_<name>, update_<name>, delete_<name>), the list
// and create under each parent of a nested resource, and each declared action (convert_estimate ...). Nothing here
// is written per resource; a new declaration gets its tools by itself. Written by hand only what is not a
// resource: `me`, the lookups and the system options. Each tool calls the same service as the REST route it stands
// for, with the same values, and its input schema is that route's (the OpenAPI document: documented-schemas.ts).

export type { ToolOutcome } from './tool-results.ts';

export interface ToolCall {
  domain: Domain;
  ctx: RequestContext;
  args: Record<string, unknown>;
}

export interface McpTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  /** The structured content of a successful call: the REST answer's body as the document describes it (with the etag). */
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  /** Every scope the caller needs (tools/list shows the tool only to a key holding them all). */
  scopes: readonly Scope[];
  /** The rate bucket of the REST request the tool stands for. */
  bucket: Bucket;
  run(call: ToolCall): Promise<ToolOutcome>;
}

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
      outputSchema: outputOf(operation, null),
      annotations: annotations(`List ${words(def.plural)}`, 'read', true),
      scopes: read,
      bucket: readBucket,
      async run({ ctx, args }) {
        onlyKnown(args, Object.keys(properties));
        const page = await service.list(ctx, listRequestOf(args));
        return listOutcome(words(def.plural), await wiredRecords(domain, page.data), page.hasMore, page.nextCursor);
      },
    });
  }
  if (serves(def, 'get')) {
    tools.push({
      name: `get_${def.name}`,
      description: text(`Get one ${noun} by id, with its etag (pass it to update_${def.name} or delete_${def.name}).`, about),
      inputSchema: objectSchema({ id: idSchema(noun) }, ['id']),
      outputSchema: outputOf(documented.operation('get', item), 'etag'),
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
    const operation = documented.operation('post', collection);
    const member = bodyMember(operation, key) ?? { type: 'object' };
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
      outputSchema: outputOf(operation, 'etag'),
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
    const operation = documented.operation('patch', item);
    const member = bodyMember(operation, key) ?? { type: 'object' };
    tools.push({
      name: `update_${def.name}`,
      description: text(`Update a ${noun}: the fields to change under "${key}", and the etag of the version you read (a stale etag is refused: read again).`, about),
      inputSchema: objectSchema({ id: idSchema(noun), etag: etagSchema(def.name), [key]: member }, ['id', 'etag', key]),
      outputSchema: outputOf(operation, 'etag'),
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
      outputSchema: deletedSchema,
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
    const listOperation = documented.operation('get', under);
    const listProperties = { id: idSchema(parentNoun), ...queryProperties(listOperation) };
    tools.push({
      name: `list_${parent.name}_${def.plural}`,
      description: text(`List the ${words(def.plural)} of a ${parentNoun} (id: the ${parentNoun}'s), paged as every list.`, about),
      inputSchema: objectSchema(listProperties, ['id']),
      outputSchema: outputOf(listOperation, null),
      annotations: annotations(`List the ${words(def.plural)} of a ${parentNoun}`, 'read', true),
      scopes: nestedScopes(def, parent, 'read'),
      bucket: readBucket,
      async run({ ctx, args }) {
        onlyKnown(args, Object.keys(listProperties));
        const { id: _id, ...rest } = args;
        const page = await service.listUnder(ctx, type, idArg(args), listRequestOf(rest));
        return listOutcome(words(def.plural), await wiredRecords(domain, page.data), page.hasMore, page.nextCursor);
      },
    });
    const createOperation = documented.operation('post', under);
    const member = bodyMember(createOperation, key) ?? { type: 'object' };
    tools.push({
      name: `create_${parent.name}_${def.name}`,
      description: text(`Add a ${noun} to a ${parentNoun} (id: the ${parentNoun}'s): its fields under "${key}".`, about),
      inputSchema: objectSchema({ id: idSchema(parentNoun), [key]: member }, ['id', key]),
      outputSchema: outputOf(createOperation, 'etag'),
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

/**
 * The action's input from the tool's arguments, as the action declares it: its body (the record under `key`), or a
 * GET action's query parameters, each an argument by its name (null is omitted, as on the list tools).
 */
function actionInputOf(action: ActionDefinition, args: Args): ActionInput {
  const query = action.query;
  if (query) return () => Object.fromEntries(Object.keys(query.fields).filter((name) => args[name] != null).map((name) => [name, args[name]]));
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
  // A GET action's query parameters, as the document describes them.
  if (action.query) {
    Object.assign(properties, queryProperties(operation));
    for (const parameter of operation?.parameters ?? []) if (parameter.in === 'query' && parameter.required) required.push(parameter.name);
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
    outputSchema: action.response.status === 204 ? doneSchema : outputOf(operation, 'records' in action.response ? 'etags' : null),
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


// ---- what is not a resource: the caller, the lookups, the system options ----

function handWrittenTools(documented: DocumentedSchemas): McpTool[] {
  const readAny = { scopes: [] as Scope[], bucket: 'read' as Bucket };
  const tools: McpTool[] = [
    {
      name: 'me',
      description: 'The caller: the account, the user and the API key (its scopes, the API version it is pinned to). Any valid key.',
      inputSchema: objectSchema({}, []),
      outputSchema: outputOf(documented.operation('get', '/me'), null),
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
      outputSchema: outputOf(documented.operation('get', `/${kind}`), null),
      annotations: annotations(`List ${words(kind)}`, 'read', true),
      ...readAny,
      async run({ domain, ctx, args }) {
        onlyKnown(args, ['related_name']);
        const relatedName = textParameter(args, 'related_name');
        const data = (await domain.lookups.list(ctx, kind, { relatedName })).data;
        return listOutcome(words(kind), data, false, null);
      },
    });
  }
  tools.push({
    name: 'list_system_options',
    description: 'The system options catalog (fixed choices of system fields), not paged; system_type narrows it to one type. Any valid key.',
    inputSchema: objectSchema({ system_type: { type: 'string', description: 'One system type.' } }, []),
    outputSchema: outputOf(documented.operation('get', '/system_options'), null),
    annotations: annotations('List system options', 'read', true),
    ...readAny,
    async run({ domain, args }) {
      onlyKnown(args, ['system_type']);
      const systemType = textParameter(args, 'system_type');
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
  const tools = [...handWrittenTools(documented), ...definitions.flatMap((def) => resourceTools(domain, documented, def, definitions))];
  const byName = new Map<string, McpTool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`mcp: two tools are named ${tool.name}`);
    byName.set(tool.name, tool);
  }
  return byName;
}
