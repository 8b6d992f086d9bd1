import { GraphQLError } from 'graphql';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import type { GraphqlResponse } from '../helpers/graphql.ts';
import { maskErrorWith } from '../../src/graphql/schema/errors.ts';
import { AppError, validationError } from '../../src/kernel/errors.ts';

const mask = maskErrorWith('https://docs.example/errors', pino({ level: 'silent' }));

describe('GraphQL error masking', () => {
  it('turns an unexpected failure into internal.error without its message', () => {
    const failure = new Error('relation "customers" does not exist: SELECT secret FROM customers');
    const masked = mask(new GraphQLError(failure.message, { path: ['customers'], originalError: failure })) as GraphQLError;
    expect(masked.message).not.toContain('SELECT');
    expect(masked.path).toEqual(['customers']);
    expect(masked.extensions).toMatchObject({ code: 'internal.error', status: 500 });
    expect(JSON.stringify(masked.toJSON())).not.toContain('secret');
  });

  it('keeps the code, status and camelCase extra fields of an AppError', () => {
    const wrapped = new GraphQLError('x', { path: ['createCustomer'], originalError: validationError({ main_phone: ['is too long'], 'custom_fields.abc-1': ['is required (Tier)'] }) });
    const masked = mask(wrapped) as GraphQLError;
    expect(masked.extensions).toMatchObject({
      code: 'validation.failed',
      status: 422,
      errors: { mainPhone: ['is too long'], 'customFields.abc-1': ['is required (Tier)'] },
    });
    const scope = mask(new GraphQLError('x', { originalError: new AppError('auth.scope_missing', null, { required_scope: 'jobs:read', granted_scopes: [] }) }));
    expect((scope as GraphQLError).extensions).toMatchObject({ requiredScope: 'jobs:read', grantedScopes: [] });
  });

});

describe('errors of the GraphQL language', () => {
  const t = useTestApp();
  const { gql } = useTenant(t);

  /** The one error of an answer refused before anything ran: its message, code, docUrl and requestId. */
  function refused(res: GraphqlResponse, code: string, message: RegExp): void {
    expect(res.body.data, JSON.stringify(res.body)).toBeUndefined();
    expect(res.body.errors).toHaveLength(1);
    const [error] = res.body.errors!;
    expect(error.message).toMatch(message);
    expect((error as { locations?: unknown[] }).locations?.length).toBeGreaterThan(0);
    expect(error.extensions).toMatchObject({ code, status: 400, docUrl: `/errors/${code.replace(/[._]/g, '-')}` });
    expect(error.extensions?.requestId).toMatch(/^[0-9a-f-]{36}$/);
  }

  it('answers a document that does not parse with graphql.parse_failed, the parser\'s message, where, a docUrl and the request id', async () => {
    refused(await gql('{ customers { '), 'graphql.parse_failed', /^Syntax Error: /);
  });

  it('answers a document that does not fit the schema (an unknown field, a variable never used) with graphql.validation_failed', async () => {
    refused(await gql('{ customers { nodes { organisation } } }'), 'graphql.validation_failed', /Cannot query field "organisation" on type "Customer". Did you mean "organization"\?/);
    refused(await gql('query ($unused: Int) { me { apiVersion } }'), 'graphql.validation_failed', /Variable "\$unused" is never used/);
  });

  it('answers a variable whose value does not fit its declared type with graphql.variables_invalid naming the variable', async () => {
    refused(await gql('query ($n: Int) { customers(first: $n) { nodes { id } } }', { n: 'ten' }), 'graphql.variables_invalid', /^Variable "\$n" got invalid value "ten"/);
  });
});
