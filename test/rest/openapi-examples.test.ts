import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { bodyKeyOf, serves } from '../../src/kernel/resource.ts';
import { errorCatalog } from '../../src/kernel/errors.ts';
import { createAnswers } from '../../src/rest/openapi-operations.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { client } from '../helpers/http.ts';

// The examples of the served OpenAPI document: every operation's successful call shows its request and response
// bodies, every error code its problem body, and each example is valid against the schema it illustrates
// (JSON Schema 2020-12, the dialect of OpenAPI 3.1, with formats).

const ID = 'https://fieldline.test/openapi.json';
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

let t: TestApp;
let doc: any;
let ajv: Ajv2020;

beforeAll(async () => {
  t = await startTestApp();
  doc = (await client(`${t.url}/api/v2`).get('/openapi.json')).body;
  // OpenAPI's own keywords in schemas (x-not-accepted ...) are annotations: not strict.
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  // A CommonJS module: its plugin is the default export of module.exports.
  ajvFormats.default(ajv);
  ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
  ajv.addSchema(doc, ID);
});
afterAll(() => t.close());

const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc) : node);
const pointer = (parts: string[]) => parts.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
const validators = new Map<string, ValidateFunction>();
/** The validator of the schema at `parts` of the document (its $refs resolve in the document). */
function validatorAt(parts: string[]): ValidateFunction {
  const at = pointer(parts);
  let validate = validators.get(at);
  if (!validate) validators.set(at, (validate = ajv.compile({ $ref: `${ID}#${at}` })));
  return validate;
}

interface Example {
  /** Where the example is shown. */
  at: string;
  /** Where its schema is. */
  schema: string[];
  value: unknown;
  /** The components.examples entry it refers to, if it does. */
  ref?: string;
}

/**
 * Every example of the document: those of media types, parameters and headers (example, or examples by value or
 * reference) against their `schema`, and those a schema carries itself (example, examples).
 */
function examples(node: any, parts: string[] = [], inSchema = false): Example[] {
  if (!node || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap((item, i) => examples(item, [...parts, String(i)], inSchema));
  const found: Example[] = [];
  if (inSchema) {
    if ('example' in node) found.push({ at: pointer(parts), schema: parts, value: node.example });
    for (const [i, value] of (Array.isArray(node.examples) ? node.examples : []).entries()) found.push({ at: `${pointer(parts)}/examples/${i}`, schema: parts, value });
  } else if (node.schema) {
    if ('example' in node) found.push({ at: pointer(parts), schema: [...parts, 'schema'], value: node.example });
    for (const [name, example] of Object.entries<any>(node.examples ?? {})) found.push({ at: `${pointer(parts)} ${name}`, schema: [...parts, 'schema'], value: deref(example).value, ref: example.$ref });
  }
  for (const [key, value] of Object.entries(node)) {
    // Example values are data, not document structure.
    if (!inSchema && (key === 'example' || key === 'examples')) continue;
    if (parts.length === 1 && parts[0] === 'components' && key === 'examples') continue;
    const schemaHere = inSchema || key === 'schema' || (parts.length === 1 && parts[0] === 'components' && key === 'schemas');
    found.push(...examples(value, [...parts, key], schemaHere));
  }
  return found;
}

const operations = () =>
  Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) => methods.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })));

describe('examples of the served OpenAPI document', () => {
  it('show the request body and the success body of every operation', () => {
    const missing: string[] = [];
    for (const { path, method, op } of operations()) {
      const request = op.requestBody?.content?.['application/json'];
      if (request && !request.examples) missing.push(`${method} ${path} request`);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const content = deref(response).content?.['application/json'];
        if (Number(status) < 300 && content && !content.examples) missing.push(`${method} ${path} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('are each valid against the schema they illustrate', () => {
    const all = examples(doc);
    const invalid = all.flatMap(({ at, schema, value }) => {
      const validate = validatorAt(schema);
      return validate(value) ? [] : [`${at}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
    // Every example of components.examples (bodies and problems) is shown, and so checked, somewhere.
    const shown = new Set(all.map((example) => example.ref));
    expect(Object.keys(doc.components.examples).filter((name) => !shown.has(`#/components/examples/${name}`))).toEqual([]);
    expect(all.length).toBeGreaterThan(Object.keys(doc.components.examples).length);
  });

  it('would be caught invalid: a wrong type, an unknown field, a missing member (the check is not vacuous)', () => {
    const [, first] = Object.entries(doc.components.examples).find(([name]) => name === `${resources[0].className}Response`)!;
    const record = (first as any).value.data;
    const response = validatorAt(['components', 'schemas', `${resources[0].className}Response`]);
    expect(response({ data: record })).toBe(true);
    expect(response({ data: { ...record, id: 7 } })).toBe(false);
    expect(response({ data: { ...record, undocumented: true, id: 'not-a-uuid' } })).toBe(false);
    const create = validatorAt(['components', 'schemas', `${resources[0].className}CreateRequest`]);
    expect(create({ [bodyKeyOf(resources[0])]: { undocumented: true } })).toBe(false);
    const list = validatorAt(['components', 'schemas', `${resources[0].className}List`]);
    expect(list({ data: [record], has_more: false })).toBe(false);
  });

  it('are generated from the declarations: every served field, a create body of every accepted field, ids that agree', () => {
    const example = (name: string) => doc.components.examples[name].value;
    for (const def of resources) {
      const served = example(`${def.className}Response`).data;
      expect(Object.keys(served).sort(), def.className).toEqual(Object.keys(doc.components.schemas[def.className].properties).sort());
      expect(example(`${def.className}List`)).toMatchObject({ data: [served], has_more: true, next_cursor: expect.any(String) });
      const accepted = Object.entries(def.fields).filter(([, spec]) => spec.create !== 'not_accepted').map(([name]) => name);
      // The record travels under its body key (bodyKeyOf: the name unless declared).
      if (serves(def, 'create')) expect(Object.keys(example(`${def.className}CreateRequest`)[bodyKeyOf(def)]), def.className).toEqual(expect.arrayContaining(accepted));
      if (serves(def, 'update')) expect(Object.keys(example(`${def.className}UpdateRequest`)[bodyKeyOf(def)]).length, def.className).toBe(1);
      // A create answer that adds fields (a webhook endpoint's secret) shows the same record with them.
      const answer = createAnswers[def.name];
      if (answer) expect(example(`${def.className}CreatedResponse`).data, def.className).toEqual({ ...served, ...Object.fromEntries(Object.keys(answer.fields).map((name) => [name, expect.anything()])) });
    }
    // A reference holds the id of the referenced record's example; a polymorphic pair names the first type's.
    const customer = example('CustomerResponse').data;
    expect(example('JobResponse').data.customer_id).toBe(customer.id);
    expect(example('ContactCreateRequest').contact).toMatchObject({ linkable_type: 'Customer', linkable_id: customer.id });
    expect(example('ConvertLeadResponse').data.customer).toEqual(customer);
    expect(example('ContactLinkageList')).toMatchObject({ has_more: false, next_cursor: null });
  });

  it('give every error code one example, shared by every error response that lists the code', () => {
    const problems = Object.entries(doc.components.responses as Record<string, any>).filter(([, component]) => component['x-error-codes']);
    expect(problems.length).toBeGreaterThan(0);
    for (const [name, component] of problems) {
      const codes: string[] = component['x-error-codes'];
      const content = component.content['application/problem+json'];
      expect(content.examples, name).toEqual(Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])));
      for (const code of codes) {
        const problem = doc.components.examples[code].value;
        expect(problem).toMatchObject({ code, status: errorCatalog[code as keyof typeof errorCatalog].status, title: errorCatalog[code as keyof typeof errorCatalog].title });
        // ERRORS_URL defaults to the server's own relative /errors.
        expect(problem.type).toBe(`/errors/${code}`);
        expect(problem.doc_url).toBe(`/errors/${code.replace(/[._]/g, '-')}`);
      }
    }
  });
});
