import { expect } from 'vitest';
import type { Tenant, TestApp } from './app.ts';

/**
 * A GraphQL-over-HTTP client for black-box tests: POST /graphql, JSON in, parsed JSON and headers out. Every
 * answer must report extensions.cost (the limits of docs/graphql-limits.md); the client checks it is there and
 * hands it out as `cost`, beside the body without it, so tests compare data and errors alone.
 */
export interface Cost {
  requestedQueryCost: number | null;
  actualQueryCost: number | null;
  throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number; resetSeconds: number } | null;
}

export interface GraphqlResponse<T = any> {
  status: number;
  headers: Headers;
  body: { data?: T; errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[]; extensions?: Record<string, unknown> };
  cost: Cost;
}

/** Moves extensions.cost out of a GraphQL answer (an error when it is missing). */
export function withoutCost(body: Record<string, any>): { body: GraphqlResponse['body']; cost: Cost } {
  const cost = body?.extensions?.cost as Cost | undefined;
  if (!cost || !('requestedQueryCost' in cost) || !('throttleStatus' in cost)) {
    throw new Error(`the answer has no extensions.cost: ${JSON.stringify(body).slice(0, 300)}`);
  }
  const { cost: _cost, ...otherExtensions } = body.extensions as Record<string, unknown>;
  const { extensions: _extensions, ...rest } = body;
  return { body: Object.keys(otherExtensions).length > 0 ? { ...rest, extensions: otherExtensions } : rest, cost };
}

export interface GraphqlOptions {
  token?: string | null;
  headers?: Record<string, string>;
  operationName?: string;
}

export function graphqlClient(baseUrl: string, defaultToken?: string) {
  return async function gql<T = any>(query: string, variables?: Record<string, unknown>, options: GraphqlOptions = {}): Promise<GraphqlResponse<T>> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(options.headers ?? {}) };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables, operationName: options.operationName }),
    });
    return { status: res.status, headers: res.headers, ...withoutCost(await res.json()) };
  };
}

export type Gql = ReturnType<typeof graphqlClient>;

/** The catalog code of the first error. */
export function codeOf(response: GraphqlResponse): string | undefined {
  return response.body.errors?.[0]?.extensions?.code;
}
// Records made over GraphQL.

export const SITE_FIELDS =
  'id siteName street street2 city state zipCode description latitude longitude recurringInstructions position systemOptionId siteableId siteableType customerId leadId customFields createdAt updatedAt';
export const CONTACT_FIELDS =
  'id firstName lastName email phone mobile title contactMethod linkableId linkableType customFields phoneNumbers { nodes { id number kind extension } } createdAt updatedAt';
export const LINKAGE_FIELDS = 'id contactId linkableId linkableType relationshipType primary createdAt updatedAt';

/** The data of a response that must have no errors. */
export function ok<T = any>(res: GraphqlResponse<T>): T {
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data as T;
}

/** A REST wire record with its keys (and nested keys) in camelCase, to compare with GraphQL. */
export function camelRecord(value: unknown): any {
  if (Array.isArray(value)) return value.map(camelRecord);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), k === 'custom_fields' ? v : camelRecord(v)]),
  );
}

/**
 * The child collections of a record (contact phone numbers, job and estimate line items, job assignments): lists
 * in a REST record, connections in GraphQL, read here as `{ nodes }`.
 */
export const CHILD_COLLECTIONS = ['phoneNumbers', 'lineitems', 'assignments'] as const;

/**
 * A REST wire record in the shape GraphQL serves it: keys in camelCase (camelRecord), and each child collection
 * the record carries as a connection's `{ nodes: [...] }`. Arrays of records map one by one.
 */
export function graphqlRecord(value: unknown): any {
  if (Array.isArray(value)) return value.map(graphqlRecord);
  const record = camelRecord(value);
  if (record === null || typeof record !== 'object') return record;
  for (const name of CHILD_COLLECTIONS) {
    if (Array.isArray(record[name])) record[name] = { nodes: record[name] };
  }
  return record;
}

export function records(gql: Gql) {
  return {
    async customer(organization: string): Promise<{ id: string; etag: string }> {
      const data = ok(await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { etag customer { id } } }`, { input: { organization } }));
      return { id: data.createCustomer.customer.id, etag: data.createCustomer.etag };
    },
    async lead(input: Record<string, unknown>): Promise<{ id: string; etag: string }> {
      const data = ok(await gql(`mutation($input: CreateLeadInput!) { createLead(input: $input) { etag lead { id } } }`, { input }));
      return { id: data.createLead.lead.id, etag: data.createLead.etag };
    },
    async site(parent: { id: string }, type: 'Customer' | 'Lead', siteName: string, extra: Record<string, unknown> = {}): Promise<{ id: string; etag: string; site: Record<string, any> }> {
      const data = ok(
        await gql(`mutation($input: CreateSiteInput!) { createSite(input: $input) { etag site { ${SITE_FIELDS} } } }`, {
          input: { siteableId: parent.id, siteableType: type, siteName, street: '1 Main St', city: 'Springfield', state: 'IL', ...extra },
        }),
      );
      return { id: data.createSite.site.id, etag: data.createSite.etag, site: data.createSite.site };
    },
    async contact(input: Record<string, unknown>): Promise<{ id: string; etag: string; contact: Record<string, any> }> {
      const data = ok(await gql(`mutation($input: CreateContactInput!) { createContact(input: $input) { etag contact { ${CONTACT_FIELDS} } } }`, { input }));
      return { id: data.createContact.contact.id, etag: data.createContact.etag, contact: data.createContact.contact };
    },
    link(contactId: string, input: Record<string, unknown>) {
      return gql(`mutation($contactId: ID!, $input: LinkContactInput!) { linkContact(contactId: $contactId, input: $input) { linkage { ${LINKAGE_FIELDS} } } }`, {
        contactId,
        input,
      });
    },
    async linked(contactId: string, input: Record<string, unknown>): Promise<Record<string, any>> {
      return ok(await this.link(contactId, input)).linkContact.linkage;
    },
    updateLinkage(contactId: string, linkageId: string, input: Record<string, unknown>) {
      return gql(
        `mutation($contactId: ID!, $linkageId: ID!, $input: UpdateContactLinkageInput!) {
          updateContactLinkage(contactId: $contactId, linkageId: $linkageId, input: $input) { linkage { ${LINKAGE_FIELDS} } } }`,
        { contactId, linkageId, input },
      );
    },
    unlink(contactId: string, linkageId: string) {
      return gql(`mutation($contactId: ID!, $linkageId: ID!) { unlinkContact(contactId: $contactId, linkageId: $linkageId) { id } }`, { contactId, linkageId });
    },
  };
}

/** A fresh account of the test app with its GraphQL client and record factories. */
export async function graphqlTenant(t: TestApp): Promise<{ tenant: Tenant; gql: Gql; make: ReturnType<typeof records> }> {
  const { tenant, gql } = await t.newTenant();
  return { tenant, gql, make: records(gql) };
}

/** The first error of a response that must fail with `code`: answered with HTTP 200, every data field null. */
export function failed(res: GraphqlResponse, code: string): NonNullable<GraphqlResponse['body']['errors']>[number] {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(codeOf(res), JSON.stringify(res.body.errors)).toBe(code);
  expect(Object.values(res.body.data ?? {}).every((value) => value === null)).toBe(true);
  return res.body.errors![0];
}

/** Asserts exactly one error whose extensions carry `code` and `status` (and these field errors). */
export function expectError(res: GraphqlResponse, code: string, status: number, errors?: Record<string, unknown>): void {
  expect(res.body.errors, JSON.stringify(res.body)).toHaveLength(1);
  expect(res.body.errors![0].extensions).toMatchObject({ code, status, ...(errors ? { errors } : {}) });
}

/**
 * Creates records of one type with aliased create mutations, 50 to a request (an operation holds at most 100
 * aliases); insists on no errors and returns their ids in order.
 */
export async function createMany(gql: Gql, type: string, inputs: object[]): Promise<string[]> {
  const field = type.charAt(0).toLowerCase() + type.slice(1);
  const ids: string[] = [];
  for (let start = 0; start < inputs.length; start += 50) {
    const chunk = inputs.slice(start, start + 50);
    const document = `mutation Seed(${chunk.map((_, i) => `$i${i}: Create${type}Input!`).join(', ')}) {
      ${chunk.map((_, i) => `m${i}: create${type}(input: $i${i}) { ${field} { id } }`).join('\n')} }`;
    const res = await gql(document, Object.fromEntries(chunk.map((input, i) => [`i${i}`, input])));
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    ids.push(...chunk.map((_, i) => res.body.data[`m${i}`][field].id as string));
  }
  return ids;
}
