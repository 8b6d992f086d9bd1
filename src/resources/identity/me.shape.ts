import { accountModuleValues } from '../../kernel/context.ts';
import { allScopes } from '../catalog.ts';
import { supportedVersions } from '../../kernel/versioning.ts';
import { wireShape } from '../../kernel/wire-shape.ts';
import { userShape } from '../accounts/user.shape.ts';

// GET /me and GraphQL `me`: who is calling. Never the token, its hash or any prefix of it.

export const meAccountShape = wireShape({
  name: 'MeAccount',
  description: 'The account (company) of the key.',
  fields: {
    id: { kind: 'uuid', description: 'The id of the account.' },
    name: { kind: 'string', description: 'Name of the account (the company).' },
    sandbox: { kind: 'boolean', description: 'Whether the account is a sandbox for tests.' },
    modules: {
      kind: 'json',
      values: accountModuleValues,
      description: "The settings of the account's modules.",
    },
    currency: { kind: 'string', description: 'ISO 4217 code of every amount of the account (invoices, payments, prices), e.g. USD.' },
    time_zone: { kind: 'string', description: 'IANA time zone of the account: what "today" is for its documents (the default date of an invoice).' },
    payment_terms_days: { kind: 'integer', description: "Days from an invoice's date to its default due date." },
  },
});

export const meKeyShape = wireShape({
  name: 'MeKey',
  description: 'The API key of the request (never its token).',
  fields: {
    id: { kind: 'uuid', description: 'The id of the key (never its token).' },
    scopes: { kind: 'string[]', enum: allScopes, description: 'Granted scopes, <resource>:read|write.' },
    expires_at: { kind: 'datetime', nullable: true, description: 'When the key expires; null when it never does.' },
    created_at: { kind: 'datetime', description: 'When the key was created.' },
  },
});

export const meShape = wireShape({
  name: 'Me',
  description: 'Who is calling: account, user, key and the resolved API version.',
  fields: {
    account: { kind: meAccountShape, description: 'The account (company) of the key.' },
    user: { kind: userShape, description: 'The user the key belongs to; a key never has more rights than its user.' },
    key: { kind: meKeyShape, description: 'The API key of the request.' },
    api_version: { kind: 'string', enum: supportedVersions, description: 'The API version in use: the one the request asked for, else the version pinned on the key.' },
  },
});
