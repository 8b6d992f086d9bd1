import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { bodyKeyOf, lookupClassOf, restPath, serves } from '../../src/kernel/resource.ts';
import { parentsOf } from '../../src/kernel/nesting.ts';
import { errorCatalog } from '../../src/kernel/errors.ts';
import { supportedVersions } from '../../src/kernel/versioning.ts';
import { lookupKinds } from '../../src/resources/lookups/lookup.service.ts';
import { createAnswers } from '../../src/rest/openapi-operations.ts';
import { buildOpenApiDocument } from '../../src/rest/openapi/document.ts';
import { highRateLimits, startTestApp, type TestApp } from '../helpers/app.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { createRecord, ifMatch } from '../helpers/factories/records.ts';
import { createSite } from '../helpers/factories/sites.ts';
import { systemOptionIds } from '../helpers/factories/systems.ts';
import { expectProblem } from '../helpers/problem.ts';
import { client, type Client } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';
import { eventSchemas } from '../../src/events/event-schemas.ts';

let t: TestApp;
let anonymous: Client;
let served: { status: number; headers: Headers; body: any; text: string };
let doc: any;
/** The webhook receiver that verifies the endpoints this file registers (the real create runs the handshake). */
let receiver: Receiver | undefined;

beforeAll(async () => {
  // Webhook endpoints are created for real: the app must reach a receiver on 127.0.0.1, and every request under
  // /webhooks counts in webhook_ingest.
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, rateLimits: { ...highRateLimits, webhook_ingest: 100_000 } });
  anonymous = client(`${t.url}/api/v2`, undefined);
  served = await anonymous.get('/openapi.json');
  doc = served.body;
});
afterAll(async () => {
  await t.close();
  await receiver?.close();
});

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
const operations = () =>
  Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) =>
    methods.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
const schema = (name: string) => doc.components.schemas[name];
const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc) : node);
/** A component schema with each property resolved: a body refers to the record's or the create body's description of a field. */
const resolved = (name: string) => {
  const component = schema(name);
  return { ...component, properties: Object.fromEntries(Object.entries(component.properties).map(([key, property]) => [key, deref(property)])) };
};
/** The parameters of an operation, resolved: those of its path item (shared by its operations), then its own. */
/** The resources that serve all five standard operations (a ledger or a derived table serves fewer: ResourceDefinition.operations). */
const fullResources = resources.filter((def) => (['list', 'create', 'get', 'update', 'delete'] as const).every((op) => serves(def, op)));
const parametersOf = (path: string, op: any): any[] => [...(doc.paths[path].parameters ?? []), ...(op.parameters ?? [])].map(deref);
/** An operation's responses by status, each resolved (error responses are shared components). */
const responses = (op: any): Record<string, any> => Object.fromEntries(Object.entries(op.responses).map(([status, response]) => [status, deref(response)]));
const SOME_ID = '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23';
const concretePath = (path: string) => path.replace(/\{[a-z_]+\}/g, SOME_ID);
const requestSchema = (path: string, method: string) => deref(doc.paths[path][method].requestBody.content['application/json'].schema);
const okSchemaRef = (path: string, method: string, status: string) => responses(doc.paths[path][method])[status].content['application/json'].schema.$ref;
/** The collection and record paths of a resource, as documented and mounted (restPath: the plural unless declared). */
/** A nested resource (notes) is listed under each parent's record: its first parent's path stands for them. */
const firstParent = (def: (typeof resources)[number]) => parentsOf(def, resources)[0]?.parent;
const collectionPath = (def: (typeof resources)[number]) => {
  const parent = firstParent(def);
  return parent ? `/${restPath(parent)}/{id}/${def.plural}` : `/${restPath(def)}`;
};
/** The collection path to request: a nested resource's under a live parent record (made once per client). */
async function requestedCollection(api: Client, def: (typeof resources)[number]): Promise<string> {
  const parent = firstParent(def);
  if (!parent) return collectionPath(def);
  const made = await api.post(`/${restPath(parent)}`, { [bodyKeyOf(parent)]: requiredFields(`${parent.className}Create`) });
  expect(made.status, made.text).toBe(201);
  return collectionPath(def).replace('{id}', made.body.data.id);
}
const itemPath = (def: (typeof resources)[number]) => `/${restPath(def)}/{id}`;
/** The body of a create's 201: the record, or the record and what the create answer adds (a webhook endpoint's secret). */
const createdName = (def: (typeof resources)[number]) => (createAnswers[def.name] ? `${def.className}CreatedResponse` : `${def.className}Response`);

/** "METHOD /path" of every route the /api/v2 router mounts, read from the express router itself. */
function mountedRoutes(): string[] {
  const layers: any[] = (t.app.express as any).router.stack;
  const api = layers.find((layer) => layer.handle?.stack?.some((l: any) => l.route?.path === '/me'));
  expect(api, 'the /api/v2 router').toBeDefined();
  return api.handle.stack
    .filter((layer: any) => layer.route)
    .flatMap((layer: any) =>
      Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${layer.route.path.replace(/:([a-z_]+)/g, '{$1}')}`),
    );
}

/**
 * The problems a served value has against a documented schema (the subset of JSON Schema the document uses:
 * $ref, anyOf, allOf of objects, type, enum, format uuid/date-time, pattern, items, properties with required, additionalProperties).
 * Objects with properties must carry exactly the documented keys.
 */
function mismatches(value: any, node: any, at: string): string[] {
  node = deref(node);
  // allOf of objects (a record extended by what a create answer adds): one object with every branch's members.
  if (node.allOf) {
    const branches = node.allOf.map(deref);
    node = { type: 'object', properties: Object.assign({}, ...branches.map((b: any) => b.properties)), required: branches.flatMap((b: any) => b.required ?? []) };
  }
  if (node.anyOf) return node.anyOf.some((branch: any) => mismatches(value, branch, at).length === 0) ? [] : [`${at}: matches no anyOf branch`];
  const actual = value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  const types: string[] | null = node.type === undefined ? null : [node.type].flat();
  if (types && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return [`${at}: ${actual} is not ${types.join('|')}`];
  if (node.enum && !node.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(node.enum)}`];
  if (typeof value === 'string' && node.format === 'uuid' && !/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(value)) return [`${at}: not a UUID v7`];
  if (typeof value === 'string' && node.format === 'date-time' && Number.isNaN(Date.parse(value))) return [`${at}: not a date-time`];
  if (typeof value === 'string' && node.pattern && !new RegExp(node.pattern, 'u').test(value)) return [`${at}: ${JSON.stringify(value)} does not match ${node.pattern}`];
  if (actual === 'array' && node.items) return value.flatMap((item: any, i: number) => mismatches(item, node.items, `${at}[${i}]`));
  if (actual === 'object' && node.properties) {
    const documented = Object.keys(node.properties).sort();
    const served = Object.keys(value).sort();
    if (JSON.stringify(documented) !== JSON.stringify(served)) return [`${at}: keys ${served.join(',')} are not the documented ${documented.join(',')}`];
    const missing = (node.required ?? []).filter((k: string) => !(k in value));
    if (missing.length) return [`${at}: missing ${missing.join(',')}`];
    return Object.entries(node.properties).flatMap(([k, sub]) => mismatches(value[k], sub, `${at}.${k}`));
  }
  if (actual === 'object' && typeof node.additionalProperties === 'object') {
    return Object.entries(value).flatMap(([k, v]) => mismatches(v, node.additionalProperties, `${at}.${k}`));
  }
  return [];
}

/**
 * A create body of only the required fields of a documented create schema, each a plain value its schema accepts
 * (enum, text, date, number, boolean; text whose pattern it matches). A required reference (an id) has no plain
 * value: such a resource needs a record made by hand.
 */
function requiredFields(component: string): Record<string, unknown> {
  const body = schema(component);
  const sample = (node: any, field: string): unknown => {
    node = deref(node);
    if (node.enum) return node.enum[0];
    if (node.anyOf) return sample(node.anyOf.find((branch: any) => deref(branch).type === 'number') ?? node.anyOf[0], field);
    switch ([node.type].flat()[0]) {
      case 'string':
        if (node.format === 'uuid') break;
        {
          const value = ({ date: '2026-01-01', 'date-time': '2026-01-01T00:00:00Z', email: 'sample@example.test' } as Record<string, string>)[node.format] ?? 'Sample';
          // A pattern the plain value matches (non-blank text: \S) keeps it plain; any other pattern has no plain value.
          if (node.pattern && !new RegExp(node.pattern, 'u').test(value)) break;
          return value;
        }
      case 'number':
      case 'integer':
        return node.minimum ?? 1;
      case 'boolean':
        return true;
    }
    throw new Error(`${component}.${field} has no plain sample value: make a record of this resource by hand`);
  };
  return Object.fromEntries((body.required ?? []).map((field: string) => [field, sample(body.properties[field], field)]));
}

describe('GET /api/v2/openapi.json', () => {
  it('is served without authentication as application/json with rate-limit headers', () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(served.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(served.headers.get('x-request-id')).toBeTruthy();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.specification).toBe('OpenAPI');
  });

  it('would be rejected by the validator with a response lacking its description (the validation is not vacuous)', async () => {
    const broken = structuredClone(doc);
    delete broken.paths['/customers'].get.responses['200'].description;
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });

  it('is deterministic: the same on every request and on every fresh build', async () => {
    const again = await anonymous.get('/openapi.json');
    expect(again.text).toBe(JSON.stringify(doc));
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(buildOpenApiDocument()));
    expect(buildOpenApiDocument()).toEqual(doc);
  });
});

describe('info', () => {
  it('names the publisher and the terms: the Fieldline API team, a proprietary license (an SPDX LicenseRef)', () => {
    expect(doc.info.license).toEqual({ name: 'Proprietary', identifier: 'LicenseRef-Proprietary' });
    // Without PUBLIC_URL the server has no absolute URL for its reference page, and contact.url must be absolute.
    expect(doc.info.contact).toEqual({ name: 'Fieldline API team' });
    expect(buildOpenApiDocument({ publicUrl: 'https://api.example.com/base' })).toMatchObject({
      info: { contact: { name: 'Fieldline API team', url: 'https://api.example.com/base/docs' } },
    });
  });
});

describe('size', () => {
  it('refers each operation to the shared error responses and list parameters, and each code\'s example is written once', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) >= 400) expect(response, `${method} ${path} ${status}`).toEqual({ $ref: expect.stringMatching(/^#\/components\/responses\/Problem\d{3}/) });
      }
    }
    for (const def of resources) {
      const list = doc.paths[collectionPath(def)];
      const shared = [...(list.parameters ?? []), ...(list.get.parameters ?? [])].filter((p: any) => p.$ref).map((p: any) => p.$ref);
      expect(shared, def.plural).toEqual(expect.arrayContaining(['#/components/parameters/Cursor', '#/components/parameters/Limit']));
    }
    const problemExamples = Object.keys(doc.components.examples).filter((name) => name in errorCatalog);
    expect(served.text.match(/"request_id":"/g)?.length).toBe(problemExamples.length);
  });

  it('states once what operations share: the record response of get and update, the 204, the parameters of a path', () => {
    for (const def of fullResources) {
      const item = doc.paths[itemPath(def)];
      expect(item.get.responses['200'], def.plural).toEqual({ $ref: `#/components/responses/${def.className}` });
      expect(item.patch.responses['200'], def.plural).toEqual({ $ref: `#/components/responses/${def.className}` });
      expect(item.delete.responses['204'], def.plural).toEqual({ $ref: '#/components/responses/Deleted' });
      expect(item.parameters.map((p: any) => p.$ref), def.plural).toEqual(['RecordId', 'FieldlineVersion', 'RequestId'].map((name) => `#/components/parameters/${name}`));
      expect(item.get.parameters, def.plural).toBeUndefined();
    }
  });

  it('describes each field once: a body property that would read as the record\'s or the create body\'s refers to it', () => {
    const inline = (component: string) => Object.entries(schema(component).properties as Record<string, any>).filter(([, property]) => !property.$ref);
    for (const def of fullResources) {
      const record = schema(def.className).properties;
      const create = schema(`${def.className}Create`).properties;
      for (const [name, property] of inline(`${def.className}Create`)) expect(property, `${def.className}Create.${name}`).not.toEqual(record[name]);
      for (const [name, property] of inline(`${def.className}Update`)) {
        expect(property, `${def.className}Update.${name}`).not.toEqual(record[name]);
        expect(property, `${def.className}Update.${name}`).not.toEqual(create[name]);
      }
    }
    expect(inline('ConvertLeadCustomer')).toEqual([]);
  });

  // What operations share is stated once (responses, parameters, headers and examples as components; list, body,
  // decimal and error conventions in the info) and each field is described once; the rest is what partners read.
  // With the ten resources of issue 13 (62 operations) that was 249 KB, about 4.0 KB an operation: the budget is
  // per operation, so the document grows with the API but never by repeating what is shared.
  // The webhooks section (one delivery per topic, with its event schemas) has its own budget per topic
  // (test/rest/openapi-webhooks.test.ts) and is left out here.
  it('stays under 4.2 KB of JSON per operation', () => {
    const operations = Object.values<any>(doc.paths).flatMap((item) => ['get', 'post', 'patch', 'put', 'delete'].filter((method) => item[method]));
    const events = Buffer.byteLength(JSON.stringify(doc.webhooks)) + Object.keys(eventSchemas()).reduce((sum, name) => sum + Buffer.byteLength(JSON.stringify(doc.components.schemas[name])), 0);
    expect((Buffer.byteLength(served.text) - events) / operations.length).toBeLessThan(4_200);
  });
});

describe('routes', () => {
  it('documents every route the REST adapter mounts, with its methods, and nothing else', () => {
    const mounted = mountedRoutes();
    const documented = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(documented.sort()).toEqual([...new Set(mounted)].sort());
    expect(mounted).toEqual(
      expect.arrayContaining([
        'GET /me',
        ...Object.keys(lookupKinds).map((kind) => `GET /${kind}`),
        ...resources.flatMap((def) =>
          (
            [
              ['list', `GET ${collectionPath(def)}`],
              ['create', `POST ${collectionPath(def)}`],
              ['get', `GET ${itemPath(def)}`],
              ['update', `PATCH ${itemPath(def)}`],
              ['delete', `DELETE ${itemPath(def)}`],
            ] as const
          ).flatMap(([op, route]) => (serves(def, op) ? [route] : [])),
        ),
        'GET /contacts/{id}/linkages',
        'POST /contacts/{id}/linkages',
        'PATCH /contacts/{id}/linkages/{linkage_id}',
        'DELETE /contacts/{id}/linkages/{linkage_id}',
        'POST /leads/{id}/convert',
        'POST /estimates/{id}/convert',
        'GET /system_options',
        'GET /webhooks/available_topics',
        'GET /events',
        'GET /openapi.json',
        'GET /asyncapi.json',
      ]),
    );
    // The declarations the document and the loops of this file read are the resources the app serves, and there are some.
    expect(resources.length).toBeGreaterThan(0);
    expect([...t.app.domain.resources.values()].map((service) => service.def)).toEqual(resources);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/api/v2' })]);
  });

  it('lists for every documented path the same methods the server allows (405 Allow)', async () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      // A method the path does not take (PUT, except on the attachment paths, which take it).
      const res = await anonymous.request(item.put ? 'POST' : 'PUT', concretePath(path));
      expect(res.status, path).toBe(405);
      const allowed = res.headers.get('allow')!.split(',').map((m) => m.trim().toLowerCase()).sort();
      expect(allowed, path).toEqual(methods.filter((m) => item[m]).sort());
    }
  });

  it('describes every path parameter of every operation', () => {
    for (const { path, method, op } of operations()) {
      const inPath = (path.match(/\{[a-z_]+\}/g) ?? []).map((p) => p.slice(1, -1));
      const documented = parametersOf(path, op).filter((p: any) => p.in === 'path');
      expect(documented.map((p: any) => p.name).sort(), `${method} ${path}`).toEqual(inPath.sort());
      for (const p of documented) {
        expect(p.required, `${method} ${path} ${p.name}`).toBe(true);
        expect(deref(p.schema)).toMatchObject({ type: 'string', format: 'uuid' });
        expect(p.description).toContain('404 resource.not_found');
      }
    }
  });

  it('gives every operation a unique operationId, a tag and the rate-limit and request-id headers on every response', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations()) {
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(responses(op))) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id']));
        if (status === '429') expect(headers).toContain('Retry-After');
      }
    }
  });

  it('answers create 201 with Location and ETag, get and update 200 with ETag, delete 204, and lists with Link', () => {
    for (const def of fullResources) {
      const collection = doc.paths[collectionPath(def)];
      const item = doc.paths[itemPath(def)];
      expect(Object.keys(responses(collection.post)['201'].headers)).toEqual(expect.arrayContaining(['ETag', 'Location']));
      expect(responses(collection.post)['201'].content['application/json'].schema.$ref).toBe(`#/components/schemas/${createdName(def)}`);
      // What a create answer adds is stated beside the record, which it refers to (not a copy of it).
      const answer = createAnswers[def.name];
      if (answer) {
        expect(schema(createdName(def)).properties.data.allOf, def.plural).toEqual([
          { $ref: `#/components/schemas/${def.className}` },
          expect.objectContaining({ type: 'object', properties: Object.fromEntries(Object.keys(answer.fields).map((name) => [name, expect.any(Object)])), required: Object.keys(answer.fields) }),
        ]);
      }
      expect(responses(collection.post)['200']).toBeUndefined();
      expect(Object.keys(responses(item.get)['200'].headers)).toContain('ETag');
      expect(Object.keys(responses(item.patch)['200'].headers)).toContain('ETag');
      expect(responses(item.delete)['204']).toBeDefined();
      expect(responses(item.delete)['204'].content).toBeUndefined();
      expect(Object.keys(responses(collection.get)['200'].headers)).toContain('Link');
      expect(responses(collection.get)['200'].content['application/json'].schema.$ref).toBe(`#/components/schemas/${def.className}List`);
      expect(schema(`${def.className}List`).required).toEqual(['data', 'has_more', 'next_cursor']);
      expect(resolved(`${def.className}List`).properties.next_cursor.type).toEqual(['string', 'null']);
    }
  });

  it('requires If-Match on PATCH and DELETE and documents 412 and 428 there', () => {
    for (const def of fullResources) {
      for (const method of ['patch', 'delete']) {
        const op = doc.paths[itemPath(def)][method];
        const ifMatch = parametersOf(itemPath(def), op).find((p: any) => p.name === 'If-Match');
        expect(ifMatch).toMatchObject({ in: 'header', required: true });
        expect(responses(op)['412']['x-error-codes']).toEqual(['precondition.failed']);
        expect(responses(op)['428']['x-error-codes']).toEqual(['precondition.required']);
      }
    }
  });

  it('takes no If-Match on the linkage endpoints and lists no 412 or 428 there', () => {
    for (const { path, method, op } of operations().filter((o) => o.path.includes('/linkages'))) {
      expect(parametersOf(path, op).map((p: any) => p.name), `${method} ${path}`).not.toContain('If-Match');
      expect(responses(op)['412'], `${method} ${path}`).toBeUndefined();
      expect(responses(op)['428'], `${method} ${path}`).toBeUndefined();
    }
  });

  it('documents the linkage routes: list {data, has_more, next_cursor} oldest first, create 201 with Location, update 200, delete 204', () => {
    const list = doc.paths['/contacts/{id}/linkages'].get;
    expect(okSchemaRef('/contacts/{id}/linkages', 'get', '200')).toBe('#/components/schemas/ContactLinkageList');
    expect(schema('ContactLinkageList')).toMatchObject({
      required: ['data', 'has_more', 'next_cursor'],
      properties: { data: { items: { $ref: '#/components/schemas/ContactLinkage' } }, next_cursor: { type: 'null' } },
    });
    expect(list.description).toContain('oldest first');
    expect(parametersOf('/contacts/{id}/linkages', list).filter((p: any) => p.in === 'query')).toEqual([]);
    const create = doc.paths['/contacts/{id}/linkages'].post;
    expect(create.requestBody.required).toBe(true);
    // Both shapes: the fields themselves, as the spec lists them, or under the key "linkage".
    expect(requestSchema('/contacts/{id}/linkages', 'post').anyOf).toEqual([
      { $ref: '#/components/schemas/CreateContactLinkageFields' },
      expect.objectContaining({ required: ['linkage'], properties: { linkage: { $ref: '#/components/schemas/CreateContactLinkageFields' } } }),
    ]);
    expect(Object.keys(responses(create)['201'].headers)).toEqual(expect.arrayContaining(['Location']));
    expect(Object.keys(responses(create)['201'].headers)).not.toContain('ETag');
    expect(okSchemaRef('/contacts/{id}/linkages', 'post', '201')).toBe('#/components/schemas/ContactLinkageResponse');
    const item = doc.paths['/contacts/{id}/linkages/{linkage_id}'];
    expect(requestSchema('/contacts/{id}/linkages/{linkage_id}', 'patch').anyOf.map((shape: any) => shape.$ref ?? shape.properties.linkage.$ref)).toEqual([
      '#/components/schemas/UpdateContactLinkageFields',
      '#/components/schemas/UpdateContactLinkageFields',
    ]);
    expect(okSchemaRef('/contacts/{id}/linkages/{linkage_id}', 'patch', '200')).toBe('#/components/schemas/ContactLinkageResponse');
    expect(responses(item.delete)['204']).toBeDefined();
    expect(responses(item.delete)['204'].content).toBeUndefined();
    expect(item.delete.requestBody).toBeUndefined();
  });

  it('documents the lead conversion: an optional {customer} body, 201 {data: {lead, customer}} with the customer\'s Location', () => {
    const convert = doc.paths['/leads/{id}/convert'].post;
    expect(convert.requestBody.required).toBe(false);
    const body = requestSchema('/leads/{id}/convert', 'post');
    expect(body.required).toBeUndefined();
    expect(body.properties.customer.$ref).toBe('#/components/schemas/ConvertLeadCustomer');
    const customer = schema('ConvertLeadCustomer');
    expect(customer.required).toBeUndefined();
    expect(Object.keys(customer.properties).sort()).toEqual(Object.keys(schema('CustomerCreate').properties).sort());
    expect(customer.additionalProperties).toBe(false);
    expect(Object.keys(responses(convert)['201'].headers)).toContain('Location');
    expect(okSchemaRef('/leads/{id}/convert', 'post', '201')).toBe('#/components/schemas/ConvertLeadResponse');
    expect(schema('ConvertLeadResponse').properties.data).toMatchObject({
      required: ['lead', 'customer'],
      properties: { lead: { $ref: '#/components/schemas/Lead' }, customer: { $ref: '#/components/schemas/Customer' } },
    });
  });

  it('documents the estimate conversion: no body or {}, 201 {data: {estimate, job}} with the job\'s Location', () => {
    const convert = doc.paths['/estimates/{id}/convert'].post;
    expect(convert.tags).toEqual(['Estimates']);
    expect(convert.requestBody.required).toBe(false);
    expect(requestSchema('/estimates/{id}/convert', 'post')).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
    expect(Object.keys(responses(convert)['201'].headers)).toContain('Location');
    expect(Object.keys(responses(convert)['201'].headers)).not.toContain('ETag');
    expect(okSchemaRef('/estimates/{id}/convert', 'post', '201')).toBe('#/components/schemas/ConvertEstimateResponse');
    expect(schema('ConvertEstimateResponse').properties.data).toMatchObject({
      required: ['estimate', 'job'],
      properties: { estimate: { $ref: '#/components/schemas/Estimate' }, job: { $ref: '#/components/schemas/Job' } },
    });
  });

  it('documents the Fieldline-Version request header with the supported versions on every authenticated operation', () => {
    for (const { path, method, op } of operations()) {
      const version = parametersOf(path, op).find((p: any) => p.name === 'Fieldline-Version');
      if (path === '/openapi.json' || path === '/asyncapi.json') {
        expect(version).toBeUndefined();
        continue;
      }
      expect(version, `${method} ${path}`).toMatchObject({ in: 'header', required: false });
      expect(deref(version.schema).enum).toEqual([...supportedVersions]);
    }
  });
});

describe('security', () => {
  it('declares the bearer scheme with the svc_<UUIDv7> format and notes each operation\'s scope', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'svc_<UUIDv7>' });
    for (const def of resources) {
      const read = `${def.scope}:read`;
      const write = `${def.scope}:write`;
      // A nested resource's list needs its parent's read scope; its record's scope is known once it is found.
      const listRead = firstParent(def) ? `${firstParent(def)!.scope}:read` : read;
      expect(doc.paths[collectionPath(def)].get['x-required-scopes']).toEqual([listRead]);
      expect(doc.paths[collectionPath(def)].get.security).toEqual([{ bearerAuth: [listRead] }]);
      expect(doc.paths[itemPath(def)].get['x-required-scopes']).toEqual(def.nested ? undefined : [read]);
      if (def.nested) expect(doc.paths[collectionPath(def)].post['x-required-scopes']).toEqual([write, listRead]);
      if (serves(def, 'create')) expect(doc.paths[collectionPath(def)].post['x-required-scopes']).toEqual([write]);
      if (serves(def, 'update')) expect(doc.paths[itemPath(def)].patch['x-required-scopes']).toEqual([write]);
      if (serves(def, 'delete')) expect(doc.paths[itemPath(def)].delete['x-required-scopes']).toEqual([write]);
    }
    for (const path of ['/me', ...Object.keys(lookupKinds).map((kind) => `/${kind}`), '/system_options']) {
      expect(doc.paths[path].get['x-required-scopes']).toBeUndefined();
      expect(doc.paths[path].get.security).toEqual([{ bearerAuth: [] }]);
    }
  });

  it('notes the scopes of the linkage routes and both scopes of the conversion', () => {
    expect(doc.paths['/contacts/{id}/linkages'].get.security).toEqual([{ bearerAuth: ['contacts:read'] }]);
    for (const [path, method] of [['/contacts/{id}/linkages', 'post'], ['/contacts/{id}/linkages/{linkage_id}', 'patch'], ['/contacts/{id}/linkages/{linkage_id}', 'delete']]) {
      expect(doc.paths[path][method]['x-required-scopes'], `${method} ${path}`).toEqual(['contacts:write']);
      expect(doc.paths[path][method].security).toEqual([{ bearerAuth: ['contacts:write'] }]);
    }
    for (const [path, scopes] of [['/leads/{id}/convert', ['leads:write', 'customers:write']], ['/estimates/{id}/convert', ['estimates:write', 'jobs:write']]] as const) {
      const convert = doc.paths[path].post;
      expect(convert.security, path).toEqual([{ bearerAuth: scopes }]);
      expect(convert['x-required-scopes']).toEqual(scopes);
    }
    for (const { op } of operations()) expect(op['x-required-scopes'] ?? []).toEqual(op.security?.[0]?.bearerAuth ?? []);
  });

  it('refuses each conversion to a key lacking either documented scope', async () => {
    const tenant = await t.tenant();
    for (const [path, scopes] of [['/leads/{id}/convert', ['leads:write', 'customers:write']], ['/estimates/{id}/convert', ['estimates:write', 'jobs:write']]] as const) {
      for (const granted of scopes) {
        const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: [granted] });
        const res = await client(`${t.url}/api/v2`, key.token).post(concretePath(path));
        expectProblem(res, { status: 403, code: 'auth.scope_missing' });
        expect(res.body.required_scope).not.toBe(granted);
        expect(doc.paths[path].post.security[0].bearerAuth).toContain(res.body.required_scope);
      }
    }
  });
});

describe('Customer', () => {
  // The spec's fields plus price_adjustment (customer pricing).
  const specFields = ['organization', 'main_phone', 'fax', 'website', 'description', 'reference', 'assignee_id', 'number', 'status', 'labels', 'customer_notes', 'custom_fields', 'price_adjustment'];

  it('has every field of the spec on the record, plus id and timestamps', () => {
    const record = schema('Customer');
    expect(Object.keys(record.properties).sort()).toEqual([...specFields, 'id', 'created_at', 'updated_at'].sort());
    expect(record.properties.assignee_id).toMatchObject({ type: ['integer', 'null'], format: 'int64' });
    expect(record.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(record.properties.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(record.properties.labels).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(record.properties.custom_fields.type).toBe('object');
  });

  it('create body: organization required, number optional, status not accepted, unknown fields refused', () => {
    const create = resolved('CustomerCreate');
    expect(create.required).toEqual(['organization']);
    expect(Object.keys(create.properties).sort()).toEqual(specFields.filter((f) => f !== 'status').sort());
    expect(create.properties.status).toBeUndefined();
    expect(create['x-not-accepted']).toEqual(['status']);
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.number).toMatchObject({ type: 'string', maxLength: 64 });
    expect(create.properties.organization.type).toBe('string');
    expect(create.properties.main_phone.type).toEqual(['string', 'null']);
    expect(schema('CustomerCreateRequest')).toMatchObject({ required: ['customer'], properties: { customer: { $ref: '#/components/schemas/CustomerCreate' } } });
  });

  it('update body: every field optional, status writable, number only as a no-op (number.immutable)', () => {
    const update = resolved('CustomerUpdate');
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties).sort()).toEqual([...specFields].sort());
    expect(update.properties.status.description).toContain('status.transition_invalid');
    expect(update.properties.number.description).toContain('number.immutable');
    expect(update.properties.organization.type).toBe('string');
    expect(update.properties.labels.description).toContain('[] clears');
    expect(schema('CustomerUpdateRequest').required).toEqual(['customer']);
    // Each field is described once: by the record when it is written as served, else by the create body.
    expect(schema('CustomerCreate').properties.organization).toEqual({ $ref: '#/components/schemas/Customer/properties/organization' });
    expect(schema('CustomerUpdate').properties.organization).toEqual({ $ref: '#/components/schemas/Customer/properties/organization' });
    expect(schema('CustomerUpdate').properties.price_adjustment).toEqual({ $ref: '#/components/schemas/CustomerCreate/properties/price_adjustment' });
    const patch = doc.paths['/customers/{id}'].patch;
    expect(responses(patch)['422']['x-error-codes']).toEqual(['validation.failed', 'status.transition_invalid', 'number.immutable']);
  });

  it('lists with exactly the declared parameters and the spec\'s sort enum', () => {
    const params = doc.paths['/customers'].get.parameters.map(deref);
    const query = params.filter((p: any) => p.in === 'query');
    expect(query.map((p: any) => p.name).sort()).toEqual(
      [
        'cursor', 'limit', 'sort', 'q', 'organization', 'number', 'status', 'status[in]',
        'created_at[gt]', 'created_at[gte]', 'created_at[lt]', 'created_at[lte]', 'custom_fields',
      ].sort(),
    );
    const byName = Object.fromEntries(query.map((p: any) => [p.name, p]));
    expect(byName.sort.schema.enum.sort()).toEqual(
      ['created_at', 'updated_at', 'organization', 'number', 'status'].flatMap((f) => [f, `-${f}`]).sort(),
    );
    expect(byName.sort.schema.default).toBe('-created_at');
    expect(byName.limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(byName.custom_fields).toMatchObject({ style: 'deepObject', explode: true });
    expect(byName.custom_fields.description).toContain('custom_fields[<field_id>]');
    expect(byName['created_at[gte]'].schema).toMatchObject({ type: 'string', format: 'date-time' });
    expect(query.every((p: any) => !p.required)).toBe(true);
  });

});

describe('Site', () => {
  const specFields = [
    'site_name', 'street', 'street2', 'city', 'state', 'zip_code', 'description', 'latitude', 'longitude',
    'recurring_instructions', 'custom_fields', 'position', 'system_option_id', 'siteable_id', 'siteable_type',
    // labels: the 2026-05 history line (labels and custom fields on all resources).
    'labels',
  ];

  it('has every field of the spec on the record, with the siteable enum and coordinate ranges', () => {
    const record = schema('Site');
    // customer_id and lead_id are served because they are list filters (the spec serves filter fields).
    expect(Object.keys(record.properties).sort()).toEqual([...specFields, 'id', 'customer_id', 'lead_id', 'created_at', 'updated_at'].sort());
    expect(record.properties.customer_id).toMatchObject({ readOnly: true });
    expect(record.properties.siteable_type).toMatchObject({ type: 'string', enum: ['Customer', 'Lead'] });
    expect(record.properties.siteable_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(record.properties.latitude).toMatchObject({ type: ['number', 'null'], minimum: -90, maximum: 90 });
    expect(record.properties.longitude).toMatchObject({ type: ['number', 'null'], minimum: -180, maximum: 180 });
    expect(record.properties.system_option_id).toMatchObject({ format: 'uuid' });
  });

  it('create body: site_name, street, city, state, siteable_id and siteable_type required, nothing else', () => {
    const create = resolved('SiteCreate');
    expect(create.required.sort()).toEqual(['city', 'site_name', 'siteable_id', 'siteable_type', 'state', 'street']);
    expect(Object.keys(create.properties).sort()).toEqual([...specFields].sort());
    expect(create.additionalProperties).toBe(false);
    expect(create.properties.siteable_type.enum).toEqual(['Customer', 'Lead']);
    expect(create.properties.position).toMatchObject({ type: 'integer' });
    expect(create.properties.position.description).toContain('end of the list');
    expect(schema('SiteCreateRequest')).toMatchObject({ required: ['site'], properties: { site: { $ref: '#/components/schemas/SiteCreate' } } });
  });

  it('update body: every field optional; siteable_id and siteable_type immutable (current value only)', () => {
    expect(doc.info.description).toContain('a field marked x-immutable accepts only its current value (a no-op), another gives 422 validation.failed ("cannot be changed")');
    const update = resolved('SiteUpdate');
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties).sort()).toEqual([...specFields].sort());
    expect(update['x-immutable']).toEqual(['siteable_id', 'siteable_type']);
    for (const field of ['siteable_id', 'siteable_type']) {
      expect(update.properties[field]['x-immutable'], field).toBe(true);
      expect(update.properties[field].description).toBeDefined();
      expect(update.properties[field].type).toBe('string');
    }
    expect(update.properties.site_name['x-immutable']).toBeUndefined();
    expect(update['x-not-accepted']).toEqual([]);
  });

  it('answers the documented immutable rule: the current siteable pair is a no-op, another value 422 "cannot be changed"', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const customer = await createRecord(api, 'customers', 'customer', { organization: 'Immutable Parent' });
    const other = await createRecord(api, 'customers', 'customer', { organization: 'Other Parent' });
    const site = await createSite(api, { type: 'Customer', id: customer.id });
    const same = await api.patch(`/sites/${site.id}`, { site: { siteable_id: customer.id, siteable_type: 'Customer', city: 'Shelbyville' } }, ifMatch(site.etag));
    expect(same.status, same.text).toBe(200);
    expect(same.body.data).toMatchObject({ siteable_id: customer.id, siteable_type: 'Customer', city: 'Shelbyville' });
    const moved = await api.patch(`/sites/${site.id}`, { site: { siteable_id: other.id } }, ifMatch(same.headers.get('etag')!));
    expectProblem(moved, { status: 422, code: 'validation.failed', errors: { siteable_id: ['cannot be changed'] }, onlyErrors: true });
  });
});

describe('Contact', () => {
  // labels: the 2026-05 history line (labels and custom fields on all resources).
  const specFields = ['first_name', 'last_name', 'email', 'phone', 'mobile', 'title', 'contact_method', 'linkable_id', 'linkable_type', 'custom_fields', 'labels', 'phone_numbers'];

  it('serves every field of the spec, linkable_id/linkable_type read-only, phone_numbers as entries with ids', () => {
    const record = schema('Contact');
    expect(Object.keys(record.properties).sort()).toEqual([...specFields, 'id', 'created_at', 'updated_at'].sort());
    expect(record.properties.linkable_id).toMatchObject({ type: ['string', 'null'], format: 'uuid', readOnly: true });
    expect(record.properties.linkable_type).toMatchObject({ type: ['string', 'null'], readOnly: true });
    expect(record.properties.linkable_type.enum).toEqual(['Customer', 'Lead', 'Site', null]);
    expect(record.properties.email.format).toBe('email');
    expect(record.properties.phone_numbers).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/ContactPhoneNumber' } });
    const entry = schema('ContactPhoneNumber');
    expect(Object.keys(entry.properties).sort()).toEqual(['extension', 'id', 'kind', 'number']);
    expect(entry.properties.id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(entry.properties.number.type).toBe('string');
    expect(entry.properties.kind.enum).toEqual(expect.arrayContaining(['mobile', 'office', 'home', 'fax', 'other']));
  });

  it('create body: linkable_id/linkable_type accepted (not null), phone_numbers entries without id', () => {
    const create = resolved('ContactCreate');
    expect(create.required).toBeUndefined();
    expect(Object.keys(create.properties).sort()).toEqual([...specFields].sort());
    expect(create.properties.linkable_id).toMatchObject({ type: 'string', format: 'uuid' });
    expect(create.properties.linkable_type).toMatchObject({ type: 'string', enum: ['Customer', 'Lead', 'Site'] });
    expect(create.properties.linkable_id.description).toContain('read-only');
    expect(create.properties.phone_numbers).toMatchObject({ type: 'array', maxItems: 200, items: { $ref: '#/components/schemas/ContactPhoneNumberCreate' } });
    expect(create.properties.phone_numbers.description).toContain('suppresses');
    const entry = resolved('ContactPhoneNumberCreate');
    expect(entry).toMatchObject({ required: ['number'], additionalProperties: false, 'x-not-accepted': ['id'] });
    expect(Object.keys(entry.properties).sort()).toEqual(['extension', 'kind', 'number']);
  });

  it('update body: linkable_id/linkable_type not accepted, phone_numbers a snapshot of entries with or without id', () => {
    const update = resolved('ContactUpdate');
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties).sort()).toEqual(specFields.filter((f) => !f.startsWith('linkable_')).sort());
    expect(update['x-not-accepted']).toEqual(['linkable_id', 'linkable_type']);
    expect(update.properties.phone_numbers.items.$ref).toBe('#/components/schemas/ContactPhoneNumberUpdate');
    expect(update.properties.phone_numbers.description).toContain('snapshot');
    expect(update.properties.phone_numbers.description).toContain('ETag');
    const [existing, freshRef] = schema('ContactPhoneNumberUpdate').anyOf;
    // An entry without id is a new entry: the create entry itself.
    expect(freshRef).toEqual({ $ref: '#/components/schemas/ContactPhoneNumberCreate' });
    const fresh = deref(freshRef);
    expect(existing).toMatchObject({ required: ['id'], additionalProperties: false });
    expect(Object.keys(existing.properties).sort()).toEqual(['extension', 'id', 'kind', 'number']);
    expect(fresh).toMatchObject({ required: ['number'], additionalProperties: false });
    expect(fresh.properties.id).toBeUndefined();
  });

  it('answers the documented create rules: null linkable_id refused, an id in a new phone number refused', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    expectProblem(await api.post('/contacts', { contact: { linkable_id: null, linkable_type: null } }), {
      status: 422,
      code: 'validation.failed',
      errors: { linkable_id: true, linkable_type: true },
    });
    expectProblem(await api.post('/contacts', { contact: { phone_numbers: [{ id: SOME_ID, number: '555' }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'phone_numbers.0.id': true },
      onlyErrors: true,
    });
  });
});

describe('Lead', () => {
  const ownFields = ['organization', 'first_name', 'last_name', 'email', 'phone', 'source', 'description', 'assignee_id'];
  const conventions = ['number', 'status', 'labels', 'custom_fields'];

  it('serves its fields, the conventions and the read-only conversion fields', () => {
    const record = schema('Lead');
    expect(Object.keys(record.properties).sort()).toEqual(
      [...ownFields, ...conventions, 'converted_customer_id', 'converted_at', 'id', 'created_at', 'updated_at'].sort(),
    );
    expect(record.properties.converted_customer_id).toMatchObject({ type: ['string', 'null'], format: 'uuid', readOnly: true });
    expect(record.properties.converted_at).toMatchObject({ type: ['string', 'null'], format: 'date-time', readOnly: true });
    expect(record.properties.assignee_id).toMatchObject({ format: 'int64' });
  });

  it('create and update bodies follow the conventions: status only on update, converted_* never', () => {
    const create = schema('LeadCreate');
    expect(Object.keys(create.properties).sort()).toEqual([...ownFields, 'number', 'labels', 'custom_fields'].sort());
    expect(create['x-not-accepted']).toEqual(['status']);
    const update = schema('LeadUpdate');
    expect(Object.keys(update.properties).sort()).toEqual([...ownFields, ...conventions].sort());
    expect(schema('LeadCreateRequest').required).toEqual(['lead']);
  });
});

describe('ContactLinkage', () => {
  it('serves id, contact_id, the written fields and timestamps, all non-null', () => {
    const record = schema('ContactLinkage');
    const fields = ['id', 'contact_id', 'linkable_id', 'linkable_type', 'relationship_type', 'primary', 'created_at', 'updated_at'];
    expect(Object.keys(record.properties).sort()).toEqual([...fields].sort());
    expect(record.required.sort()).toEqual([...fields].sort());
    expect(record.properties.linkable_type).toMatchObject({ type: 'string', enum: ['Customer', 'Lead', 'Site'] });
    expect(record.properties.relationship_type).toMatchObject({ type: 'string', enum: ['associated', 'billing', 'technical', 'decision_maker'] });
    expect(record.properties.primary.type).toBe('boolean');
  });

  it('create body: linkable_id and linkable_type required, relationship_type and primary optional; update: relationship_type and primary only', () => {
    const create = schema('CreateContactLinkageFields');
    expect(create.required).toEqual(['linkable_id', 'linkable_type']);
    expect(Object.keys(create.properties).sort()).toEqual(['linkable_id', 'linkable_type', 'primary', 'relationship_type']);
    expect(create.properties.relationship_type.description).toContain('associated');
    expect(create.additionalProperties).toBe(false);
    const update = schema('UpdateContactLinkageFields');
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties).sort()).toEqual(['primary', 'relationship_type']);
    expect(update['x-not-accepted']).toEqual(['linkable_id', 'linkable_type']);
    expect(update.additionalProperties).toBe(false);
  });
});

describe('Job, Estimate and their line items', () => {
  const conventions = ['number', 'status', 'labels', 'custom_fields'];
  // The spec's Job table, plus what the dispatch board needs (scheduled_start, scheduled_end, assignments) and the
  // assets the job services (asset_ids, issue 26).
  const jobFields = [
    'customer_id', 'site_id', 'contact_id', 'title', 'scope_of_work', 'work_description', 'customer_notes', 'reference', 'system_id',
    'job_type', 'priority', 'due_date', ...conventions, 'lineitems', 'scheduled_start', 'scheduled_end', 'assignments', 'asset_ids', 'project_id',
  ];
  const estimateFields = [
    'customer_id', 'site_id', 'contact_id', 'title', 'description', 'scope_of_work', 'estimate_date', 'expiration_date', 'job_type',
    'system_id', 'reference', ...conventions, 'customer_notes', 'tax_rate_id', 'deal_id', 'lineitems', 'project_id',
  ];
  const lineInputs = ['item_id', 'description', 'quantity', 'unit_price', 'discount', 'tax_rate_id', 'taxable', 'labor_visible'];
  const lineComputed = ['applied_tax_rate', 'discount_amount', 'tax_amount', 'line_total', 'tax_applied'];
  const cents = '^-?\\d+\\.\\d{2}$';

  it('serves every field of the spec\'s Job, the dispatch fields and the read-only amount, estimate_id and ticket_id', () => {
    const record = schema('Job');
    expect(Object.keys(record.properties).sort()).toEqual([...jobFields, 'amount', 'estimate_id', 'ticket_id', 'recurring_job_id', 'occurrence_date', 'id', 'created_at', 'updated_at'].sort());
    expect(record.properties.ticket_id).toMatchObject({ type: ['string', 'null'], format: 'uuid', readOnly: true });
    expect(record.properties.amount).toMatchObject({ type: 'string', format: 'decimal', pattern: cents, readOnly: true });
    expect(record.properties.estimate_id).toMatchObject({ type: ['string', 'null'], format: 'uuid', readOnly: true });
    expect(record.properties.due_date).toMatchObject({ format: 'date' });
    expect(record.properties.scheduled_start).toMatchObject({ format: 'date-time' });
    expect(record.properties.lineitems).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Lineitem' } });
    expect(record.properties.assignments).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/JobAssignment' } });
    expect(Object.keys(schema('JobAssignment').properties).sort()).toEqual(['id', 'user_id']);
    expect(schema('JobAssignment').properties.user_id).toMatchObject({ type: 'integer', format: 'int64' });
    // A list of plain ids, not entries with ids.
    expect(record.properties.asset_ids).toMatchObject({ type: 'array', items: { type: 'string', format: 'uuid' } });
  });

  it('Job bodies: nothing required on create (site_id is conditional), status only on update, amount and estimate_id never', () => {
    const create = resolved('JobCreate');
    expect(create.required).toBeUndefined();
    expect(Object.keys(create.properties).sort()).toEqual(jobFields.filter((f) => f !== 'status').sort());
    expect(create['x-not-accepted']).toEqual(['status']);
    expect(create.properties.site_id.description).toContain('AddressRequired');
    expect(create.properties.system_id.description).toContain('System module');
    expect(create.properties.lineitems.items.$ref).toBe('#/components/schemas/LineitemCreate');
    expect(create.properties.assignments.items.$ref).toBe('#/components/schemas/JobAssignmentCreate');
    const update = resolved('JobUpdate');
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties).sort()).toEqual([...jobFields].sort());
    expect(update.properties.lineitems.items.$ref).toBe('#/components/schemas/LineitemUpdate');
    expect(update.properties.lineitems.description).toContain('snapshot');
    expect(update.properties.asset_ids).toMatchObject({ type: 'array', maxItems: 200, items: { type: 'string', format: 'uuid' } });
    expect(update.properties.asset_ids.description).toContain('changes the ETag');
    expect(update.properties.number.description).toContain('number.immutable');
    for (const body of [create, update]) expect(body.additionalProperties).toBe(false);
  });

  it('serves every field of the spec\'s Estimate with the server-computed amount and the conversion fields read-only', () => {
    const record = schema('Estimate');
    expect(Object.keys(record.properties).sort()).toEqual([...estimateFields, 'amount', 'converted_job_id', 'converted_invoice_id', 'converted_at', 'id', 'created_at', 'updated_at'].sort());
    expect(record.properties.converted_invoice_id).toMatchObject({ type: ['string', 'null'], format: 'uuid', readOnly: true });
    expect(record.properties.amount).toMatchObject({ type: 'string', format: 'decimal', pattern: cents, readOnly: true });
    expect(record.properties.converted_job_id).toMatchObject({ type: ['string', 'null'], format: 'uuid', readOnly: true });
    expect(record.properties.converted_at).toMatchObject({ type: ['string', 'null'], format: 'date-time', readOnly: true });
    expect(record.properties.lineitems.items.$ref).toBe('#/components/schemas/Lineitem');
    const create = resolved('EstimateCreate');
    expect(create.required).toBeUndefined();
    expect(Object.keys(create.properties).sort()).toEqual(estimateFields.filter((f) => f !== 'status').sort());
    expect(create['x-not-accepted']).toEqual(['status']);
    const update = resolved('EstimateUpdate');
    expect(Object.keys(update.properties).sort()).toEqual([...estimateFields].sort());
    expect(update.properties.tax_rate_id).toMatchObject({ format: 'uuid' });
    expect(responses(doc.paths['/estimates/{id}'].patch)['403']['x-error-codes']).toContain('auth.permission_denied');
  });

  it('serves a line item\'s inputs and its computed fields (read-only, cents), shared by jobs and estimates', () => {
    const line = schema('Lineitem');
    expect(Object.keys(line.properties).sort()).toEqual(['id', ...lineInputs, ...lineComputed].sort());
    expect(line.description).toContain('Job, RecurringJob, Estimate, Invoice, RecurringInvoice or SalesOrder');
    for (const field of ['discount_amount', 'tax_amount', 'line_total']) {
      expect(line.properties[field], field).toMatchObject({ type: 'string', format: 'decimal', pattern: cents, readOnly: true });
    }
    expect(line.properties.tax_applied).toMatchObject({ type: 'boolean', readOnly: true });
    expect(line.properties.applied_tax_rate).toMatchObject({ type: ['string', 'null'], pattern: '^-?\\d+\\.\\d{4}$', readOnly: true });
    expect(line.properties.quantity).toMatchObject({ type: 'string', pattern: '^-?\\d+\\.\\d{4}$' });
    expect(line.properties.quantity.readOnly).toBeUndefined();
    expect(schema('JobLineitem')).toBeUndefined();
    expect(schema('EstimateLineitem')).toBeUndefined();
  });

  it('line item bodies: quantity required on a new line, the computed fields in no body', () => {
    const create = resolved('LineitemCreate');
    expect(create).toMatchObject({ required: ['quantity'], additionalProperties: false, 'x-not-accepted': ['id'] });
    expect(Object.keys(create.properties).sort()).toEqual([...lineInputs].sort());
    expect(create.properties.discount.anyOf[1]).toMatchObject({ type: 'number', minimum: 0, maximum: 100 });
    expect(create.properties.unit_price.description).toContain('customer');
    const [existing, freshRef] = schema('LineitemUpdate').anyOf;
    expect(freshRef).toEqual({ $ref: '#/components/schemas/LineitemCreate' });
    const fresh = deref(freshRef);
    expect(existing).toMatchObject({ required: ['id'], additionalProperties: false });
    expect(Object.keys(existing.properties).sort()).toEqual(['id', ...lineInputs].sort());
    expect(fresh).toMatchObject({ required: ['quantity'], additionalProperties: false });
    expect(Object.keys(fresh.properties).sort()).toEqual([...lineInputs].sort());
    for (const body of [create, existing, fresh]) for (const field of lineComputed) expect(body.properties[field], field).toBeUndefined();
  });

  it('answers as documented: a computed field sent in a line is refused, the computed values are served', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const customer = await createRecord(api, 'customers', 'customer', { organization: 'Computed Lines' });
    const site = await createSite(api, { type: 'Customer', id: customer.id });
    const refused = await api.post('/estimates', { estimate: { site_id: site.id, lineitems: [{ quantity: 1, unit_price: '10', line_total: '1.00' }] } });
    expectProblem(refused, { status: 422, code: 'validation.failed', errors: { 'lineitems.0.line_total': true }, onlyErrors: true });
    const made = await api.post('/estimates', { estimate: { site_id: site.id, lineitems: [{ quantity: '3', unit_price: 0.1, discount: 10 }] } });
    expect(made.status, made.text).toBe(201);
    expect(made.body.data.lineitems[0]).toMatchObject({ quantity: '3.0000', unit_price: '0.1000', discount_amount: '0.03', tax_amount: '0.00', line_total: '0.27', tax_applied: false });
    expect(made.body.data.amount).toBe('0.27');
    expect(mismatches(made.body, { $ref: '#/components/schemas/EstimateResponse' }, 'estimate')).toEqual([]);
  });

  it('lists jobs and estimates with the spec\'s filters: status (= and [in]) and created_at and updated_at ranges', () => {
    for (const plural of ['jobs', 'estimates']) {
      const names = doc.paths[`/${plural}`].get.parameters.map(deref).map((p: any) => p.name);
      expect(names, plural).toEqual(
        expect.arrayContaining(['q', 'sort', 'status', 'status[in]', ...['created_at', 'updated_at'].flatMap((f) => ['gt', 'gte', 'lt', 'lte'].map((op) => `${f}[${op}]`))]),
      );
    }
  });
});

describe('catalog (items, customer item prices, tax rates, systems)', () => {
  it('documents a decimal as a string with exactly its scale when served, a decimal string or a bounded number on write', () => {
    expect(schema('Item').properties.unit_price).toMatchObject({ type: 'string', format: 'decimal', pattern: '^-?\\d+\\.\\d{4}$' });
    expect(schema('Customer').properties.price_adjustment).toMatchObject({ type: ['string', 'null'], pattern: '^-?\\d+\\.\\d{4}$' });
    const [text, number, nil] = resolved('CustomerCreate').properties.price_adjustment.anyOf;
    expect(text).toMatchObject({ type: 'string', pattern: '^-?\\d{1,10}(\\.\\d{1,4})?$' });
    expect(number).toMatchObject({ type: 'number', minimum: -100, maximum: 1000 });
    expect(nil).toEqual({ type: 'null' });
    const rate = resolved('TaxRateCreate').properties.rate;
    expect(rate.anyOf.map((b: any) => b.type)).toEqual(['string', 'number']);
    expect(rate.anyOf[1]).toMatchObject({ minimum: 0, maximum: 100 });
    expect(schema('TaxRateCreate').required.sort()).toEqual(['name', 'rate']);
    expect(resolved('ItemCreate').properties.unit_price.description).toContain('0 to 9999999999, at most 4 decimal places.');
    expect(doc.info.description).toContain('Decimals (format decimal: amounts, quantities, prices, rates) are exact: served as strings with exactly the places their pattern shows, written as a decimal string ("12.5") or a JSON number');
  });

  it('answers decimals as documented: "12.5" and 12.5 are both stored as "12.5000"; a fifth decimal place is refused', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const pattern = new RegExp(schema('Item').properties.unit_price.pattern);
    for (const unit_price of ['12.5', 12.5]) {
      const res = await api.post('/items', { item: { name: `Decimal ${unit_price}`, item_type: 'labor', unit_price } });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.unit_price).toBe('12.5000');
      expect(res.body.data.unit_price).toMatch(pattern);
    }
    expectProblem(await api.post('/items', { item: { name: 'Too precise', item_type: 'labor', unit_price: '1.23456' } }), {
      status: 422,
      code: 'validation.failed',
      errors: { unit_price: true },
      onlyErrors: true,
    });
    const rate = await api.post('/tax_rates', { tax_rate: { name: 'Over', rate: 100.5 } });
    expectProblem(rate, { status: 422, code: 'validation.failed', errors: { rate: true }, onlyErrors: true });
    expect(resolved('TaxRateCreate').properties.rate.anyOf[1].maximum).toBe(100);
  });

  it('documents confirmed as a write-only field of System on create and update, never served', () => {
    const create = resolved('SystemCreate');
    expect(create.properties.confirmed).toMatchObject({ writeOnly: true });
    expect(create.properties.confirmed.type).toContain('boolean');
    expect(create.required.sort()).toEqual(['name', 'site_id', 'system_type']);
    expect(schema('System').properties.confirmed).toBeUndefined();
    expect(resolved('SystemUpdate').properties.confirmed).toMatchObject({ writeOnly: true });
    expect(schema('SystemUpdate')['x-not-accepted'] ?? []).not.toContain('confirmed');
    expect(schema('SystemUpdate')['x-immutable']).toEqual(['site_id']);
    // A write-only field served under a read-only twin (contact linkable_id) is not marked writeOnly.
    expect(resolved('ContactCreate').properties.linkable_id.writeOnly).toBeUndefined();
  });

  it('documents the 409 system.duplicate that POST /systems really answers without confirmed, and 201 with it', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const customer = await createRecord(api, 'customers', 'customer', { organization: 'Duplicate Systems' });
    const site = await createSite(api, { type: 'Customer', id: customer.id });
    const system = { site_id: site.id, system_type: 'Boiler', name: 'Boiler 1' };
    expect((await api.post('/systems', { system })).status).toBe(201);
    const again = await api.post('/systems', { system: { ...system, name: 'Boiler 2' } });
    expectProblem(again, { status: 409, code: 'system.duplicate' });
    expect(responses(doc.paths['/systems'].post)['409']['x-error-codes']).toEqual(['system.duplicate']);
    expect(responses(doc.paths['/systems/{id}'].patch)['409']['x-error-codes']).toEqual(['system.duplicate']);
    const confirmed = await api.post('/systems', { system: { ...system, name: 'Boiler 2', confirmed: true } });
    expect(confirmed.status, confirmed.text).toBe(201);
    expect(confirmed.body.data).not.toHaveProperty('confirmed');
  });

  it('documents GET /system_options: no scope, system_type only, {data, has_more, next_cursor}; another parameter is 400 filter.invalid', async () => {
    const op = doc.paths['/system_options'].get;
    expect(op.security).toEqual([{ bearerAuth: [] }]);
    expect(op['x-required-scopes']).toBeUndefined();
    const query = op.parameters.map(deref).filter((p: any) => p.in === 'query');
    expect(query).toEqual([expect.objectContaining({ name: 'system_type', required: false, schema: { type: 'string' } })]);
    expect(okSchemaRef('/system_options', 'get', '200')).toBe('#/components/schemas/SystemOptionList');
    expect(Object.keys(schema('SystemOption').properties).sort()).toEqual(['id', 'name', 'position', 'system_type']);
    expect(responses(op)['400']['x-error-codes']).toContain('filter.invalid');
    expect(Object.values(responses(op)).flatMap((r: any) => r['x-error-codes'] ?? [])).not.toContain('auth.scope_missing');
    const tenant = await t.tenant();
    const key = await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['items:read'] });
    const api = client(`${t.url}/api/v2`, key.token);
    const all = await api.get('/system_options');
    expect(all.status, all.text).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(0);
    const type = all.body.data[0].system_type;
    const some = await api.get(`/system_options?system_type=${encodeURIComponent(type)}`);
    expect(some.body.data.length).toBeGreaterThan(0);
    expect(some.body.data.every((o: any) => o.system_type === type)).toBe(true);
    const unknown = await api.get('/system_options?related_name=System');
    expectProblem(unknown, { status: 400, code: 'filter.invalid' });
    expect(responses(op)['400']['x-error-codes']).toContain(unknown.body.code);
  });

  it('pages tax rates filtered by active through the documented cursor', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    for (const name of ['A rate', 'B rate', 'C rate']) expect((await api.post('/tax_rates', { tax_rate: { name, rate: '5' } })).status).toBe(201);
    expect((await api.post('/tax_rates', { tax_rate: { name: 'Inactive', rate: '1.5', active: false } })).status).toBe(201);
    const names: string[] = [];
    let path: string | null = '/tax_rates?active=true&limit=2';
    while (path) {
      const res: { status: number; headers: Headers; body: any; text: string } = await api.get(path);
      expect(res.status, res.text).toBe(200);
      names.push(...res.body.data.map((r: any) => r.name));
      const next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];
      path = next ? `/tax_rates${new URL(next, t.url).search}` : null;
    }
    expect(names).toEqual(['A rate', 'B rate', 'C rate']);
    expect((await api.get('/tax_rates?active=false')).body.data.map((r: any) => r.name)).toEqual(['Inactive']);
  });
});

describe('every resource', () => {
  it('lists with exactly the declared parameters', () => {
    for (const def of resources) {
      const query = parametersOf(collectionPath(def), doc.paths[collectionPath(def)].get).filter((p: any) => p.in === 'query');
      const filters = Object.entries(def.list.filters).flatMap(([field, f]) => f.ops.map((op) => (op === 'eq' ? field : `${field}[${op}]`)));
      const expected = ['cursor', 'limit', ...(Object.keys(def.list.sorts).length ? ['sort'] : []), ...(def.list.search ? ['q'] : []), ...filters];
      if (def.conventions.customFields) expected.push('custom_fields');
      expect(query.map((p: any) => p.name).sort(), def.plural).toEqual(expected.sort());
      expect(query.every((p: any) => !p.required)).toBe(true);
    }
    const names = (plural: string) => doc.paths[`/${plural}`].get.parameters.map(deref).map((p: any) => p.name);
    expect(names('sites')).toEqual(expect.arrayContaining(['customer_id', 'lead_id', 'q', 'updated_at[gte]', 'created_at[lt]']));
    expect(names('sites')).not.toContain('customer_id[in]');
    expect(names('contacts')).toEqual(expect.arrayContaining(['q', 'created_at[gt]', 'updated_at[lte]']));
    expect(names('leads')).toEqual(expect.arrayContaining(['status', 'status[in]', 'q']));
    const siteFilter = doc.paths['/sites'].get.parameters.map(deref).find((p: any) => p.name === 'lead_id');
    expect(siteFilter.schema).toMatchObject({ type: 'string', format: 'uuid' });
  });

  it('every documented list parameter and sort value is accepted by the real endpoint of every resource', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const sample = (p: any) => {
      // A field with a fixed set of values documents them: its first (the [in] filter's pattern lists them).
      if (p.schema.enum) return p.schema.enum[0];
      if (p.name.endsWith('[in]') && p.schema.pattern) return /^\^\(([^|)]+)/.exec(p.schema.pattern)![1].replace(/\\/g, '');
      if (p.name.endsWith('[in]')) return 'Active,Open';
      if (p.schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (p.schema.format === 'date') return '2026-01-01';
      if (p.schema.format === 'uuid') return SOME_ID;
      if (p.schema.format === 'decimal') return '10.5';
      if (p.schema.type === 'integer') return '10';
      if (p.schema.type === 'boolean') return 'true';
      return 'Active';
    };
    let checked = 0;
    for (const def of resources) {
      const documented = collectionPath(def);
      const params = parametersOf(documented, doc.paths[documented].get);
      const path = await requestedCollection(api, def);
      for (const p of params.filter((p: any) => p.in === 'query' && !['cursor', 'sort', 'custom_fields'].includes(p.name))) {
        const res = await api.get(`${path}?${encodeURIComponent(p.name)}=${encodeURIComponent(sample(p))}`);
        expect(res.status, `${def.plural} ${p.name}: ${res.text}`).toBe(200);
        checked += 1;
      }
      const sort = params.find((p: any) => p.name === 'sort');
      for (const value of sort?.schema.enum ?? []) {
        const res = await api.get(`${path}?sort=${value}`);
        expect(res.status, `${def.plural} sort=${value}: ${res.text}`).toBe(200);
        checked += 1;
      }
      if (params.some((p: any) => p.name === 'custom_fields')) {
        const field = await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: lookupClassOf(def), name: `Region of ${def.plural}`, type: 'text' });
        const custom = await api.get(`${path}?${encodeURIComponent(`custom_fields[${field.id}]`)}=North`);
        expect(custom.status, `${def.plural} custom_fields: ${custom.text}`).toBe(200);
      }
      const undocumented = await api.get(`${path}?created_at[eq]=2026-01-01T00:00:00Z`);
      expect(undocumented.body.code, def.plural).toBe('filter.invalid');
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('serves records, linkages and the conversion exactly as documented', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const seen: [string, any, string][] = [];
    const check = (ref: string, res: { status: number; body: any; text: string }, label: string) => {
      expect(res.status, `${label}: ${res.text}`).toBeLessThan(300);
      seen.push([ref, res.body, label]);
    };
    const customer = await api.post('/customers', { customer: { organization: 'Documented Co', assignee_id: tenant.userId, price_adjustment: '-10' } });
    check('CustomerResponse', customer, 'POST /customers');
    const lead = await api.post('/leads', { lead: { first_name: 'Lee', phone: '555-0100' } });
    check('LeadResponse', lead, 'POST /leads');
    const site = await api.post('/sites', { site: { site_name: 'HQ', street: '1 Main', city: 'X', state: 'Y', latitude: 12.5, siteable_id: customer.body.data.id, siteable_type: 'Customer' } });
    check('SiteResponse', site, 'POST /sites');
    await createSite(api, { type: 'Lead', id: lead.body.data.id });
    const contact = await api.post('/contacts', {
      contact: { first_name: 'Ann', linkable_id: lead.body.data.id, linkable_type: 'Lead', phone_numbers: [{ number: '555-0101', kind: 'office', extension: '12' }] },
    });
    check('ContactResponse', contact, 'POST /contacts');
    const plain = await createContact(api, { mobile: '555-0102' });
    const linkage = await api.post(`/contacts/${plain.id}/linkages`, { linkage: { linkable_id: site.body.data.id, linkable_type: 'Site', relationship_type: 'technical' } });
    check('ContactLinkageResponse', linkage, 'POST linkage');
    check('ContactLinkageResponse', await api.patch(`/contacts/${plain.id}/linkages/${linkage.body.data.id}`, { linkage: { primary: true } }), 'PATCH linkage');
    check('ContactLinkageList', await api.get(`/contacts/${contact.body.data.id}/linkages`), 'GET linkages');
    const convert = await api.post(`/leads/${lead.body.data.id}/convert`, { customer: { reference: 'R-1' } });
    check('ConvertLeadResponse', convert, 'POST convert');
    expect(convert.status).toBe(201);
    expect(convert.headers.get('location')).toBe(`/api/v2/customers/${convert.body.data.customer.id}`);
    expect(linkage.headers.get('location')).toBe(`/api/v2/contacts/${plain.id}/linkages/${linkage.body.data.id}`);
    const item = await api.post('/items', { item: { name: 'Filter 16x25', item_type: 'material', unit_price: '12.5', cost: 3.25, sku: 'F-1625' } });
    check('ItemResponse', item, 'POST /items');
    check('CustomerItemPriceResponse', await api.post('/customer_item_prices', { customer_item_price: { customer_id: customer.body.data.id, item_id: item.body.data.id, unit_price: 10 } }), 'POST /customer_item_prices');
    const taxRate = await api.post('/tax_rates', { tax_rate: { name: 'State', rate: '8.25' } });
    check('TaxRateResponse', taxRate, 'POST /tax_rates');
    const system = { site_id: site.body.data.id, system_type: 'HVAC', name: 'Furnace', install_date: '2024-03-01', system_option_id: systemOptionIds[0] };
    check('SystemResponse', await api.post('/systems', { system }), 'POST /systems');
    check('SystemResponse', await api.post('/systems', { system: { ...system, name: 'Second furnace', confirmed: true } }), 'POST /systems confirmed');
    const asset = await api.post('/assets', { asset: { site_id: site.body.data.id, name: 'Rooftop unit', serial_number: `DOC-${Date.now()}`, install_date: '2024-03-01', warranty_expires_on: '2029-03-01' } });
    check('AssetResponse', asset, 'POST /assets');
    check('AssetList', await api.get(`/assets?site_id=${site.body.data.id}`), 'GET /assets');
    const project = await api.post('/projects', { project: { name: 'Refit', customer_id: site.body.data.customer_id, site_id: site.body.data.id, start_date: '2026-01-01', budget_amount: '900', user_ids: [tenant.userId] } });
    check('ProjectResponse', project, 'POST /projects');
    check('SystemOptionList', await api.get('/system_options'), 'GET /system_options');
    check('SystemOptionList', await api.get('/system_options?system_type=HVAC'), 'GET /system_options?system_type');
    // Jobs and estimates need a site (AddressRequired is Yes by default): the customer's HQ.
    const lines = [
      { item_id: item.body.data.id, quantity: '2' },
      { description: 'Labor', quantity: 1.5, unit_price: 80, discount: '10', taxable: false, labor_visible: false },
    ];
    const estimate = await api.post('/estimates', { estimate: { site_id: site.body.data.id, title: 'Replace filters', tax_rate_id: taxRate.body.data.id, estimate_date: '2026-01-05', lineitems: lines } });
    check('EstimateResponse', estimate, 'POST /estimates');
    expect(estimate.body.data.lineitems).toHaveLength(2);
    const accepted = await api.patch(`/estimates/${estimate.body.data.id}`, { estimate: { status: 'Accepted' } }, ifMatch(estimate.headers.get('etag')!));
    check('EstimateResponse', accepted, 'PATCH /estimates/{id}');
    const converted = await api.post(`/estimates/${estimate.body.data.id}/convert`);
    check('ConvertEstimateResponse', converted, 'POST /estimates/{id}/convert');
    expect(converted.status).toBe(201);
    expect(converted.headers.get('location')).toBe(`/api/v2/jobs/${converted.body.data.job.id}`);
    expect(converted.body.data.job.lineitems).toHaveLength(2);
    // A ticket at the customer's HQ, converted into a job (the job's ticket_id, the ticket's converted_job_id).
    const ticket = await api.post('/tickets', { ticket: { subject: 'No heat', customer_id: site.body.data.customer_id, site_id: site.body.data.id, priority: 'urgent', channel: 'phone', assignee_id: tenant.userId } });
    check('TicketResponse', ticket, 'POST /tickets');
    const ticketJob = await api.post(`/tickets/${ticket.body.data.id}/convert`, { job: { scheduled_start: '2026-02-02T09:00:00Z' } });
    check('ConvertTicketResponse', ticketJob, 'POST /tickets/{id}/convert');
    expect(ticketJob.headers.get('location')).toBe(`/api/v2/jobs/${ticketJob.body.data.job.id}`);
    const job = await api.post('/jobs', {
      job: {
        site_id: site.body.data.id,
        title: 'Service visit',
        due_date: '2026-02-01',
        scheduled_start: '2026-02-01T09:00:00Z',
        scheduled_end: '2026-02-01T11:00:00Z',
        assignments: [{ user_id: tenant.userId }],
        asset_ids: [asset.body.data.id],
        project_id: project.body.data.id,
        lineitems: [{ item_id: item.body.data.id, quantity: '1', tax_rate_id: taxRate.body.data.id }],
      },
    });
    check('JobResponse', job, 'POST /jobs');
    expect(job.body.data.asset_ids).toEqual([asset.body.data.id]);
    const invoice = await api.post(
      '/invoices',
      { invoice: { customer_id: site.body.data.customer_id, site_id: site.body.data.id, tax_rate_id: taxRate.body.data.id, lineitems: lines } },
      { headers: { 'idempotency-key': `doc-${Date.now()}` } },
    );
    check('InvoiceResponse', invoice, 'POST /invoices');
    expect(invoice.headers.get('idempotent-replayed')).toBeNull();
    const payment = await api.post(
      '/payments',
      { payment: { customer_id: site.body.data.customer_id, amount: '10', method: 'card', applications: [{ invoice_id: invoice.body.data.id, amount: '10' }] } },
      { headers: { 'idempotency-key': `doc-payment-${Date.now()}` } },
    );
    check('PaymentResponse', payment, 'POST /payments');
    const salesOrder = await api.post(
      '/sales_orders',
      { sales_order: { customer_id: site.body.data.customer_id, site_id: site.body.data.id, tax_rate_id: taxRate.body.data.id, order_date: '2026-01-10', lineitems: lines } },
      { headers: { 'idempotency-key': `doc-sales-order-${Date.now()}` } },
    );
    check('SalesOrderResponse', salesOrder, 'POST /sales_orders');
    const invoiced = await api.post(`/sales_orders/${salesOrder.body.data.id}/invoice`, { invoice: { due_date: '2026-12-31' } }, { headers: { 'idempotency-key': `doc-so-invoice-${Date.now()}` } });
    check('InvoiceSalesOrderResponse', invoiced, 'POST /sales_orders/{id}/invoice');
    const schedule = { rule: 'FREQ=WEEKLY;BYDAY=MO', start_date: '2026-01-05', horizon_days: 14 };
    const recurringJob = await api.post('/recurring_jobs', { recurring_job: { customer_id: site.body.data.customer_id, site_id: site.body.data.id, title: 'Boiler service', start_time: '09:00', assignments: [{ user_id: tenant.userId }], lineitems: lines, ...schedule } });
    check('RecurringJobResponse', recurringJob, 'POST /recurring_jobs');
    const recurringJobPath = `/recurring_jobs/${recurringJob.body.data.id}`;
    check('RecurringOccurrenceList', await api.get(`${recurringJobPath}/occurrences`), 'GET /recurring_jobs/{id}/occurrences');
    const [upcoming] = (await api.get(`${recurringJobPath}/occurrences?from=2099-01-01`)).body.data;
    check('RecurringOccurrenceResponse', await api.post(`${recurringJobPath}/skip`, { date: upcoming.date }), 'POST /recurring_jobs/{id}/skip');
    check('PauseRecurringJobResponse', await api.post(`${recurringJobPath}/pause`), 'POST /recurring_jobs/{id}/pause');
    check('ResumeRecurringJobResponse', await api.post(`${recurringJobPath}/resume`), 'POST /recurring_jobs/{id}/resume');
    const recurringInvoice = await api.post('/recurring_invoices', { recurring_invoice: { customer_id: site.body.data.customer_id, tax_rate_id: taxRate.body.data.id, payment_terms_days: 15, lineitems: lines, ...schedule } });
    check('RecurringInvoiceResponse', recurringInvoice, 'POST /recurring_invoices');
    expect(invoiced.status).toBe(201);
    expect(invoiced.headers.get('location')).toBe(`/api/v2/invoices/${invoiced.body.data.invoice.id}`);
    expect(invoiced.body.data.invoice).toMatchObject({ sales_order_id: salesOrder.body.data.id, amount: salesOrder.body.data.amount });
    // Stock: two locations, a count in (which makes a stock level) and a transfer.
    const stockItem = await api.post('/items', { item: { name: `Stocked ${Date.now()}`, item_type: 'material', unit_price: '1' } });
    const shelf = await api.post('/stock_locations', { stock_location: { name: `Doc shelf ${Date.now()}`, kind: 'warehouse' } });
    check('StockLocationResponse', shelf, 'POST /stock_locations');
    const van = await api.post('/stock_locations', { stock_location: { name: `Doc van ${Date.now()}`, kind: 'vehicle', technician_id: tenant.userId } });
    const counted = await api.post('/stock_adjustments', { stock_adjustment: { location_id: shelf.body.data.id, item_id: stockItem.body.data.id, quantity: '5', reason: 'count' } });
    check('StockAdjustmentResponse', counted, 'POST /stock_adjustments');
    const moved = await api.post(
      '/inventory_transfers',
      { inventory_transfer: { from_location_id: shelf.body.data.id, to_location_id: van.body.data.id, lines: [{ item_id: stockItem.body.data.id, quantity: '2' }] } },
      { headers: { 'idempotency-key': `doc-transfer-${Date.now()}` } },
    );
    check('InventoryTransferResponse', moved, 'POST /inventory_transfers');
    // Purchasing: a vendor, an order of the stocked item into the shelf, and a receipt of part of it.
    const supplier = await api.post('/vendors', { vendor: { name: `Doc vendor ${Date.now()}`, payment_terms_days: 30 } });
    check('VendorResponse', supplier, 'POST /vendors');
    const ordered = await api.post('/purchase_orders', {
      purchase_order: { vendor_id: supplier.body.data.id, location_id: shelf.body.data.id, lines: [{ item_id: stockItem.body.data.id, quantity: '3', unit_cost: '0.5' }] },
    });
    check('PurchaseOrderResponse', ordered, 'POST /purchase_orders');
    const receipt = await api.post(
      `/purchase_orders/${ordered.body.data.id}/receive`,
      { receipt: { lines: [{ line_id: ordered.body.data.lines[0].id, quantity: '1' }] } },
      { headers: { 'idempotency-key': `doc-receipt-${Date.now()}` } },
    );
    check('ReceivePurchaseOrderResponse', receipt, 'POST /purchase_orders/{id}/receive');
    // CRM: a deal with the customer, another with a lead, and a task about the first deal, then done (completed_at).
    const deal = await api.post('/deals', {
      deal: { name: 'Documented deal', customer_id: customer.body.data.id, value_amount: '1500', expected_close_date: '2026-09-30', probability_percent: 50, owner_id: tenant.userId },
    });
    check('DealResponse', deal, 'POST /deals');
    const dealLead = await api.post('/leads', { lead: { first_name: 'Dee' } });
    check('DealResponse', await api.post('/deals', { deal: { name: 'Lead deal', lead_id: dealLead.body.data.id } }), 'POST /deals with a lead');
    const task = await api.post('/tasks', { task: { title: 'Follow up', taskable_type: 'Deal', taskable_id: deal.body.data.id, assignee_id: tenant.userId, due_date: '2026-09-01', priority: 'urgent' } });
    check('TaskResponse', task, 'POST /tasks');
    check('TaskResponse', await api.patch(`/tasks/${task.body.data.id}`, { task: { status: 'Done' } }, ifMatch(task.headers.get('etag')!)), 'PATCH /tasks/{id}');
    expect(receipt.headers.get('location')).toBe(`/api/v2/purchase_order_receipts/${receipt.body.data.receipt.id}`);
    expect(job.body.data.assignments).toHaveLength(1);
    expect(job.body.data.lineitems[0].tax_applied).toBe(true);
    // A webhook endpoint: its create runs the verification handshake against a receiver that echoes the
    // challenge, and answers the record with its secret; then its update and actions, and the topic catalog.
    receiver ??= await startReceiver({ kind: 'echo' });
    const endpoint = await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: ['customer.created', 'job.status_changed'], description: 'Documented sync' } });
    check('WebhookEndpointCreatedResponse', endpoint, 'POST /webhooks/endpoints');
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.data).toMatchObject({ status: 'verified', secret: expect.stringMatching(/^whsec_/) });
    const endpointPath = `/webhooks/endpoints/${endpoint.body.data.id}`;
    check('WebhookEndpointResponse', await api.patch(endpointPath, { endpoint: { description: 'Renamed sync' } }, ifMatch(endpoint.headers.get('etag')!)), 'PATCH /webhooks/endpoints/{id}');
    check('VerifyWebhookEndpointResponse', await api.post(`${endpointPath}/verify`), 'POST /webhooks/endpoints/{id}/verify');
    check('WebhookDeliveryResponse', await api.post(`${endpointPath}/test`), 'POST /webhooks/endpoints/{id}/test');
    check('WebhookReplayResponse', await api.post(`${endpointPath}/replay`, { replay: { since: new Date(Date.now() - 3_600_000).toISOString() } }), 'POST /webhooks/endpoints/{id}/replay');
    check('WebhookSecretResponse', await api.post(`${endpointPath}/rotate_secret`), 'POST /webhooks/endpoints/{id}/rotate_secret');
    check('WebhookDeliveryList', await api.get(`${endpointPath}/deliveries`), 'GET /webhooks/endpoints/{id}/deliveries');
    check('WebhookTopicList', await api.get('/webhooks/available_topics'), 'GET /webhooks/available_topics');
    // Every resource is read back as a list and as a record; one the records above do not cover (a resource
    // declared later) first gets a record made of the required fields of its documented create body.
    for (const def of resources) {
      const path = await requestedCollection(api, def);
      if (!(await api.get(path)).body.data?.length && (serves(def, 'create') || def.nested)) {
        check(createdName(def), await api.post(path, { [bodyKeyOf(def)]: requiredFields(`${def.className}Create`) }), `POST ${path} (required fields)`);
      }
      const list = await api.get(path);
      check(`${def.className}List`, list, `GET ${path}`);
      check(`${def.className}Response`, await api.get(`/${restPath(def)}/${list.body.data[0].id}`), `GET /${restPath(def)}/{id}`);
    }
    const readContact = seen.find(([ref, body]) => ref === 'ContactResponse' && body.data.phone_numbers.length === 1 && body.data.first_name === 'Ann');
    expect(readContact).toBeDefined();
    for (const [ref, body, label] of seen) {
      expect(mismatches(body, { $ref: `#/components/schemas/${ref}` }, label), label).toEqual([]);
    }
    // The checker is not vacuous: an undocumented key, a wrong enum value and a missing key are all caught.
    const sample = convert.body.data.lead;
    expect(mismatches({ ...sample, extra: 1 }, { $ref: '#/components/schemas/Lead' }, 'lead')).not.toEqual([]);
    expect(mismatches({ ...linkage.body.data, linkable_type: 'Job' }, { $ref: '#/components/schemas/ContactLinkage' }, 'linkage')).not.toEqual([]);
    expect(mismatches({ ...item.body.data, unit_price: 12.5 }, { $ref: '#/components/schemas/Item' }, 'item')).not.toEqual([]);
    expect(mismatches({ ...item.body.data, unit_price: '12.5' }, { $ref: '#/components/schemas/Item' }, 'item')).not.toEqual([]);
    const [line] = job.body.data.lineitems;
    expect(mismatches({ ...job.body.data, lineitems: [{ ...line, line_total: Number(line.line_total) }] }, { $ref: '#/components/schemas/Job' }, 'job')).not.toEqual([]);
    expect(mismatches({ ...job.body.data, amount: '10.8' }, { $ref: '#/components/schemas/Job' }, 'job')).not.toEqual([]);
    const { contact_id: _dropped, ...partial } = linkage.body.data;
    expect(mismatches(partial, { $ref: '#/components/schemas/ContactLinkage' }, 'linkage')).not.toEqual([]);
    // ... and so is a record extended by a create answer: without what it adds, or with it where only the record is served.
    const { secret: _secret, ...withoutSecret } = endpoint.body.data;
    expect(mismatches({ data: withoutSecret }, { $ref: '#/components/schemas/WebhookEndpointCreatedResponse' }, 'created')).not.toEqual([]);
    expect(mismatches({ data: endpoint.body.data }, { $ref: '#/components/schemas/WebhookEndpointResponse' }, 'endpoint')).not.toEqual([]);
  });
});

describe('errors', () => {
  it('lists the whole catalog in x-error-codes, and info.description points at the error pages', () => {
    const listed = doc['x-error-codes'];
    expect(listed.map((e: any) => e.code)).toEqual(Object.keys(errorCatalog));
    for (const entry of listed) {
      const known = errorCatalog[entry.code as keyof typeof errorCatalog];
      expect(entry).toEqual({ code: entry.code, status: known.status, title: known.title });
    }
    expect(doc.info.description).toContain('Every code with its status, title, cause and fix: /errors ');
  });

  it('describes the problem envelope with its optional extras', () => {
    const problem = schema('Problem');
    expect(problem.required.sort()).toEqual(['code', 'detail', 'doc_url', 'instance', 'request_id', 'status', 'title', 'type']);
    expect(Object.keys(problem.properties)).toEqual(expect.arrayContaining(['errors', 'required_scope', 'granted_scopes', 'max_limit', 'reason']));
    expect(problem.properties.detail.type).toEqual(['string', 'null']);
  });

  it('documents each error response as application/problem+json whose codes carry that status', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(responses(op))) {
        if (Number(status) < 400) continue;
        const codes: string[] = response['x-error-codes'];
        expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
        for (const code of codes) {
          expect(errorCatalog[code as keyof typeof errorCatalog].status).toBe(Number(status));
          expect(response.description).toContain(code);
        }
        const content = response.content['application/problem+json'];
        expect(content.schema.$ref).toBe('#/components/schemas/Problem');
        expect(Object.keys(content.examples)).toEqual(codes);
        expect(Object.keys(response.content)).toEqual(['application/problem+json']);
      }
    }
  });

  it('derives each operation\'s codes from what the kernel does on it', () => {
    const codes = (path: string, method: string) =>
      Object.values(responses(doc.paths[path][method])).flatMap((r: any) => r['x-error-codes'] ?? []);
    const auth = ['auth.missing_token', 'auth.invalid_token', 'auth.failed', 'auth.token_revoked', 'account.deactivated', 'account.inactive', 'auth.plan_required'];
    const list = codes('/customers', 'get');
    expect(list).toEqual(expect.arrayContaining([...auth, 'auth.scope_missing', 'cursor.invalid', 'cursor.invalid_filters', 'cursor.expired', 'pagination.limit_too_large', 'sort.invalid', 'filter.invalid', 'version.invalid', 'rate_limit.exceeded', 'internal.error']));
    expect(list).not.toContain('validation.failed');
    const create = codes('/customers', 'post');
    expect(create).toEqual(expect.arrayContaining(['validation.failed', 'request.malformed_json', 'request.unsupported_media_type', 'request.body_too_large']));
    expect(create).not.toContain('precondition.required');
    expect(codes('/customers/{id}', 'get')).toContain('resource.not_found');
    expect(codes('/customers/{id}', 'delete')).toEqual(expect.arrayContaining(['resource.not_found', 'precondition.failed', 'precondition.required']));
    expect(codes('/customers/{id}', 'delete')).not.toContain('validation.failed');
    const me = codes('/me', 'get');
    expect(me).toEqual(expect.arrayContaining(auth));
    expect(me).not.toContain('auth.scope_missing');
    expect(codes('/statuses', 'get')).toContain('filter.invalid');
    expect([...codes('/openapi.json', 'get')].sort()).toEqual(['internal.error', 'rate_limit.exceeded', 'request.headers_too_large', 'request.invalid']);
  });

  it('lists the codes of the resources\' own rules and of the new routes on their operations', () => {
    const codesAt = (path: string, method: string, status: string) => responses(doc.paths[path][method])[status]?.['x-error-codes'] ?? [];
    expect(codesAt('/contacts/{id}', 'delete', '409')).toEqual(['contact.has_linkages']);
    expect(codesAt('/customers/{id}', 'delete', '409')).toEqual([]);
    expect(codesAt('/contacts/{id}/linkages/{linkage_id}', 'delete', '409')).toEqual(['contact.primary_linkage']);
    expect(codesAt('/contacts/{id}/linkages/{linkage_id}', 'patch', '409')).toEqual(['contact.primary_linkage']);
    expect(codesAt('/contacts/{id}/linkages/{linkage_id}', 'patch', '422')).toEqual(['validation.failed']);
    expect(codesAt('/contacts/{id}/linkages', 'post', '422')).toEqual(['validation.failed']);
    expect(codesAt('/contacts/{id}/linkages', 'post', '409')).toEqual([]);
    expect(codesAt('/contacts/{id}/linkages', 'get', '404')).toEqual(['resource.not_found']);
    expect(codesAt('/contacts/{id}/linkages', 'get', '422')).toEqual([]);
    expect(codesAt('/contacts/{id}/linkages', 'post', '400')).toContain('request.malformed_json');
    expect(codesAt('/contacts/{id}/linkages/{linkage_id}', 'delete', '400')).not.toContain('request.malformed_json');
    expect(codesAt('/leads/{id}/convert', 'post', '409')).toEqual(['lead.already_converted']);
    // Conversion creates a customer: the customer create rules apply.
    expect(codesAt('/leads/{id}/convert', 'post', '422')).toEqual(['validation.failed', 'status.transition_invalid']);
    expect(codesAt('/leads/{id}/convert', 'post', '404')).toEqual(['resource.not_found']);
    expect(codesAt('/estimates/{id}/convert', 'post', '409')).toEqual(['estimate.not_accepted', 'estimate.already_converted']);
    // Conversion creates a job with the job create rules; a non-empty body is refused.
    expect(codesAt('/estimates/{id}/convert', 'post', '422')).toEqual(['validation.failed', 'status.transition_invalid']);
    expect(codesAt('/estimates/{id}/convert', 'post', '404')).toEqual(['resource.not_found']);
    expect(codesAt('/estimates/{id}/convert', 'post', '403')).toContain('auth.scope_missing');
    expect(codesAt('/tickets/{id}/convert', 'post', '409')).toEqual(['ticket.already_converted', 'ticket.closed']);
    expect(codesAt('/tickets/{id}/convert', 'post', '422')).toContain('validation.failed');
    // Only moving an estimate to Sent, Accepted or Declined checks the user's permission.
    expect(codesAt('/estimates/{id}', 'patch', '403')).toContain('auth.permission_denied');
    for (const [path, method] of [['/estimates/{id}/convert', 'post'], ['/estimates', 'post'], ['/jobs/{id}', 'patch'], ['/customers/{id}', 'patch']]) {
      expect(codesAt(path, method, '403'), `${method} ${path}`).not.toContain('auth.permission_denied');
    }
    // Each code's example is one shared component, taken from the first operation that answers the code.
    const example = responses(doc.paths['/contacts/{id}/linkages'].post)['422'].content['application/problem+json'].examples['validation.failed'];
    expect(example).toEqual({ $ref: '#/components/examples/validation.failed' });
    expect(deref(example).value).toMatchObject({ code: 'validation.failed', instance: '/api/v2/customers', errors: { customer: ['is missing'] } });
  });

  it('documents the conflict codes the new routes really answer', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const documented = (path: string, method: string, res: { status: number; body: any }) =>
      expect(responses(doc.paths[path][method])[String(res.status)]?.['x-error-codes'], `${method} ${path}`).toContain(res.body.code);
    const lead = await createLead(api);
    const contact = await createContact(api, { linkable_id: lead.id, linkable_type: 'Lead' });
    const [primary] = (await api.get(`/contacts/${contact.id}/linkages`)).body.data;
    expect(primary.primary).toBe(true);

    const deleteContact = await api.delete(`/contacts/${contact.id}`, ifMatch(contact.etag));
    expectProblem(deleteContact, { status: 409, code: 'contact.has_linkages' });
    documented('/contacts/{id}', 'delete', deleteContact);
    const unsetPrimary = await api.patch(`/contacts/${contact.id}/linkages/${primary.id}`, { linkage: { primary: false } });
    expectProblem(unsetPrimary, { status: 409, code: 'contact.primary_linkage' });
    documented('/contacts/{id}/linkages/{linkage_id}', 'patch', unsetPrimary);
    const unlinkPrimary = await api.delete(`/contacts/${contact.id}/linkages/${primary.id}`);
    expectProblem(unlinkPrimary, { status: 409, code: 'contact.primary_linkage' });
    documented('/contacts/{id}/linkages/{linkage_id}', 'delete', unlinkPrimary);
    expect((await api.post(`/leads/${lead.id}/convert`)).status).toBe(201);
    const again = await api.post(`/leads/${lead.id}/convert`);
    expectProblem(again, { status: 409, code: 'lead.already_converted' });
    documented('/leads/{id}/convert', 'post', again);

    const customer = await createRecord(api, 'customers', 'customer', { organization: 'Converting Co' });
    const site = await createSite(api, { type: 'Customer', id: customer.id });
    const estimate = await createRecord(api, 'estimates', 'estimate', { site_id: site.id, lineitems: [{ quantity: 1, unit_price: 5 }] });
    const draft = await api.post(`/estimates/${estimate.id}/convert`);
    expectProblem(draft, { status: 409, code: 'estimate.not_accepted' });
    documented('/estimates/{id}/convert', 'post', draft);
    const technician = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: 'Tech', email: 'tech@example.test', role: 'technician' });
    const techKey = await t.app.domain.admin.createKey({ userId: technician.id });
    const denied = await client(`${t.url}/api/v2`, techKey.token).patch(`/estimates/${estimate.id}`, { estimate: { status: 'Accepted' } }, ifMatch(estimate.etag));
    expectProblem(denied, { status: 403, code: 'auth.permission_denied' });
    documented('/estimates/{id}', 'patch', denied);
    const accepted = await api.patch(`/estimates/${estimate.id}`, { estimate: { status: 'Accepted' } }, ifMatch(estimate.etag));
    expect(accepted.status, accepted.text).toBe(200);
    const withBody = await api.post(`/estimates/${estimate.id}/convert`, { job: { title: 'x' } });
    expectProblem(withBody, { status: 422, code: 'validation.failed' });
    documented('/estimates/{id}/convert', 'post', withBody);
    expect((await api.post(`/estimates/${estimate.id}/convert`, {})).status).toBe(201);
    const twice = await api.post(`/estimates/${estimate.id}/convert`);
    expectProblem(twice, { status: 409, code: 'estimate.already_converted' });
    documented('/estimates/{id}/convert', 'post', twice);

    const missing = await api.get(`/contacts/${SOME_ID}/linkages`);
    expectProblem(missing, { status: 404, code: 'resource.not_found' });
    documented('/contacts/{id}/linkages', 'get', missing);
  });

  it('documents a code the server really answers, with the documented envelope', async () => {
    const res = await anonymous.get('/customers?limit=500');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(responses(doc.paths['/customers'].get)['401']['x-error-codes']).toContain(res.body.code);
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(schema('Problem').required));
  });
});
