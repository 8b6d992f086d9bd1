import { expect } from 'vitest';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { graphqlClient, type Gql, type GraphqlResponse } from './client.ts';

// Record fixtures made over GraphQL, for the issue-3 GraphQL tests.

export const SITE_FIELDS =
  'id siteName street street2 city state zipCode description latitude longitude recurringInstructions position systemOptionId siteableId siteableType customerId leadId customFields createdAt updatedAt';
export const CONTACT_FIELDS =
  'id firstName lastName email phone mobile title contactMethod linkableId linkableType customFields phoneNumbers { id number kind extension } createdAt updatedAt';
export const LINKAGE_FIELDS = 'id contactId linkableId linkableType relationshipType primary createdAt updatedAt';

/** The data of a response that must have no errors. */
export function ok<T = any>(res: GraphqlResponse<T>): T {
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data as T;
}

/** A REST wire record with its keys (and nested keys) in camelCase, to compare with GraphQL. */
export function camelRecord(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelRecord);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), k === 'custom_fields' ? v : camelRecord(v)]),
  );
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
  const tenant = await t.tenant();
  const gql = graphqlClient(t.url, tenant.token);
  return { tenant, gql, make: records(gql) };
}
