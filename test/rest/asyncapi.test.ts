import { buildSchema } from '../../src/graphql/schema/schema.ts';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncApiDocument } from '../../src/docs/asyncapi.ts';
import { topics } from '../../src/events/topics.ts';
import { unavailableReason } from '../../src/kernel/topics.ts';
import { CURRENT_VERSION } from '../../src/kernel/versioning.ts';
import { highRateLimits, startTestApp, type TestApp } from '../helpers/app.ts';
import { client, type ApiResponse } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// GET /api/v2/asyncapi.json: the events as AsyncAPI 3.0, generated from the topic catalog (the AsyncAPI parser's
// verdict on it: asyncapi-parser.test.ts); every topic has its webhook message and its GraphQL
// `events` message, the typed subscriptions follow the catalog's resources, and the payload schemas are the OpenAPI
// document's, which a real delivery satisfies under AsyncAPI's JSON Schema dialect (draft-07) too.

const PUBLIC_URL = 'https://api.example.com/base';
const ID = 'https://fieldline.test/asyncapi.json';

let t: TestApp;
let served: ApiResponse;
let doc: any;
let openapi: any;
let receiver: Receiver | undefined;

beforeAll(async () => {
  t = await startTestApp({ env: { PUBLIC_URL, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, rateLimits: { ...highRateLimits, webhook_ingest: 100_000 } });
  const anonymous = client(`${t.url}/api/v2`, undefined);
  served = await anonymous.get('/asyncapi.json');
  doc = served.body;
  openapi = (await anonymous.get('/openapi.json')).body;
});
afterAll(async () => {
  await t.close();
  await receiver?.close();
});

const deref = (node: any) => (node?.$ref ? node.$ref.split('/').slice(1).map((k: string) => k.replace(/~1/g, '/').replace(/~0/g, '~')).reduce((o: any, k: string) => o[k], doc) : node);
/** The resources the API serves that have topics, with their topics, from the catalog. */
const servedResources = () => {
  const groups = new Map<string, string[]>();
  for (const topic of topics()) groups.set(topic.resource, [...(groups.get(topic.resource) ?? []), topic.name]);
  return groups;
};
const stem = (resource: string) => resource.charAt(0).toLowerCase() + resource.slice(1);

describe('GET /api/v2/asyncapi.json', () => {
  it('is served without authentication as application/json with the rate-limit headers, built from the server\'s settings', () => {
    expect(served.status, served.text).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(served.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
    expect(served.headers.get('x-request-id')).toBeTruthy();
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.info.version).toBe(CURRENT_VERSION);
    expect(doc.info.version).toBe(openapi.info.version);
    expect(doc).toEqual(asyncApiDocument({ publicUrl: PUBLIC_URL, apiVersion: CURRENT_VERSION }));
  });

  it('is deterministic and documented in the OpenAPI document, whose overview points at it', async () => {
    expect((await client(`${t.url}/api/v2`).get('/asyncapi.json')).text).toBe(served.text);
    expect(JSON.stringify(asyncApiDocument({ apiVersion: CURRENT_VERSION }))).toBe(JSON.stringify(asyncApiDocument({ apiVersion: CURRENT_VERSION })));
    expect(openapi.paths['/asyncapi.json'].get.security).toEqual([]);
    expect(openapi.info.description).toContain('/api/v2/asyncapi.json');
  });
});

describe('servers and channels', () => {
  it('sends webhooks to the address each endpoint registered (null here) over HTTP POST', () => {
    expect(doc.channels.webhook.address).toBeNull();
    expect(doc.channels.webhook.servers).toEqual([{ $ref: '#/servers/webhookEndpoint' }]);
    expect(doc.servers.webhookEndpoint).toMatchObject({ host: '{host}', protocol: 'http', variables: { host: expect.any(Object), path: expect.any(Object) } });
    expect(doc.operations.deliverWebhook).toMatchObject({ action: 'send', channel: { $ref: '#/channels/webhook' }, bindings: { http: { method: 'POST' } } });
    // The receiver's answers: 2xx received, 410 disables, anything else retried.
    expect(doc.operations.deliverWebhook.description).toMatch(/2XX: [\s\S]*410: [\s\S]*disabled[\s\S]*Anything else: [\s\S]*retried/);
  });

  it('serves GraphQL subscriptions over graphql-ws on /graphql of the public URL, the key in connection_init', () => {
    expect(doc.channels.graphql).toMatchObject({ address: '/graphql', servers: [{ $ref: '#/servers/fieldline' }] });
    expect(doc.channels.graphql.bindings.ws.headers.properties['Sec-WebSocket-Protocol'].const).toBe('graphql-transport-ws');
    expect(doc.servers.fieldline).toMatchObject({ host: 'api.example.com', pathname: '/base', protocol: 'wss', security: [{ $ref: '#/components/securitySchemes/apiKey' }] });
    expect(doc.components.securitySchemes.apiKey.description).toContain('connection_init');
    expect(doc.channels.graphql.description).toContain('{"authorization": "Bearer svc_..."}');
    expect(doc.channels.graphql.description).toContain('subscription.resync_required');
    expect(doc.info.contact).toEqual({ name: 'Fieldline API team', url: `${PUBLIC_URL}/docs` });
    // Without PUBLIC_URL the host is a variable for the reader, and there is no absolute link.
    const bare: any = asyncApiDocument({ apiVersion: CURRENT_VERSION });
    expect(bare.servers.fieldline).toMatchObject({ host: '{host}', protocol: 'wss', variables: { host: expect.any(Object) } });
    expect(bare.info.contact).toEqual({ name: 'Fieldline API team' });
    expect(bare.info.externalDocs).toBeUndefined();
  });
});

describe('messages', () => {
  it('has, for every topic of the catalog, a webhook message and a GraphQL events message whose payloads are its event schema', () => {
    const catalog = topics();
    expect(catalog.length).toBeGreaterThan(0);
    expect(Object.keys(doc.channels.webhook.messages).sort()).toEqual(catalog.map((topic) => topic.name).sort());
    for (const topic of catalog) {
      const body = openapi.webhooks[topic.name].post.requestBody.content['application/json'].schema;
      const delivery = deref(doc.channels.webhook.messages[topic.name]);
      expect(delivery, topic.name).toMatchObject({ name: topic.name, payload: body, headers: { $ref: '#/components/schemas/WebhookHeaders' } });
      const event = deref(doc.channels.graphql.messages[topic.name]);
      expect(event.name, topic.name).toBe(topic.name);
      expect(event.payload, topic.name).toEqual({ allOf: [{ $ref: '#/components/schemas/EventMessage' }], properties: { topic: { const: topic.name }, envelope: body } });
      for (const message of [delivery, event]) {
        expect(message.description, topic.name).toContain(topic.description);
        if (topic.gate) expect(message.description, topic.name).toContain(unavailableReason(topic));
      }
    }
    expect(doc.operations.deliverWebhook.messages).toHaveLength(catalog.length);
    expect(doc.operations.events.messages.map((m: any) => m.$ref).sort()).toEqual(catalog.map((topic) => `#/channels/graphql/messages/${topic.name}`).sort());
  });

  it('has one typed subscription per served resource with topics, `<resource>Events`, listing its topics', () => {
    const groups = servedResources();
    expect(groups.get('Job')).toEqual(expect.arrayContaining(['job.created', 'job.status_changed']));
    const typed = Object.keys(doc.operations).filter((name) => !['deliverWebhook', 'events'].includes(name));
    // Exactly the typed subscriptions the GraphQL schema serves.
    const served = Object.keys(buildSchema().getSubscriptionType()!.getFields()).filter((name) => name !== 'events');
    expect(typed.sort()).toEqual(served.sort());
    for (const name of typed) expect(groups.has(name.replace(/Events$/, '').replace(/^./, (c) => c.toUpperCase())), name).toBe(true);
    for (const name of typed) {
      const resource = name.replace(/Events$/, '').replace(/^./, (c) => c.toUpperCase());
      const names = groups.get(resource)!;
      const operation = doc.operations[name];
      expect(operation.summary).toContain(`${resource}EventFilter`);
      const [message] = operation.messages.map((ref: any) => deref(deref(ref)));
      expect(message.name).toBe(`${resource}Event`);
      for (const name of names) expect(message.description).toContain(`\`${name}\``);
      expect(Object.keys(message.payload.properties)).toEqual(['seq', 'id', 'topic', stem(resource), 'etag', 'changedFields']);
    }
  });

  it('shares the OpenAPI document\'s schemas: every schema of both is the same, and every schema here is referred to', () => {
    const names = Object.keys(doc.components.schemas);
    const shared = names.filter((name) => name in openapi.components.schemas);
    for (const name of shared) expect(doc.components.schemas[name], name).toEqual(openapi.components.schemas[name]);
    expect(names.filter((name) => !shared.includes(name)).sort()).toEqual(['EventMessage', 'WebhookHeaders']);
    const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: undefined } }) + JSON.stringify(Object.values(doc.components.schemas));
    for (const name of names) expect(text, name).toContain(`"#/components/schemas/${name}"`);
  });
});

describe('a real delivery against the AsyncAPI message', () => {
  let ajv: Ajv;
  const validatorOf = new Map<string, ValidateFunction>();
  const validate = (pointer: string, value: unknown) => {
    let compiled = validatorOf.get(pointer);
    if (!compiled) validatorOf.set(pointer, (compiled = ajv.compile({ $ref: `${ID}#${pointer}` })));
    return compiled(value) ? [] : [ajv.errorsText(compiled.errors)];
  };

  beforeAll(() => {
    // AsyncAPI's default schema format is a superset of JSON Schema draft-07: Ajv's default dialect.
    ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    ajvFormats.default(ajv);
    ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
    ajv.addSchema(doc, ID);
  });

  it('satisfies its topic\'s payload and headers schemas; a body of another topic does not', async () => {
    const { api } = await t.newTenant();
    receiver = await startReceiver({ kind: 'echo' });
    const endpoint = await api.post('/webhooks/endpoints', { endpoint: { url: receiver.url, topics: ['customer.created'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const customer = await api.post('/customers', { customer: { organization: 'AsyncAPI Readers Ltd' } });
    expect(customer.status, customer.text).toBe(201);
    const [, delivery] = await receiver.waitFor(2, 15_000);
    const body = JSON.parse(delivery!.body);
    expect(body).toMatchObject({ type: 'customer.created', data: { object: customer.body.data } });
    const message = '/components/messages/CustomerCreatedDelivery';
    expect(deref(doc.channels.webhook.messages['customer.created'])).toBe(doc.components.messages.CustomerCreatedDelivery);
    expect(validate(`${message}/payload`, body)).toEqual([]);
    expect(validate(`${message}/headers`, delivery!.headers)).toEqual([]);
    expect(validate(`${message}/payload`, { ...body, type: 'customer.updated' })).not.toEqual([]);
    expect(validate(`${message}/headers`, { ...delivery!.headers, 'webhook-signature': 'v2,nope' })).not.toEqual([]);
    // The GraphQL `events` message carries the same body as its envelope.
    expect(validate('/components/messages/CustomerCreatedEventMessage/payload', { seq: 1, id: body.id, topic: body.type, envelope: body })).toEqual([]);
    expect(validate('/components/messages/CustomerCreatedEventMessage/payload', { seq: 1, id: body.id, topic: 'job.created', envelope: body })).not.toEqual([]);
  }, 30_000);
});
