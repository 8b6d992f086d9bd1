import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { userClient } from '../helpers/factories/accounts.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createEstimate } from '../helpers/factories/estimates.ts';
import { createLead } from '../helpers/factories/leads.ts';
import { patch, readRecord, unique } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import { codeOf, expectNotInEnum, failed, fieldsOf, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Issue 8, hostile input over GraphQL: the resolvers hand the services the same values and list requests as REST, so
// text PostgreSQL cannot store (NUL, unpaired surrogates) gets the REST answers (validation.failed naming the
// camelCase field, filter.invalid naming the parameter), never internal.error; JSON scalar values nested too
// deeply are request.too_deep; /GRAPHQL is not /graphql; and the estimate decision gate holds both ways.

const CANNOT_STORE = 'contains a character that cannot be stored (NUL or unpaired surrogate)';
const hostile = { nul: 'bad\u0000text', high: 'bad\ud800text', low: '\udc00bad' } as const;
/** The one userError of a mutation refused for text that cannot be stored at this path of its argument (input unless named). */
const cannotStore = (path: string[], argument = 'input') => [{ field: [argument, ...path], message: `${path.join('.')} ${CANNOT_STORE}`, code: 'validation.failed' }];

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, gql, api: rest } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(rest);
});

const CREATE_CUSTOMER = `mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } ${USER_ERRORS} } }`;
const CUSTOMERS = 'query($filter: CustomerFilter, $after: String) { customers(filter: $filter, after: $after) { nodes { id } } }';

describe('text PostgreSQL cannot store, in mutation arguments', () => {
  it('answers validation.failed naming the field for NUL and unpaired surrogates in create and update arguments', async () => {
    for (const value of Object.values(hostile)) {
      expect(failed(await gql(CREATE_CUSTOMER, { input: { organization: value, reference: 'fine' } }), 'validation.failed')).toEqual(cannotStore(['organization']));
    }
    const created = ok(await gql('mutation { createCustomer(input: { organization: "Fine" }) { etag customer { id } } }')).createCustomer;
    const update = await gql(`mutation($id: ID!, $ifMatch: String, $input: UpdateCustomerInput!) { updateCustomer(id: $id, ifMatch: $ifMatch, input: $input) { customer { id } ${USER_ERRORS} } }`, {
      id: created.customer.id,
      ifMatch: created.etag,
      input: { customerNotes: hostile.nul },
    });
    expect(failed(update, 'validation.failed')).toEqual(cannotStore(['customerNotes']));
    // In a literal of the document too.
    const literal = await gql(`mutation { createCustomer(input: { organization: "a\\u0000b" }) { customer { id } ${USER_ERRORS} } }`);
    expect(failed(literal, 'validation.failed')).toEqual(cannotStore(['organization']));
  });

  it('names nested fields in camelCase: line items, phone numbers, labels, custom field values and keys', async () => {
    const text = await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Job', name: unique('Text'), type: 'text' });
    const job = (input: Record<string, unknown>) => gql(`mutation($input: CreateJobInput!) { createJob(input: $input) { job { id } ${USER_ERRORS} } }`, { input: { siteId: place.site.id, ...input } });
    const line = { description: 'ok', quantity: '1', unitPrice: '2' };
    expect(failed(await job({ lineitems: [line, { ...line, description: hostile.high }] }), 'validation.failed')).toEqual(cannotStore(['lineitems', '1', 'description']));
    expect(failed(await job({ customFields: { [text.id]: hostile.nul } }), 'validation.failed')).toEqual(cannotStore(['customFields', text.id]));
    expect(failed(await job({ customFields: { [hostile.low]: 'x' } }), 'validation.failed')).toEqual([
      { field: ['input', 'customFields'], message: 'customFields has a key that contains a character that cannot be stored (NUL or unpaired surrogate)', code: 'validation.failed' },
    ]);
    expect(failed(await job({ labels: [hostile.nul] }), 'validation.failed')).toEqual(cannotStore(['labels', '0']));
    const contact = await gql(`mutation($input: CreateContactInput!) { createContact(input: $input) { contact { id } ${USER_ERRORS} } }`, {
      input: { firstName: 'Pat', phoneNumbers: [{ number: hostile.nul }] },
    });
    expect(failed(contact, 'validation.failed')).toEqual(cannotStore(['phoneNumbers', '0', 'number']));
    const estimate = await gql(`mutation($input: CreateEstimateInput!) { createEstimate(input: $input) { estimate { id } ${USER_ERRORS} } }`, {
      input: { siteId: place.site.id, title: hostile.low },
    });
    expect(failed(estimate, 'validation.failed')).toEqual(cannotStore(['title']));
  });

  it('checks linkage and lead conversion arguments the same way', async () => {
    const contact = await createContact(rest);
    const link = await gql(`mutation($contactId: ID!, $input: LinkContactInput!) { linkContact(contactId: $contactId, input: $input) { linkage { id } ${USER_ERRORS} } }`, {
      contactId: contact.id,
      input: { linkableId: place.customer.id, linkableType: `Customer${hostile.nul}` },
    });
    // linkableType is the LinkableType enum: the text never reaches the service.
    expectNotInEnum(link, 'LinkableType');
    const lead = await createLead(rest);
    const convert = await gql(`mutation($id: ID!, $customer: ConvertLeadCustomerInput) { convertLead(id: $id, customer: $customer) { customer { id } ${USER_ERRORS} } }`, {
      id: lead.id,
      customer: { organization: hostile.high },
    });
    expect(failed(convert, 'validation.failed')).toEqual(cannotStore(['organization'], 'customer'));
    expect((await readRecord(rest, 'leads', lead.id)).record.converted_customer_id).toBeNull();
  });
});

describe('text PostgreSQL cannot store, in list and lookup arguments', () => {
  it('answers filter.invalid naming the argument (in GraphQL names) for q, filters, sort, cursor and custom field filters', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ filter: { q: hostile.nul } }, 'filter.q'],
      [{ filter: { q: hostile.high } }, 'filter.q'],
      [{ after: hostile.high }, 'after'],
      [{ filter: { customFields: [{ id: '01900000-0000-7000-8000-000000000001', value: hostile.nul }] } }, 'filter.customFields[01900000-0000-7000-8000-000000000001]'],
      [{ filter: { statusIn: ['Active', hostile.low] } }, 'filter.statusIn'],
    ];
    // The sort field is an enum: text of any kind is refused by the schema before anything runs.
    const sorted = await gql('query($sort: CustomerSort) { customers(sort: $sort) { nodes { id } } }', { sort: { field: hostile.nul } });
    expect(sorted.status).toBe(400);
    expect(sorted.body.data).toBeUndefined();
    expect(sorted.body.errors![0].message).toContain('CustomerSortField');
    for (const [variables, name] of cases) {
      const error = failed(await gql(CUSTOMERS, variables), 'filter.invalid');
      expect(error.message).toBe(`${name}: ${CANNOT_STORE}`);
      expect(error.extensions!.status).toBe(400);
    }
    const jobs = await gql('query($q: String) { jobs(filter: { q: $q }) { nodes { id } } }', { q: hostile.nul });
    expect(failed(jobs, 'filter.invalid').message).toBe(`filter.q: ${CANNOT_STORE}`);
  });

  it('answers filter.invalid on the system options catalog; a relatedName of the lookups is an enum, refused before running', async () => {
    for (const field of ['statuses', 'labels', 'customFieldDefinitions']) {
      expectNotInEnum(await gql(`query($r: ResourceClass) { ${field}(relatedName: $r) { id } }`, { r: hostile.nul }), 'ResourceClass');
    }
    const options = await gql('query($s: String) { systemOptions(systemType: $s) { id } }', { s: hostile.high });
    expect(failed(options, 'filter.invalid').message).toBe(`systemType: ${CANNOT_STORE}`);
  });
});

describe('JSON scalar values nested too deeply', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'x';
    for (let i = 0; i < depth; i += 1) value = [value];
    return value;
  };

  it('answers request.too_deep for a custom_fields value nested more than 32 levels, in variables and in a literal', async () => {
    const variables = await gql(CREATE_CUSTOMER, { input: { organization: unique('Deep '), customFields: { x: nested(40) } } });
    expect(codeOf(variables), JSON.stringify(variables.body)).toBe('request.too_deep');
    expect(variables.body.data?.createCustomer ?? null).toBeNull();
    const literalValue = `${'['.repeat(40)}1${']'.repeat(40)}`;
    const literal = await gql(`mutation { createCustomer(input: { organization: "Deep", customFields: { x: ${literalValue} } }) { customer { id } } }`);
    expect(codeOf(literal), JSON.stringify(literal.body)).toBe('request.too_deep');
    expect(literal.body.data?.createCustomer ?? null).toBeNull();
  });

  it('lets a value of 32 levels through to the service, which judges it, and refuses 33', async () => {
    // {x: [[...]]}: the object is one level, the arrays the others.
    const literal = (arrays: number) =>
      gql(`mutation { createCustomer(input: { organization: "${unique('Depth ')}", customFields: { x: ${'['.repeat(arrays)}1${']'.repeat(arrays)} } }) { customer { id } ${USER_ERRORS} } }`);
    expect(fieldsOf(failed(await literal(31), 'validation.failed'))).toContainEqual(['input', 'customFields', 'x']);
    expect(codeOf(await literal(32))).toBe('request.too_deep');
    // In variables, the request body around the value counts too (its JSON may nest 32 levels in all).
    const variables = await gql(CREATE_CUSTOMER, { input: { organization: unique('Depth '), customFields: { x: nested(20) } } });
    expect(fieldsOf(failed(variables, 'validation.failed'))).toContainEqual(['input', 'customFields', 'x']);
  });
});

describe('case-sensitive routing', () => {
  it('serves GraphQL at /graphql only: /GRAPHQL and /GraphQL answer 404 without executing', async () => {
    for (const path of ['/GRAPHQL', '/GraphQL', '/Graphql/']) {
      const res = await fetch(`${t.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `mutation { createCustomer(input: { organization: "${unique('Shouting ')}" }) { customer { id } } }` }),
      });
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('"data"');
    }
    expect((await rest.get('/customers?q=Shouting')).body.data).toEqual([]);
  });
});

describe('a malformed Host header', () => {
  it('never answers 500 on /graphql', async () => {
    const { port, hostname } = new URL(t.url);
    const body = JSON.stringify({ query: '{ me { apiVersion } }' });
    for (const host of ['a b', 'x:abc', '[::1', '']) {
      const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: hostname,
            port: Number(port),
            path: '/graphql',
            method: 'POST',
            setHost: false,
            headers: { host, authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      expect(res.status, `${JSON.stringify(host)}: ${res.text.slice(0, 300)}`).toBe(200);
      expect(JSON.parse(res.text).data.me.apiVersion).toBeTypeOf('string');
    }
  });
});

describe('estimate decisions are gated in both directions', () => {
  const UPDATE_ESTIMATE = 'mutation($id: ID!, $ifMatch: String, $input: UpdateEstimateInput!) { updateEstimate(id: $id, ifMatch: $ifMatch, input: $input) { etag estimate { status title } } }';

  it('refuses updateEstimate moving a Sent estimate back to Draft for a technician (auth.permission_denied), allows the same status and other fields', async () => {
    const tech = await userClient(t, tenant, 'technician');
    const techGql = t.graphql((await t.app.domain.admin.createKey({ userId: tech.user.id })).token);
    let est = await createEstimate(rest, { site_id: place.site.id });
    const sent = await patch(rest, 'estimates', est, { status: 'Sent' });
    expect(sent.status, sent.text).toBe(200);
    est = { ...est, etag: sent.headers.get('etag')! };
    for (const status of ['Draft', 'Accepted']) {
      const error = failed(await techGql(UPDATE_ESTIMATE, { id: est.id, ifMatch: est.etag, input: { status } }), 'auth.permission_denied');
      expect(error.message).toContain(`from Sent to ${status}`);
    }
    expect((await readRecord(rest, 'estimates', est.id)).etag).toBe(est.etag);
    const same = ok(await techGql(UPDATE_ESTIMATE, { id: est.id, ifMatch: est.etag, input: { status: 'Sent', title: 'Checked' } })).updateEstimate;
    expect(same.estimate).toEqual({ status: 'Sent', title: 'Checked' });
    // An office user may undo the decision.
    const office = await userClient(t, tenant, 'office');
    const officeKey = await t.app.domain.admin.createKey({ userId: office.user.id });
    const back = ok(await t.graphql(officeKey.token)(UPDATE_ESTIMATE, { id: est.id, ifMatch: same.etag, input: { status: 'Draft' } })).updateEstimate;
    expect(back.estimate.status).toBe('Draft');
  });
});
