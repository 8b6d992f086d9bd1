import { roles } from '../../kernel/permissions.ts';
import { allScopes } from '../../kernel/scopes.ts';
import { supportedVersions } from '../../kernel/versioning.ts';
import { wireShape } from '../../kernel/wire-shape.ts';

// GET /me and GraphQL `me`: who is calling. Never the token, its hash or any prefix of it.

export const meAccountShape = wireShape({
  name: 'MeAccount',
  description: 'The account (company) of the key.',
  fields: {
    id: { kind: 'uuid' },
    name: { kind: 'string' },
    sandbox: { kind: 'boolean' },
    modules: {
      kind: 'json',
      values: { AddressRequired: ['Yes', 'No'], System: ['on', 'off'] },
      description: 'Enabled modules, e.g. {"AddressRequired": "Yes", "System": "off"}.',
    },
  },
});

export const meUserShape = wireShape({
  name: 'MeUser',
  description: 'The user the key belongs to; a key never has more rights than its user.',
  fields: {
    id: { kind: 'int64' },
    name: { kind: 'string' },
    email: { kind: 'email' },
    role: { kind: 'string', enum: roles, description: 'admin, office or technician.' },
  },
});

export const meKeyShape = wireShape({
  name: 'MeKey',
  description: 'The API key of the request (never its token).',
  fields: {
    id: { kind: 'uuid' },
    scopes: { kind: 'string[]', enum: allScopes, description: 'Granted scopes, <resource>:read|write.' },
    expires_at: { kind: 'datetime', nullable: true },
    created_at: { kind: 'datetime' },
  },
});

export const meShape = wireShape({
  name: 'Me',
  description: 'Who is calling: account, user, key and the resolved API version.',
  fields: {
    account: { kind: meAccountShape },
    user: { kind: meUserShape },
    key: { kind: meKeyShape },
    api_version: { kind: 'string', enum: supportedVersions, description: 'From the Fieldline-Version header, else the version pinned on the key.' },
  },
});
