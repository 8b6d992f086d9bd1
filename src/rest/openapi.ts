import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { loadConfig } from '../config.ts';
import { resources } from '../domain.ts';
import { errorCatalog } from '../kernel/errors.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../kernel/listing.ts';
import { defaultBucketLimits } from '../kernel/rate-limit.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import { CURRENT_VERSION, supportedVersions, VERSION_HEADER } from '../kernel/versioning.ts';
import { lookupKinds, type LookupKind } from '../resources/lookups/lookup.service.ts';
import { byStatus, errorCatalogEntries, errorCodesOf, problemExample, type Operation } from './openapi-errors.ts';
import { extraComponents, extraOperations, type ExtraOperation, type SchemaRefs } from './openapi-operations.ts';
import {
  createSchema,
  listEnvelope,
  listQuerySchema,
  lookupQuerySchema,
  lookupSchema,
  meSchema,
  problemSchema,
  recordSchema,
  singleEnvelope,
  updateSchema,
} from './openapi-schemas.ts';

// GET /api/v2/openapi.json: an OpenAPI 3.1 document generated from the resource declarations (src/domain.ts
// `resources`), the kernel's field kinds, list rules and error catalog, for exactly the routes api-router.ts
// mounts. Nothing here is written per resource; a new declaration appears in the document by itself. Routes
// beyond the five standard ones (linkages, lead and estimate conversion, system options) are declared in openapi-operations.ts.

const BASE_PATH = '/api/v2';
const SCHEME = 'bearerAuth';

export interface OpenApiOptions {
  /** Base of the problem `type` and `doc_url` links (config ERRORS_URL); defaults to the configured default. */
  errorsUrl?: string;
  /** The API versions this server accepts (config API_VERSIONS); defaults to the built-in list. */
  versions?: readonly string[];
}

const pascal = (s: string) => s.replace(/(^|[_\s])([a-z])/g, (_m, _sep, c: string) => c.toUpperCase());
const camel = (s: string) => s.charAt(0).toLowerCase() + pascal(s).slice(1);
const words = (s: string) => s.replace(/_/g, ' ');
const title = (s: string) => words(s).replace(/(^|\s)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase());

function headerRef(name: string) {
  return { $ref: `#/components/headers/${name}` };
}

/** Builds the document. Deterministic: the same declarations give the same document on every call. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): object {
  const errorsUrl = options.errorsUrl ?? loadConfig({}).ERRORS_URL;
  const versions = [...(options.versions ?? supportedVersions)] as [string, ...string[]];
  const registry = new OpenAPIRegistry();

  // ---- security, headers, shared parameters ----
  registry.registerComponent('securitySchemes', SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'svc_<UUIDv7>',
    description:
      'Authorization: Bearer svc_<UUIDv7>. Scopes are <resource>:read and <resource>:write; a write scope implies the read scope of the same resource only. The scopes an operation needs (all of them) are listed in its security requirement and in x-required-scopes (and x-required-scope when there is one).',
  });
  const responseHeaders: Record<string, Parameters<typeof registry.registerComponent<'headers'>>[2]> = {
    'RateLimit-Limit': { description: 'Requests permitted in the current window of the bucket (read: GET; write: POST, PATCH, PUT, DELETE).', schema: { type: 'integer' } },
    'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
    'Retry-After': { description: 'Seconds to wait before retrying, with jitter.', schema: { type: 'integer' } },
    'X-Request-Id': { description: 'Correlation id of the request: the X-Request-Id sent when acceptable, otherwise generated.', schema: { type: 'string' } },
    ETag: { description: 'Weak tag W/"<updated_at epoch ms>-<lock_version>"; send it back in If-Match.', schema: { type: 'string', pattern: '^W/"\\d+-\\d+"$' } },
    Location: { description: 'Path of the created record.', schema: { type: 'string', format: 'uri-reference' } },
    Link: { description: 'Next page: <next_url>; rel="next". Absent when has_more is false.', schema: { type: 'string' } },
    'Cache-Control': { description: 'Always private, no-store.', schema: { type: 'string', const: 'private, no-store' } },
  };
  for (const [name, header] of Object.entries(responseHeaders)) registry.registerComponent('headers', name, header);

  const rateHeaders = { 'RateLimit-Limit': headerRef('RateLimit-Limit'), 'RateLimit-Remaining': headerRef('RateLimit-Remaining'), 'RateLimit-Reset': headerRef('RateLimit-Reset'), 'X-Request-Id': headerRef('X-Request-Id') };
  const withHeaders = (...names: string[]) => ({ ...rateHeaders, ...Object.fromEntries(names.map((n) => [n, headerRef(n)])) });

  const versionParam = registry.registerParameter(
    'FieldlineVersion',
    z.enum(versions).optional().openapi({
      param: {
        name: VERSION_HEADER,
        in: 'header',
        description: `API version (supported: ${versions.join(', ')}). Omitted: the version pinned on the key. Unknown value: 400 version.invalid.`,
      },
    }),
  );
  const requestIdParam = registry.registerParameter(
    'RequestId',
    z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,128}$/)
      .optional()
      .openapi({ param: { name: 'X-Request-Id', in: 'header', description: 'Optional correlation id; echoed on the response (a new one is generated when absent or not acceptable).' } }),
  );
  const ifMatchParam = registry.registerParameter(
    'IfMatch',
    z.string().openapi({
      param: {
        name: 'If-Match',
        in: 'header',
        required: true,
        description: 'The ETag of a prior GET, create or update. Missing: 428 precondition.required. Different from the current ETag: 412 precondition.failed.',
      },
    }),
  );
  const idParam = registry.registerParameter(
    'RecordId',
    z.string().openapi({ format: 'uuid', param: { name: 'id', in: 'path', description: 'Record id (UUID v7). Unknown or in another account: 404 resource.not_found.' } }),
  );
  /** A path parameter other than {id}, named and described by an extra operation. */
  const pathParam = (name: string, description: string) => z.string().openapi({ format: 'uuid', param: { name, in: 'path', description } });

  const problem = registry.register('Problem', problemSchema());

  // ---- responses ----
  const errorResponses = (op: Operation, path: string, scopes: string[]): Record<string, ResponseConfig> => {
    const bodyKey = op.kind === 'extra' ? op.extra.body?.key : 'def' in op ? op.def.name : undefined;
    const ctx = { instance: `${BASE_PATH}${path}`, scope: scopes[0] ?? null, bodyKey };
    const out: Record<string, ResponseConfig> = {};
    for (const [status, codes] of byStatus(errorCodesOf(op))) {
      const examples = Object.fromEntries(
        codes.map((code) => [code, { summary: errorCatalog[code].title, value: problemExample(code, ctx, errorsUrl) }]),
      );
      out[String(status)] = {
        description: codes.map((code) => `${code} (${errorCatalog[code].title})`).join('; '),
        headers: status === 429 ? withHeaders('Retry-After') : withHeaders(),
        content: { 'application/problem+json': { schema: problem, examples } },
        'x-error-codes': codes,
      } as ResponseConfig;
    }
    return out;
  };

  const scopeNote = (scopes: string[]) => {
    if (scopes.length === 0) return 'Needs a valid key; no scope.';
    if (scopes.length > 1) return `Scopes: ${scopes.join(' and ')} (all of them).`;
    const [scope] = scopes;
    return `Scope: ${scope}${scope.endsWith(':read') ? ` (or ${scope.replace(/:read$/, ':write')})` : ''}.`;
  };

  // The scopes an operation needs are all in one security requirement (all of them are needed), in
  // x-required-scopes, and, when there is one, in x-required-scope.
  const route = (op: Operation, config: Omit<RouteConfig, 'responses'> & { scopes: string[]; ok: Record<string, ResponseConfig> }) => {
    const { scopes, ok, ...rest } = config;
    const open = op.kind === 'openapi';
    const headers = [...((rest.request?.headers as z.ZodType[] | undefined) ?? []), ...(open ? [] : [versionParam]), requestIdParam];
    registry.registerPath({
      ...rest,
      description: `${rest.description ?? ''}\n\n${open ? 'No authentication.' : scopeNote(scopes)} Error codes: ${errorCodesOf(op).join(', ')}.`.trim(),
      security: open ? [] : [{ [SCHEME]: scopes }],
      ...(scopes.length === 1 ? { 'x-required-scope': scopes[0] } : {}),
      ...(scopes.length > 0 ? { 'x-required-scopes': scopes } : {}),
      request: { ...rest.request, headers },
      responses: { ...ok, ...errorResponses(op, rest.path, scopes) },
    });
  };

  // ---- identity ----
  const me = registry.register('Me', meSchema());
  route(
    { kind: 'me' },
    {
      method: 'get',
      path: '/me',
      operationId: 'getMe',
      tags: ['Identity'],
      summary: 'Who is calling',
      description: 'The account, the user, the key (id and granted scopes) and the resolved api_version. Read-only and idempotent.',
      scopes: [],
      ok: {
        200: {
          description: 'The caller.',
          headers: withHeaders('Cache-Control'),
          content: { 'application/json': { schema: registry.register('MeResponse', singleEnvelope(me)) } },
        },
      },
    },
  );

  // ---- lookups ----
  for (const kind of Object.keys(lookupKinds) as LookupKind[]) {
    const name = pascal(lookupKinds[kind].model);
    const row = registry.register(name, lookupSchema(kind));
    route(
      { kind: 'lookup' },
      {
        method: 'get',
        path: `/${kind}`,
        operationId: camel(`list_${kind}`),
        tags: ['Lookups'],
        summary: `List ${words(kind)}`,
        description: `Live ${words(kind)} of the account, filtered by related_name, ordered by related_name and position. Not paginated: has_more is always false.`,
        request: { query: lookupQuerySchema() },
        scopes: [],
        ok: {
          200: {
            description: `The ${words(kind)}.`,
            headers: withHeaders(),
            content: { 'application/json': { schema: registry.register(`${name}List`, listEnvelope(row, 'Always false: lookups are not paginated.')) } },
          },
        },
      },
    );
  }

  // ---- standard resources ----
  const records = new Map<string, z.ZodType>();
  for (const def of resources) registerResource(def);

  // ---- extra operations (openapi-operations.ts) ----
  const components = new Map<string, z.ZodType>();
  const definition = (name: string) => {
    const def = resources.find((d) => d.name === name);
    if (!def) throw new Error(`openapi: unknown resource ${name}`);
    return def;
  };
  const refs: SchemaRefs = {
    record: (name) => records.get(definition(name).name)!,
    definition,
    component: (name) => {
      const schema = components.get(name);
      if (!schema) throw new Error(`openapi: component ${name} is not declared before its use`);
      return schema;
    },
  };
  for (const [name, make] of Object.entries(extraComponents)) components.set(name, registry.register(name, make(refs)));
  for (const extra of extraOperations) registerExtra(extra);

  function registerExtra(extra: ExtraOperation) {
    const def = definition(extra.resource);
    const pathParams = (extra.path.match(/\{[a-z_]+\}/g) ?? []).map((p) => p.slice(1, -1));
    const params = Object.fromEntries(
      pathParams.map((name) => {
        if (name === 'id') return [name, idParam];
        const description = extra.params?.[name];
        if (!description) throw new Error(`openapi: ${extra.operationId} does not describe the path parameter ${name}`);
        return [name, pathParam(name, description)];
      }),
    );
    const { ok, body } = extra;
    route(
      { kind: 'extra', extra, includes: (extra.includes ?? []).map((i) => ({ kind: i.kind, def: definition(i.resource) })) },
      {
        method: extra.method,
        path: extra.path,
        operationId: extra.operationId,
        tags: [title(def.plural)],
        summary: extra.summary,
        description: extra.description,
        request: {
          ...(pathParams.length ? { params: z.object(params) } : {}),
          ...(extra.query ? { query: extra.query() } : {}),
          ...(body
            ? { body: { required: body.required, description: body.description, content: { 'application/json': { schema: body.schema(refs) } } } }
            : {}),
        },
        scopes: extra.scopes,
        ok: {
          [ok.status]: {
            description: ok.description,
            headers: withHeaders(...(ok.headers ?? [])),
            ...(ok.schema ? { content: { 'application/json': { schema: ok.schema(refs) } } } : {}),
          },
        },
      },
    );
  }

  function registerResource(def: ResourceDefinition) {
    const cls = def.className;
    const read = `${def.scope}:read`;
    const write = `${def.scope}:write`;
    const tags = [title(def.plural)];
    const record = registry.register(cls, recordSchema(def));
    records.set(def.name, record);
    const single = registry.register(`${cls}Response`, singleEnvelope(record));
    const list = registry.register(`${cls}List`, listEnvelope(record));
    const create = registry.register(`${cls}Create`, createSchema(def));
    const update = registry.register(`${cls}Update`, updateSchema(def));
    const createBody = registry.register(`${cls}CreateRequest`, z.object({ [def.name]: create }));
    const updateBody = registry.register(`${cls}UpdateRequest`, z.object({ [def.name]: update }));
    const collection = `/${def.plural}`;
    const item = `/${def.plural}/{id}`;
    const noun = words(def.name);
    const bodyNote = `The record travels under the key "${def.name}": a missing key gives 422 validation.failed with errors.${def.name} = ["is missing"], a non-object value ["must be an object"].`;

    const filters = Object.entries(def.list.filters)
      .map(([field, f]) => `${field} (${f.ops.map((op) => (op === 'eq' ? '=' : `[${op}]`)).join(', ')})`)
      .join(', ');
    route(
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
        ok: { 200: { description: `A page of ${words(def.plural)}.`, headers: withHeaders('Link'), content: { 'application/json': { schema: list } } } },
      },
    );
    route(
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
        ok: { 201: { description: `The created ${noun}.`, headers: withHeaders('ETag', 'Location'), content: { 'application/json': { schema: single } } } },
      },
    );
    route(
      { kind: 'get', def },
      {
        method: 'get',
        path: item,
        operationId: camel(`get_${def.name}`),
        tags,
        summary: `Get a ${noun}`,
        request: { params: z.object({ id: idParam }) },
        scopes: [read],
        ok: { 200: { description: `The ${noun}.`, headers: withHeaders('ETag'), content: { 'application/json': { schema: single } } } },
      },
    );
    route(
      { kind: 'update', def },
      {
        method: 'patch',
        path: item,
        operationId: camel(`update_${def.name}`),
        tags,
        summary: `Update a ${noun}`,
        description: `${bodyNote} If-Match is compared and the row written in one atomic statement.`,
        request: {
          params: z.object({ id: idParam }),
          headers: [ifMatchParam],
          body: { required: true, content: { 'application/json': { schema: updateBody } } },
        },
        scopes: [write],
        ok: { 200: { description: `The updated ${noun}.`, headers: withHeaders('ETag'), content: { 'application/json': { schema: single } } } },
      },
    );
    route(
      { kind: 'delete', def },
      {
        method: 'delete',
        path: item,
        operationId: camel(`delete_${def.name}`),
        tags,
        summary: `Delete a ${noun}`,
        description: def.conventions.softDelete ? 'Soft delete: the record is discarded and no longer served.' : 'Deletes the record.',
        request: { params: z.object({ id: idParam }), headers: [ifMatchParam] },
        scopes: [write],
        ok: { 204: { description: 'Deleted.', headers: withHeaders() } },
      },
    );
  }

  // ---- this document ----
  route(
    { kind: 'openapi' },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      tags: ['Meta'],
      summary: 'This OpenAPI document',
      description: 'Generated from the resource declarations and served without authentication.',
      scopes: [],
      ok: { 200: { description: 'The OpenAPI 3.1 document.', headers: withHeaders(), content: { 'application/json': { schema: z.object({}).passthrough() } } } },
    },
  );
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Fieldline API', version: CURRENT_VERSION, description: infoDescription(errorsUrl, versions) },
    servers: [{ url: BASE_PATH, description: 'This server' }],
    security: [{ [SCHEME]: [] }],
    tags: [
      { name: 'Identity', description: 'The caller.' },
      { name: 'Lookups', description: 'Tenant-configured statuses, labels and custom field definitions.' },
      ...resources.map((def) => ({ name: title(def.plural), description: def.description })),
      { name: 'Meta', description: 'This document.' },
    ],
  });
  return { ...document, 'x-error-codes': errorCatalogEntries(errorsUrl) };
}

function infoDescription(errorsUrl: string, versions: readonly string[]): string {
  const rows = errorCatalogEntries(errorsUrl).map((e) => `| ${e.code} | ${e.status} | ${e.title} |`);
  return [
    'Multi-tenant field-service management API. Every path is under /api/v2 and, except this document, needs `Authorization: Bearer svc_<UUIDv7>`.',
    '',
    '- Single records are `{data}`, lists `{data, has_more}`; JSON is snake_case; ids are UUID v7 strings (user ids are int64).',
    `- Versioning: the ${VERSION_HEADER} request header selects the version (supported: ${versions.join(', ')}); without it the key's pinned version applies.`,
    `- Rate limits per key (per source IP when unauthenticated): read ${defaultBucketLimits.read}/min on GET, write ${defaultBucketLimits.write}/min on POST, PATCH, PUT, DELETE. Every response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; 429 rate_limit.exceeded adds Retry-After.`,
    '- Concurrency: create, get and update return a weak ETag; PATCH and DELETE need it in If-Match (428 precondition.required, 412 precondition.failed).',
    '- Success codes: create 201 with Location, get and update 200, delete 204.',
    `- Errors are application/problem+json (RFC 9457) with type, title, status, code, detail, instance, request_id and doc_url (${errorsUrl}/<code with dots and underscores as dashes>). Unmatched /api/v2 paths answer 404 route.not_found; a known path with another method 405 method.not_allowed with Allow. The catalog is also in x-error-codes.`,
    '',
    '| code | status | title |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}
