import { GraphQLError } from 'graphql';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
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

  it('leaves errors of the GraphQL language alone', () => {
    const syntax = new GraphQLError('Syntax Error: Expected Name, found <EOF>.');
    expect(mask(syntax)).toBe(syntax);
  });
});
