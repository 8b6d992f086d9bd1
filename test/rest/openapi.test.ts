import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { errorCatalog } from '../../src/kernel/errors.ts';
import { supportedVersions } from '../../src/kernel/versioning.ts';
import { lookupKinds } from '../../src/resources/lookups/lookup.service.ts';
import { buildOpenApiDocument } from '../../src/rest/openapi.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { client, type Client } from '../helpers/http.ts';

let t: TestApp;
let anonymous: Client;
let served: { status: number; headers: Headers; body: any };
let doc: any;

beforeAll(async () => {
  t = await startTestApp();
  anonymous = client(`${t.url}/api/v2`, undefined);
  served = await anonymous.get('/openapi.json');
  doc = served.body;
});
afterAll(() => t.close());

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
const operations = () =>
  Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) =>
    methods.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
const schema = (name: string) => doc.components.schemas[name];
const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc) : node);

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

describe('routes', () => {
  it('documents exactly the routes the REST adapter mounts: the five per resource, /me, the lookups and itself', () => {
    const expected = [
      'GET /me',
      ...Object.keys(lookupKinds).map((kind) => `GET /${kind}`),
      ...resources.flatMap((def) => [
        `GET /${def.plural}`,
        `POST /${def.plural}`,
        `GET /${def.plural}/{id}`,
        `PATCH /${def.plural}/{id}`,
        `DELETE /${def.plural}/{id}`,
      ]),
      'GET /openapi.json',
    ].sort();
    expect(operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`).sort()).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(['GET /statuses', 'GET /labels', 'GET /custom_field_definitions', 'POST /customers']));
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/api/v2' })]);
  });

  it('lists for every documented path the same methods the server allows (405 Allow)', async () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
      const concrete = path.replace('{id}', '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23');
      const res = await anonymous.request('PUT', concrete);
      expect(res.status, path).toBe(405);
      const allowed = res.headers.get('allow')!.split(',').map((m) => m.trim().toLowerCase()).sort();
      expect(allowed, path).toEqual(methods.filter((m) => item[m]).sort());
    }
  });

  it('gives every operation a unique operationId, a tag and the rate-limit and request-id headers on every response', () => {
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of operations()) {
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id']));
        if (status === '429') expect(headers).toContain('Retry-After');
      }
    }
  });

  it('answers create 201 with Location and ETag, get and update 200 with ETag, delete 204, and lists with Link', () => {
    for (const def of resources) {
      const collection = doc.paths[`/${def.plural}`];
      const item = doc.paths[`/${def.plural}/{id}`];
      expect(Object.keys(collection.post.responses['201'].headers)).toEqual(expect.arrayContaining(['ETag', 'Location']));
      expect(collection.post.responses['201'].content['application/json'].schema.$ref).toBe(`#/components/schemas/${def.className}Response`);
      expect(collection.post.responses['200']).toBeUndefined();
      expect(Object.keys(item.get.responses['200'].headers)).toContain('ETag');
      expect(Object.keys(item.patch.responses['200'].headers)).toContain('ETag');
      expect(item.delete.responses['204']).toBeDefined();
      expect(item.delete.responses['204'].content).toBeUndefined();
      expect(Object.keys(collection.get.responses['200'].headers)).toContain('Link');
      expect(collection.get.responses['200'].content['application/json'].schema.$ref).toBe(`#/components/schemas/${def.className}List`);
      expect(schema(`${def.className}List`).required).toEqual(['data', 'has_more']);
    }
  });

  it('requires If-Match on PATCH and DELETE and documents 412 and 428 there', () => {
    for (const def of resources) {
      for (const method of ['patch', 'delete']) {
        const op = doc.paths[`/${def.plural}/{id}`][method];
        const ifMatch = op.parameters.map(deref).find((p: any) => p.name === 'If-Match');
        expect(ifMatch).toMatchObject({ in: 'header', required: true });
        expect(op.responses['412']['x-error-codes']).toEqual(['precondition.failed']);
        expect(op.responses['428']['x-error-codes']).toEqual(['precondition.required']);
      }
    }
  });

  it('documents the Fieldline-Version request header with the supported versions on every authenticated operation', () => {
    for (const { path, method, op } of operations()) {
      const version = (op.parameters ?? []).map(deref).find((p: any) => p.name === 'Fieldline-Version');
      if (path === '/openapi.json') {
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
      expect(doc.paths[`/${def.plural}`].get['x-required-scope']).toBe(read);
      expect(doc.paths[`/${def.plural}`].get.security).toEqual([{ bearerAuth: [read] }]);
      expect(doc.paths[`/${def.plural}`].post['x-required-scope']).toBe(write);
      expect(doc.paths[`/${def.plural}/{id}`].get['x-required-scope']).toBe(read);
      expect(doc.paths[`/${def.plural}/{id}`].patch['x-required-scope']).toBe(write);
      expect(doc.paths[`/${def.plural}/{id}`].delete['x-required-scope']).toBe(write);
    }
    for (const path of ['/me', '/statuses', '/labels', '/custom_field_definitions']) {
      expect(doc.paths[path].get['x-required-scope']).toBeUndefined();
      expect(doc.paths[path].get.security).toEqual([{ bearerAuth: [] }]);
    }
  });
});

describe('Customer', () => {
  const specFields = ['organization', 'main_phone', 'fax', 'website', 'description', 'reference', 'assignee_id', 'number', 'status', 'labels', 'customer_notes', 'custom_fields'];

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
    const create = schema('CustomerCreate');
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
    const update = schema('CustomerUpdate');
    expect(update.required).toBeUndefined();
    expect(Object.keys(update.properties).sort()).toEqual([...specFields].sort());
    expect(update.properties.status.description).toContain('status.transition_invalid');
    expect(update.properties.number.description).toContain('number.immutable');
    expect(update.properties.organization.type).toBe('string');
    expect(update.properties.labels.description).toContain('[] clears');
    expect(schema('CustomerUpdateRequest').required).toEqual(['customer']);
    const patch = doc.paths['/customers/{id}'].patch;
    expect(patch.responses['422']['x-error-codes']).toEqual(['validation.failed', 'status.transition_invalid', 'number.immutable']);
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
    expect(query.every((p: any) => p.required === false)).toBe(true);
  });

  it('every documented list parameter and sort value is accepted by the real endpoint', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const sample = (p: any) => (p.schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : p.schema.type === 'integer' ? '10' : 'Active');
    const params = doc.paths['/customers'].get.parameters.map(deref);
    const query = params.filter((p: any) => p.in === 'query' && !['cursor', 'sort', 'custom_fields'].includes(p.name));
    expect(query.length).toBeGreaterThan(5);
    for (const p of query) {
      const res = await api.get(`/customers?${encodeURIComponent(p.name)}=${encodeURIComponent(sample(p))}`);
      expect(res.status, `${p.name}: ${res.text}`).toBe(200);
    }
    const sort = params.find((p: any) => p.name === 'sort');
    for (const value of sort.schema.enum) {
      expect((await api.get(`/customers?sort=${value}`)).status, value).toBe(200);
    }
    const field = await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Customer', name: 'Region', type: 'text' });
    const custom = await api.get(`/customers?${encodeURIComponent(`custom_fields[${field.id}]`)}=North`);
    expect(custom.status, custom.text).toBe(200);
    const undocumented = await api.get('/customers?created_at[eq]=2026-01-01T00:00:00Z');
    expect(undocumented.body.code).toBe('filter.invalid');
  });
});

describe('errors', () => {
  it('lists the whole catalog in x-error-codes and in info.description', () => {
    const listed = doc['x-error-codes'];
    expect(listed.map((e: any) => e.code)).toEqual(Object.keys(errorCatalog));
    for (const entry of listed) {
      const known = errorCatalog[entry.code as keyof typeof errorCatalog];
      expect(entry).toMatchObject({ status: known.status, title: known.title });
      expect(entry.doc_url).toMatch(new RegExp(`/${entry.code.replace(/[._]/g, '-')}$`));
      expect(doc.info.description).toContain(`| ${entry.code} | ${known.status} | ${known.title} |`);
    }
  });

  it('describes the problem envelope with its optional extras', () => {
    const problem = schema('Problem');
    expect(problem.required.sort()).toEqual(['code', 'detail', 'doc_url', 'instance', 'request_id', 'status', 'title', 'type']);
    expect(Object.keys(problem.properties)).toEqual(expect.arrayContaining(['errors', 'required_scope', 'granted_scopes', 'max_limit', 'reason']));
    expect(problem.properties.detail.type).toEqual(['string', 'null']);
  });

  it('documents each error response as application/problem+json whose codes carry that status', () => {
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
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
      Object.values(doc.paths[path][method].responses as Record<string, any>).flatMap((r: any) => r['x-error-codes'] ?? []);
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
    expect(codes('/openapi.json', 'get')).toEqual(['rate_limit.exceeded', 'internal.error']);
  });

  it('documents a code the server really answers, with the documented envelope', async () => {
    const res = await anonymous.get('/customers?limit=500');
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(doc.paths['/customers'].get.responses['401']['x-error-codes']).toContain(res.body.code);
    expect(Object.keys(res.body)).toEqual(expect.arrayContaining(schema('Problem').required));
  });
});
