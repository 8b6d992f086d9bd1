import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { eventSchemas } from '../../src/events/event-schemas.ts';
import { topics } from '../../src/events/topics.ts';
import { unavailableReason } from '../../src/kernel/topics.ts';
import { restPath } from '../../src/kernel/resource.ts';
import { highRateLimits, startTestApp, type TestApp } from '../helpers/app.ts';
import { ifMatch } from '../helpers/factories/records.ts';
import { client, type Client } from '../helpers/http.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/webhook-receivers.ts';

// The OpenAPI document's `webhooks`: one delivery per topic of the catalog, whose body schema is the event
// envelope with the topic's record and details, whose headers are Standard Webhooks' and whose answers are the
// receiver's. Checked against real deliveries: an endpoint on a local receiver gets the events of real writes,
// and every body and header is validated with the document's schemas (JSON Schema 2020-12, OpenAPI 3.1's).

const ID = 'https://fieldline.test/openapi.json';
const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;

let t: TestApp;
let doc: any;
let served: string;
let api: Client;
let ajv: Ajv2020;
let receiver: Receiver | undefined;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, rateLimits: { ...highRateLimits, webhook_ingest: 100_000 } });
  const res = await client(`${t.url}/api/v2`).get('/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  served = res.text;
  api = (await t.newTenant()).api;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  // A CommonJS module: its plugin is the default export of module.exports.
  ajvFormats.default(ajv);
  ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
  ajv.addSchema(doc, ID);
});
afterAll(async () => {
  await t.close();
  await receiver?.close();
});

const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], doc) : node);
const validators = new Map<string, ValidateFunction>();
/** The validator of a component schema (its $refs resolve in the document). */
function validatorOf(component: string): ValidateFunction {
  let validate = validators.get(component);
  if (!validate) validators.set(component, (validate = ajv.compile({ $ref: `${ID}#/components/schemas/${component}` })));
  return validate;
}
/** The component schema a webhook's body refers to. */
const bodyComponent = (topic: string) => {
  const ref: string = doc.webhooks[topic].post.requestBody.content['application/json'].schema.$ref;
  expect(ref, topic).toMatch(/^#\/components\/schemas\/[A-Za-z]+$/);
  return ref.split('/').pop()!;
};
/** The `data.object` reference of a topic's body schema, if it has one. */
const objectRef = (topic: string): string | undefined => doc.components.schemas[bodyComponent(topic)].properties.data?.properties?.object?.$ref;
/** The problems of a value against a component schema. */
const problems = (component: string, value: unknown) => {
  const validate = validatorOf(component);
  return validate(value) ? [] : [`${component}: ${ajv.errorsText(validate.errors)}`];
};

/** The `data` schema every success answer of the REST paths refers to: the records REST serves. */
function servedRecordRefs(): Set<string> {
  const refs = new Set<string>();
  for (const item of Object.values<any>(doc.paths)) {
    for (const method of methods.filter((m) => item[m])) {
      for (const [status, response] of Object.entries<any>(item[method].responses)) {
        const schema = Number(status) < 300 ? deref(deref(response).content?.['application/json']?.schema) : undefined;
        if (schema?.properties?.data?.$ref) refs.add(schema.properties.data.$ref);
      }
    }
  }
  return refs;
}

describe('webhooks of the served OpenAPI document', () => {
  it('has one POST per topic of the catalog, available or not, and nothing else', () => {
    const catalog = topics();
    expect(catalog.length).toBeGreaterThan(0);
    // Topics a module gates are in the catalog, so the document shows them.
    expect(catalog.some((topic) => topic.gate && 'module' in topic.gate)).toBe(true);
    expect(Object.keys(doc.webhooks).sort()).toEqual(catalog.map((topic) => topic.name).sort());
    for (const topic of catalog) expect(Object.keys(doc.webhooks[topic.name]), topic.name).toEqual(['post']);
  });

  it('describes each topic with the catalog\'s text; an unavailable one says why and that subscribing is 422 topic.not_available', () => {
    for (const topic of topics()) {
      const op = doc.webhooks[topic.name].post;
      expect(op.summary).toBe(topic.name);
      expect(op.description).toContain(topic.description);
      if (topic.gate) {
        expect(op.description, topic.name).toContain(unavailableReason(topic));
        expect(op.description, topic.name).toContain('422 topic.not_available');
      } else {
        expect(op.description, topic.name).not.toContain('topic.not_available');
      }
    }
  });

  it('gives every webhook an operation id unique in the document, a defined tag, no API-key security', () => {
    const pathIds = Object.values<any>(doc.paths).flatMap((item) => methods.filter((m) => item[m]).map((m) => item[m].operationId));
    const webhookIds = Object.values<any>(doc.webhooks).map((item) => item.post.operationId);
    expect(new Set([...pathIds, ...webhookIds]).size).toBe(pathIds.length + webhookIds.length);
    const tags = new Set(doc.tags.map((tag: any) => tag.name));
    for (const [name, item] of Object.entries<any>(doc.webhooks)) {
      expect(item.post.tags.every((tag: string) => tags.has(tag)), name).toBe(true);
      expect(item.post.security, name).toEqual([]);
    }
  });

  it('documents the Standard Webhooks headers and the receiver\'s answers once, as components every webhook refers to', () => {
    const headers = (op: any) => op.parameters.map(deref);
    const first = doc.webhooks[topics()[0]!.name].post;
    expect(headers(first).map((p: any) => [p.name, p.in, p.required])).toEqual([
      ['webhook-id', 'header', true],
      ['webhook-timestamp', 'header', true],
      ['webhook-signature', 'header', true],
    ]);
    expect(deref(first.parameters[2]).description).toContain('two signatures');
    const answers = Object.fromEntries(Object.entries(first.responses).map(([status, response]) => [status, deref(response).description]));
    expect(Object.keys(answers).sort()).toEqual(['2XX', '410', 'default']);
    expect(answers['410']).toContain('disabled');
    expect(answers.default).toContain('retried');
    for (const [name, item] of Object.entries<any>(doc.webhooks)) {
      expect(item.post.parameters, name).toEqual(first.parameters);
      expect(item.post.responses, name).toEqual(first.responses);
      for (const ref of [...item.post.parameters, ...Object.values(item.post.responses)]) expect(Object.keys(ref as object), name).toEqual(['$ref']);
    }
  });

  it('gives each body the envelope with its topic as `type`, and `data.object` the record REST serves for a served topic', () => {
    const recordRefs = servedRecordRefs();
    for (const topic of topics()) {
      const body = doc.components.schemas[bodyComponent(topic.name)];
      expect(body.allOf, topic.name).toEqual([{ $ref: '#/components/schemas/Event' }]);
      expect(body.properties.type, topic.name).toEqual({ const: topic.name });
      const object = objectRef(topic.name);
      expect(object, topic.name).toBe(`#/components/schemas/${topic.resource}`);
      expect(recordRefs.has(object!), `${topic.name}: REST serves ${object}`).toBe(true);
      // A declared resource's topics carry what GET /<resource>/{id} serves.
      const def = resources.find((d) => d.name === topic.recordName);
      if (def) {
        const get = deref(deref(doc.paths[`/${restPath(def)}/{id}`].get.responses['200']).content['application/json'].schema);
        expect(get.properties.data.$ref, topic.name).toBe(object);
      }
    }
  });

  it('registers the event schemas under components.schemas as built (no other schema took their names)', () => {
    for (const [name, schema] of Object.entries(eventSchemas())) expect(doc.components.schemas[name], name).toEqual(schema);
    expect(doc.components.schemas.Event.required).toEqual(['id', 'type', 'timestamp', 'api_version', 'data']);
  });

  // The document grows with the catalog but never by repeating what every delivery shares: a webhook is its
  // topic's name, text, body reference and references to the shared headers and answers (about 800 bytes), its
  // event schema about 200. openapi.test.ts budgets the rest of the document per path operation.
  it('stays under 1.2 KB of JSON per topic for the webhooks and their event schemas', () => {
    const eventSchemaBytes = Object.keys(eventSchemas()).reduce((sum, name) => sum + JSON.stringify(doc.components.schemas[name]).length, 0);
    const bytes = Buffer.byteLength(JSON.stringify(doc.webhooks)) + eventSchemaBytes;
    expect(bytes / topics().length).toBeLessThan(1_200);
    expect(served.length).toBeGreaterThan(bytes);
  });
});

describe('real deliveries against the documented webhooks', () => {
  const subscribed = ['customer.created', 'customer.updated', 'customer.status_changed', 'customer.deleted', 'lead.converted'];
  let deliveries: (ReceivedRequest & { json: any })[];
  let secret: string;
  let rest: Record<string, any>;

  beforeAll(async () => {
    receiver = await startReceiver({ kind: 'echo' });
    const endpoint = await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: subscribed, description: 'Documented deliveries' } });
    expect(endpoint.status, endpoint.text).toBe(201);
    secret = endpoint.body.data.secret;
    // Writes whose events the endpoint gets, and the REST answers their records should equal.
    const created = await api.post('/customers', { customer: { organization: 'Documented Deliveries Ltd' } });
    expect(created.status, created.text).toBe(201);
    const statuses = (await api.get('/statuses?related_name=Customer')).body.data.map((status: any) => status.display_name);
    const other = statuses.find((name: string) => name !== created.body.data.status);
    expect(other, 'a second Customer status').toBeDefined();
    const updated = await api.patch(`/customers/${created.body.data.id}`, { customer: { status: other, organization: 'Documented Deliveries Group' } }, ifMatch(created.headers.get('etag')!));
    expect(updated.status, updated.text).toBe(200);
    const deleted = await api.delete(`/customers/${created.body.data.id}`, ifMatch(updated.headers.get('etag')!));
    expect(deleted.status, deleted.text).toBe(204);
    const lead = await api.post('/leads', { lead: { organization: 'Documented Lead Co' } });
    expect(lead.status, lead.text).toBe(201);
    const converted = await api.post(`/leads/${lead.body.data.id}/convert`);
    expect(converted.status, converted.text).toBe(201);
    const test = await api.post(`/webhooks/endpoints/${endpoint.body.data.id}/test`, {});
    expect(test.status, test.text).toBe(200);
    rest = { created: created.body.data, updated: updated.body.data, converted: converted.body.data, endpoint: endpoint.body.data };
    // The challenge, then at least one delivery of each subscribed topic and the test event (order is not guaranteed).
    const expected = [...subscribed, 'webhook_endpoint.test'];
    const until = Date.now() + 15_000;
    for (;;) {
      deliveries = receiver.requests.map((request) => ({ ...request, json: JSON.parse(request.body) })).filter((request) => request.json.type !== 'webhook_endpoint.verification');
      const seen = new Set(deliveries.map((delivery) => delivery.json.type));
      if (expected.every((topic) => seen.has(topic)) || Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(new Set(deliveries.map((delivery) => delivery.json.type))).toEqual(new Set(expected));
  }, 30_000);

  const of = (topic: string) => deliveries.filter((delivery) => delivery.json.type === topic);

  it('every body is valid against its topic\'s documented schema', () => {
    const invalid = deliveries.flatMap((delivery) => problems(bodyComponent(delivery.json.type), delivery.json));
    expect(invalid).toEqual([]);
    expect(deliveries.length).toBeGreaterThanOrEqual(6);
  });

  it('every delivery carries the documented headers, each valid against its schema, and the signature verifies', () => {
    const documented = doc.webhooks['customer.created'].post.parameters.map(deref);
    for (const delivery of deliveries) {
      for (const header of documented) {
        const value = delivery.headers[header.name];
        expect(value, `${delivery.json.type} ${header.name}`).toBeDefined();
        const validate = ajv.compile(header.schema);
        expect(validate(value), `${header.name}: ${value}`).toBe(true);
      }
      expect(delivery.headers['webhook-id']).toBe(delivery.json.id);
      expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
    }
  });

  it('`data.object` is the record as REST answered the write, with the action\'s details beside it', () => {
    const [created] = of('customer.created').filter((delivery) => delivery.json.data.object.id === rest.created.id);
    expect(created!.json.data).toEqual({ object: rest.created });
    expect(created!.json.api_version).toBe(rest.endpoint.api_version);
    expect(of('customer.updated')[0]!.json.data).toEqual({ object: rest.updated, changed_fields: ['organization', 'status'] });
    expect(of('customer.status_changed')[0]!.json.data).toEqual({ object: rest.updated, previous_status: rest.created.status, status: rest.updated.status });
    expect(of('customer.deleted')[0]!.json.data).toEqual({ object: rest.updated });
    expect(of('lead.converted')[0]!.json.data).toMatchObject({ object: { id: rest.converted.lead.id }, converted_to: { customer_id: rest.converted.customer.id } });
    expect(of('webhook_endpoint.test')[0]!.json.data.object).toMatchObject({ id: rest.endpoint.id });
  });

  it('would be refused by the documented schemas: another topic, a missing detail, a malformed record (the check is not vacuous)', () => {
    const updated = of('customer.updated')[0]!.json;
    expect(problems(bodyComponent('customer.updated'), updated)).toEqual([]);
    expect(problems(bodyComponent('customer.updated'), { ...updated, type: 'customer.created' })).not.toEqual([]);
    expect(problems(bodyComponent('customer.created'), updated)).not.toEqual([]);
    const { changed_fields: _omitted, ...withoutDetails } = updated.data;
    expect(problems(bodyComponent('customer.updated'), { ...updated, data: withoutDetails })).not.toEqual([]);
    expect(problems(bodyComponent('customer.updated'), { ...updated, data: { ...updated.data, object: { ...updated.data.object, id: 7 } } })).not.toEqual([]);
    const converted = of('lead.converted')[0]!.json;
    expect(problems(bodyComponent('lead.converted'), { ...converted, data: { ...converted.data, converted_to: {} } })).not.toEqual([]);
    const { id: _id, ...withoutId } = updated;
    expect(problems(bodyComponent('customer.updated'), withoutId)).not.toEqual([]);
  });
});
