import { getOperationAST, parse } from 'graphql';
import { expect } from 'vitest';
import { enumValueName } from '../../src/graphql/schema/vocabularies.ts';
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
    const response: GraphqlResponse<T> = { status: res.status, headers: res.headers, ...withoutCost(await res.json()) };
    // The document sent, out of sight of comparisons of responses: operationOf reads it.
    Object.defineProperty(response, 'request', { value: { query, operationName: options.operationName }, enumerable: false });
    return response;
  };
}

/** Whether the response answers a query, a mutation or a subscription (undefined when the document does not parse). */
export function operationOf(res: GraphqlResponse): 'query' | 'mutation' | 'subscription' | undefined {
  const request = (res as { request?: { query: string; operationName?: string } }).request;
  if (!request) return undefined;
  try {
    return getOperationAST(parse(request.query), request.operationName)?.operation;
  } catch {
    return undefined;
  }
}

export type Gql = ReturnType<typeof graphqlClient>;

/**
 * An operation refused before it runs because a value is not one of an enum's values (a vocabulary such as
 * LinkableType, a sort field), naming the enum and the value, with no data: in the document it fails validation
 * (graphql.validation_failed), in a variable the request is refused with HTTP 400.
 */
export function expectNotInEnum(res: GraphqlResponse, enumType: string, value?: string): void {
  expect(res.body.data, JSON.stringify(res.body)).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  const [error] = res.body.errors!;
  if (error.message.startsWith('Variable ')) expect(res.status).toBe(400);
  else expect(error.extensions?.code).toBe('graphql.validation_failed');
  expect(error.message).toContain(`"${enumType}"`);
  if (value !== undefined) expect(res.body.errors![0].message).toContain(value);
}

/**
 * The catalog code of the first top-level error; without top-level errors, the code of the first userError of a
 * mutation payload. A check of the code alone: `failed` also checks where the error was answered.
 */
export function codeOf(response: GraphqlResponse): string | undefined {
  const top = response.body.errors?.[0]?.extensions?.code;
  if (top !== undefined || response.body.errors?.length) return top;
  for (const value of Object.values(response.body.data ?? {})) {
    const userErrors = (value as { userErrors?: UserError[] } | null)?.userErrors;
    if (Array.isArray(userErrors) && userErrors.length > 0) return userErrors[0].code;
  }
  return undefined;
}

/** A userError of a mutation payload: the path of the argument at fault in GraphQL names, a message, the catalog code. */
export interface UserError {
  field: string[] | null;
  message: string;
  code: string;
}

/** The selection of a payload's userErrors, for every mutation document whose errors a test reads. */
export const USER_ERRORS = 'userErrors { field message code }';

/**
 * The catalog codes a mutation answers in its payload's userErrors (what the caller fixes by changing what it
 * sent); every other code (authentication, scope, rate limit, limits, internal) stays a top-level error.
 */
export const INPUT_CODES = [
  'resource.not_found',
  'precondition.required',
  'precondition.failed',
  'validation.failed',
  'validation.no_topics',
  'status.transition_invalid',
  'number.immutable',
  'system.duplicate',
  'contact.has_linkages',
  'contact.primary_linkage',
  'topic.not_available',
  'endpoint.disabled',
  'endpoint.paused',
  'verification.echo_mismatch',
  'verification.timeout',
  'verification.ssl_error',
  'verification.network_unreachable',
  'verification.unknown_error',
  'verification.failed',
  'lead.already_converted',
  'estimate.not_accepted',
  'estimate.already_converted',
  'ticket.already_converted',
  'ticket.closed',
  'recurring.ended',
  'recurring.occurrence_created',
] as const;
export type InputCode = (typeof INPUT_CODES)[number];

function isInputCode(code: string): code is InputCode {
  return (INPUT_CODES as readonly string[]).includes(code);
}

/**
 * The userErrors of a mutation refused with the input error `code`: HTTP 200, no top-level errors, and each
 * mutation field a payload whose record fields (record, etag, deletedId) are null and whose userErrors are not
 * empty and all carry this code. The documents must select USER_ERRORS.
 */
export function userErrorsOf(res: GraphqlResponse, code: InputCode): UserError[] {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  const payloads = Object.values(res.body.data ?? {}) as (Record<string, unknown> | null)[];
  expect(payloads.length, JSON.stringify(res.body)).toBeGreaterThan(0);
  const all: UserError[] = [];
  for (const payload of payloads) {
    expect(payload, JSON.stringify(res.body)).not.toBeNull();
    const { userErrors, ...rest } = payload!;
    expect(Array.isArray(userErrors), `no userErrors selected: ${JSON.stringify(res.body)}`).toBe(true);
    expect((userErrors as UserError[]).length, JSON.stringify(res.body)).toBeGreaterThan(0);
    expect(Object.entries(rest).filter(([key, value]) => key !== '__typename' && value !== null), 'nothing written beside userErrors').toEqual([]);
    all.push(...(userErrors as UserError[]));
  }
  expect(all.map((error) => error.code), JSON.stringify(all)).toEqual(all.map(() => code));
  return all;
}

/** The field paths of userErrors, sorted (null sorts as "null"), to compare as a set. */
export function fieldsOf(userErrors: UserError[]): (string[] | null)[] {
  return [...userErrors.map((error) => error.field)].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
}

// Records made over GraphQL.

export const SITE_FIELDS =
  'id siteName street street2 city state zipCode description latitude longitude recurringInstructions position systemOptionId siteableId siteableType customerId leadId labels customFields createdAt updatedAt';
export const CONTACT_FIELDS =
  'id firstName lastName email phone mobile title contactMethod linkableId linkableType labels customFields phoneNumbers { nodes { id number kind extension } } createdAt updatedAt';
export const LINKAGE_FIELDS = 'id contactId linkableId linkableType relationshipType primary createdAt updatedAt';

/** The data of a response that must have no errors. */
export function ok<T = any>(res: GraphqlResponse<T>): T {
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data as T;
}

/** The data of a mutation that must succeed: no top-level errors, and every payload's userErrors (selected) empty. */
export function succeeded<T = any>(res: GraphqlResponse<T>): T {
  const data = ok(res);
  for (const [name, payload] of Object.entries((data ?? {}) as Record<string, { userErrors?: UserError[] } | null>)) {
    expect(payload?.userErrors, `${name}: ${JSON.stringify(payload)}`).toEqual([]);
  }
  return data;
}

/**
 * The wire fields whose values are a fixed vocabulary, served by GraphQL as enums (src/kernel/vocabulary.ts):
 * the REST value `Customer` is `CUSTOMER` there, `decision_maker` is `DECISION_MAKER`.
 */
export const VOCABULARY_FIELDS = new Set(['linkable_type', 'siteable_type', 'relationship_type', 'item_type', 'role', 'field_type', 'related_name', 'kind']);

/** The account's modules of /me as GraphQL serves them: `{ addressRequired: YES, system: OFF }`. */
export function graphqlModules(modules: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(modules).map(([name, value]) => [name.charAt(0).toLowerCase() + name.slice(1), enumValueName(value)]));
}

/**
 * A REST wire record with its keys (and nested keys) in camelCase, to compare with GraphQL; values of vocabulary
 * fields (VOCABULARY_FIELDS) become their GraphQL enum names.
 */
export function camelRecord(value: unknown): any {
  if (Array.isArray(value)) return value.map(camelRecord);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
      k === 'custom_fields' ? v : VOCABULARY_FIELDS.has(k) && typeof v === 'string' ? enumValueName(v) : camelRecord(v),
    ]),
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
      const data = succeeded(await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { etag customer { id } ${USER_ERRORS} } }`, { input: { organization } }));
      return { id: data.createCustomer.customer.id, etag: data.createCustomer.etag };
    },
    async lead(input: Record<string, unknown>): Promise<{ id: string; etag: string }> {
      const data = succeeded(await gql(`mutation($input: CreateLeadInput!) { createLead(input: $input) { etag lead { id } ${USER_ERRORS} } }`, { input }));
      return { id: data.createLead.lead.id, etag: data.createLead.etag };
    },
    async site(parent: { id: string }, type: 'CUSTOMER' | 'LEAD', siteName: string, extra: Record<string, unknown> = {}): Promise<{ id: string; etag: string; site: Record<string, any> }> {
      const data = succeeded(
        await gql(`mutation($input: CreateSiteInput!) { createSite(input: $input) { etag site { ${SITE_FIELDS} } ${USER_ERRORS} } }`, {
          input: { siteableId: parent.id, siteableType: type, siteName, street: '1 Main St', city: 'Springfield', state: 'IL', ...extra },
        }),
      );
      return { id: data.createSite.site.id, etag: data.createSite.etag, site: data.createSite.site };
    },
    async contact(input: Record<string, unknown>): Promise<{ id: string; etag: string; contact: Record<string, any> }> {
      const data = succeeded(await gql(`mutation($input: CreateContactInput!) { createContact(input: $input) { etag contact { ${CONTACT_FIELDS} } ${USER_ERRORS} } }`, { input }));
      return { id: data.createContact.contact.id, etag: data.createContact.etag, contact: data.createContact.contact };
    },
    link(contactId: string, input: Record<string, unknown>) {
      return gql(`mutation($contactId: ID!, $input: LinkContactInput!) { linkContact(contactId: $contactId, input: $input) { linkage { ${LINKAGE_FIELDS} } ${USER_ERRORS} } }`, {
        contactId,
        input,
      });
    },
    async linked(contactId: string, input: Record<string, unknown>): Promise<Record<string, any>> {
      return succeeded(await this.link(contactId, input)).linkContact.linkage;
    },
    updateLinkage(contactId: string, linkageId: string, input: Record<string, unknown>) {
      return gql(
        `mutation($contactId: ID!, $linkageId: ID!, $input: UpdateContactLinkageInput!) {
          updateContactLinkage(contactId: $contactId, linkageId: $linkageId, input: $input) { linkage { ${LINKAGE_FIELDS} } ${USER_ERRORS} } }`,
        { contactId, linkageId, input },
      );
    },
    unlink(contactId: string, linkageId: string) {
      return gql(`mutation($contactId: ID!, $linkageId: ID!) { unlinkContact(contactId: $contactId, linkageId: $linkageId) { deletedId ${USER_ERRORS} } }`, { contactId, linkageId });
    },
  };
}

/** A fresh account of the test app with its GraphQL client and record factories. */
export async function graphqlTenant(t: TestApp): Promise<{ tenant: Tenant; gql: Gql; make: ReturnType<typeof records> }> {
  const { tenant, gql } = await t.newTenant();
  return { tenant, gql, make: records(gql) };
}

export type GraphqlError = NonNullable<GraphqlResponse['body']['errors']>[number];

/** Whether `code` is answered in the userErrors of this response (an input error of a mutation). */
function inPayload(res: GraphqlResponse, code: string): code is InputCode {
  return isInputCode(code) && operationOf(res) === 'mutation';
}

/**
 * A response that must fail with `code`, answered with HTTP 200. An input error of a mutation (INPUT_CODES): the
 * payload's userErrors, all with this code, and no top-level errors (userErrorsOf); these are returned. Any other
 * error, and any error of a query: the first top-level error has this code and every data field is null; it is
 * returned.
 */
export function failed(res: GraphqlResponse, code: InputCode): UserError[];
export function failed(res: GraphqlResponse, code: string): GraphqlError;
export function failed(res: GraphqlResponse, code: string): UserError[] | GraphqlError {
  if (isInputCode(code)) {
    expect(operationOf(res), `${code} is a userError of a mutation; a query answers it top-level (expectError, codeOf)`).toBe('mutation');
    return userErrorsOf(res, code);
  }
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body.errors)).toBe(code);
  expect(Object.values(res.body.data ?? {}).every((value) => value === null)).toBe(true);
  return res.body.errors![0];
}

/**
 * Asserts the error `code`. An input error of a mutation: userErrors all with this code and no top-level errors
 * (userErrorsOf), with exactly these field paths when given (in any order, one per message); the userErrors are
 * returned. Any other error, and any error of a query: exactly one top-level error whose extensions carry `code`
 * and `status` (and these field errors).
 */
export function expectError(res: GraphqlResponse, code: InputCode, fields?: (string[] | null)[]): UserError[];
export function expectError(res: GraphqlResponse, code: string, status: number, errors?: Record<string, unknown>): void;
export function expectError(res: GraphqlResponse, code: string, statusOrFields?: number | (string[] | null)[], errors?: Record<string, unknown>): UserError[] | void {
  if (inPayload(res, code)) {
    expect(typeof statusOrFields, `a mutation answers ${code} in userErrors, without an HTTP status: name the field paths`).not.toBe('number');
    const userErrors = userErrorsOf(res, code);
    if (Array.isArray(statusOrFields)) expect(fieldsOf(userErrors), JSON.stringify(userErrors)).toEqual(fieldsOf(statusOrFields.map((field) => ({ field, message: '', code }))));
    return userErrors;
  }
  expect(typeof statusOrFields, `${code} of a ${operationOf(res)} is a top-level error with an HTTP status`).toBe('number');
  expect(res.body.errors, JSON.stringify(res.body)).toHaveLength(1);
  expect(res.body.errors![0].extensions).toMatchObject({ code, status: statusOrFields, ...(errors ? { errors } : {}) });
}

/**
 * Creates records of one type with aliased create mutations, 50 to a request (an operation holds at most 100
 * aliases); insists on no errors and no userErrors and returns their ids in order.
 */
export async function createMany(gql: Gql, type: string, inputs: object[]): Promise<string[]> {
  const field = type.charAt(0).toLowerCase() + type.slice(1);
  const ids: string[] = [];
  for (let start = 0; start < inputs.length; start += 50) {
    const chunk = inputs.slice(start, start + 50);
    const document = `mutation Seed(${chunk.map((_, i) => `$i${i}: Create${type}Input!`).join(', ')}) {
      ${chunk.map((_, i) => `m${i}: create${type}(input: $i${i}) { ${field} { id } ${USER_ERRORS} }`).join('\n')} }`;
    const data = succeeded(await gql(document, Object.fromEntries(chunk.map((input, i) => [`i${i}`, input]))));
    ids.push(...chunk.map((_, i) => data[`m${i}`][field].id as string));
  }
  return ids;
}
