import { describeCaller } from '../resources/identity/me.service.ts';
import { requestContext, type Builder } from './builder.ts';
import { wireObject } from './wire-object.ts';

type Me = ReturnType<typeof describeCaller>;

/** `me`: the content of GET /api/v2/me in camelCase; any valid key may ask, no scope needed. */
export function registerIdentity(builder: Builder): void {
  const account = wireObject(builder, 'MeAccount', 'The account (company) of the key.', [
    { wire: 'id', type: 'ID' },
    { wire: 'name', type: 'String' },
    { wire: 'sandbox', type: 'Boolean' },
    { wire: 'modules', type: 'JSON', description: 'Enabled modules, e.g. {"AddressRequired": "Yes", "System": "off"}.' },
  ]);
  const user = wireObject(builder, 'MeUser', 'The user the key belongs to; a key never has more rights than its user.', [
    { wire: 'id', type: 'SafeInt' },
    { wire: 'name', type: 'String' },
    { wire: 'email', type: 'String' },
    { wire: 'role', type: 'String', description: 'admin, office or technician.' },
  ]);
  const key = wireObject(builder, 'MeKey', 'The API key of the request (never its token).', [
    { wire: 'id', type: 'ID' },
    { wire: 'scopes', type: ['String'], description: 'Granted scopes, <resource>:read|write.' },
    { wire: 'expires_at', type: 'DateTime', nullable: true },
    { wire: 'created_at', type: 'DateTime' },
  ]);
  const me = wireObject<Me>(builder, 'Me', 'Who is calling: account, user, key and the resolved API version.', [
    { wire: 'account', type: account },
    { wire: 'user', type: user },
    { wire: 'key', type: key },
    { wire: 'api_version', type: 'String', description: 'From the Fieldline-Version header, else the version pinned on the key.' },
  ]);
  builder.queryField('me', (t) =>
    t.field({
      type: me,
      description: 'The caller, as GET /api/v2/me. Needs a valid key only.',
      authScopes: { authenticated: true },
      resolve: (_root, _args, ctx) => describeCaller(requestContext(ctx)),
    }),
  );
}
