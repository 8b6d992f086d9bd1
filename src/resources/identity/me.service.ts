import type { RequestContext } from '../../kernel/context.ts';
import type { WireOf } from '../../kernel/wire-shape.ts';
import type { meShape } from './me.shape.ts';
import { serializeUser } from '../accounts/user.shape.ts';

/** GET /me: who is calling. Never the token, its hash or any prefix of it. */
export function describeCaller(ctx: RequestContext): WireOf<typeof meShape> {
  const { account, user, key } = ctx.principal;
  return {
    account: {
      id: account.id,
      name: account.name,
      sandbox: account.sandbox,
      modules: account.modules,
      currency: account.currency,
      time_zone: account.timeZone,
      payment_terms_days: account.paymentTermsDays,
    },
    user: serializeUser(user),
    key: { id: key.id, scopes: key.scopes, expires_at: key.expiresAt?.toISOString() ?? null, created_at: key.createdAt.toISOString() },
    api_version: ctx.apiVersion,
  };
}
