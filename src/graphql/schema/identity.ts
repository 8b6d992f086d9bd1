import { requestContext, type Builder } from './builder.ts';
import { wireObject } from './wire-object.ts';
import { describeCaller, meShape } from '../../domain.ts';

/** `me`: the content of GET /api/v2/me in camelCase; any valid key may ask, no scope needed. */
export function registerIdentity(builder: Builder): void {
  builder.queryField('me', (t) =>
    t.field({
      type: wireObject(builder, meShape),
      description: 'The caller: the account, the user and the API key of the request, and the API version in use. Any valid key may ask.',
      authScopes: { authenticated: true },
      resolve: (_root, _args, ctx) => describeCaller(requestContext(ctx)),
    }),
  );
}
