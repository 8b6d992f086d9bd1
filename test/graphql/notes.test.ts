import { describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { readRecord } from '../helpers/factories/records.ts';
import { expectError, graphqlTenant, ok, USER_ERRORS } from '../helpers/graphql.ts';

// Notes over GraphQL: createNote(parentId, input), the notes connection on a parent's type (newest first, pinned
// filter), note(id) and node(id), updateNote/deleteNote with userErrors; the same rules and codes as REST.

const t = useTestApp({ rateLimits: highRateLimits });
const FIELDS = 'id body pinned notableType notableId authorId etag';
const CREATE = `mutation($parentId: ID!, $input: CreateNoteInput!) { createNote(parentId: $parentId, input: $input) { note { ${FIELDS} } ${USER_ERRORS} } }`;

describe('notes over GraphQL', () => {
  it('creates a note on a record by its id, lists it on the parent and reads it by node(id), leaving the parent as it was', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const api = t.client(tenant.token);
    const customer = await createCustomer(api);
    const first = ok(await gql(CREATE, { parentId: customer.id, input: { body: 'first' } })).createNote.note;
    const second = ok(await gql(CREATE, { parentId: customer.id, input: { body: ' second ', pinned: true } })).createNote.note;
    expect(second).toMatchObject({ body: ' second ', pinned: true, notableType: 'CUSTOMER', notableId: customer.id, authorId: tenant.userId });
    const listed = ok(await gql(`query($id: ID!) { customer(id: $id) { notes { nodes { id } } pinned: notes(filter: { pinned: true }) { nodes { id } } } }`, { id: customer.id }));
    expect(listed.customer.notes.nodes.map((n: any) => n.id)).toEqual([second.id, first.id]);
    expect(listed.customer.pinned.nodes.map((n: any) => n.id)).toEqual([second.id]);
    expect(ok(await gql(`query($id: ID!) { node(id: $id) { ... on Note { id body } } }`, { id: first.id })).node).toEqual({ id: first.id, body: 'first' });
    expect((await readRecord(api, 'customers', customer.id)).etag).toBe(customer.etag);
  });

  it('answers resource.not_found for a parent that is not a live record of the account, and validation.failed for a blank body', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const theirs = await t.newTenant();
    const foreign = await createCustomer(theirs.api);
    expectError(await gql(CREATE, { parentId: foreign.id, input: { body: 'x' } }), 'resource.not_found', [['parentId']]);
    expectError(await gql(CREATE, { parentId: 'not-an-id', input: { body: 'x' } }), 'resource.not_found', [['parentId']]);
    const customer = await createCustomer(t.client(tenant.token));
    expectError(await gql(CREATE, { parentId: customer.id, input: { body: '   ' } }), 'validation.failed', [['input', 'body']]);
  });

  it('updates and deletes a note with its ETag', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const customer = await createCustomer(t.client(tenant.token));
    const note = ok(await gql(CREATE, { parentId: customer.id, input: { body: 'x' } })).createNote.note;
    const updated = ok(await gql(`mutation($id: ID!, $ifMatch: String) { updateNote(id: $id, ifMatch: $ifMatch, input: { body: \"y\" }) { note { body etag } ${USER_ERRORS} } }`, { id: note.id, ifMatch: note.etag })).updateNote;
    expect(updated.note.body).toBe('y');
    expectError(await gql(`mutation($id: ID!, $ifMatch: String) { deleteNote(id: $id, ifMatch: $ifMatch) { deletedId ${USER_ERRORS} } }`, { id: note.id, ifMatch: note.etag }), 'precondition.failed');
    expect(ok(await gql(`mutation($id: ID!, $ifMatch: String) { deleteNote(id: $id, ifMatch: $ifMatch) { deletedId ${USER_ERRORS} } }`, { id: note.id, ifMatch: updated.note.etag })).deleteNote.deletedId).toBe(note.id);
  });

  it('lets only the author or an admin change a note (auth.permission_denied), and needs notes:write and the parent\'s read scope to write one (auth.scope_missing)', async () => {
    const { tenant, gql } = await graphqlTenant(t);
    const customer = await createCustomer(t.client(tenant.token));
    const userGql = async (role: 'technician' | 'office', scopes?: string[]) => {
      const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name: `Notes ${role}`, email: `notes-${role}-${Date.now()}-${Math.random()}@example.test`, role });
      return t.graphql((await t.app.domain.admin.createKey({ userId: user.id, scopes })).token);
    };
    const tech = await userGql('technician');
    const mine = ok(await tech(CREATE, { parentId: customer.id, input: { body: 'mine' } })).createNote.note;
    const office = await userGql('office');
    const UPDATE = `mutation($id: ID!, $ifMatch: String) { updateNote(id: $id, ifMatch: $ifMatch, input: { body: \"theirs\" }) { note { body } ${USER_ERRORS} } }`;
    expectError(await office(UPDATE, { id: mine.id, ifMatch: mine.etag }), 'auth.permission_denied', 403);
    expect(ok(await gql(UPDATE, { id: mine.id, ifMatch: mine.etag })).updateNote.note.body).toBe('theirs');
    const jobsOnly = await t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['jobs:read', 'notes:write'] })).token);
    expectError(await jobsOnly(CREATE, { parentId: customer.id, input: { body: 'x' } }), 'auth.scope_missing', 403);
    const readOnly = await t.graphql((await t.app.domain.admin.createKey({ userId: tenant.userId, scopes: ['customers:read'] })).token);
    expectError(await readOnly(CREATE, { parentId: customer.id, input: { body: 'x' } }), 'auth.scope_missing', 403);
    expect(ok(await readOnly(`query($id: ID!) { note(id: $id) { body } }`, { id: mine.id })).note.body).toBe('theirs');
    expectError(await jobsOnly(`query($id: ID!) { note(id: $id) { body } }`, { id: mine.id }), 'auth.scope_missing', 403);
  });
});
