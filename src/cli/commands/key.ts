import type { Command } from 'commander';
import { CURRENT_VERSION } from '../../kernel/versioning.ts';
import type { CommandContext } from '../context.ts';
import { parseApiVersion, parseScopes, parseTimestamp, parseUserId, parseUuid, UsageError } from '../validate.ts';
import { allScopes, type CreatedKey } from '../../domain.ts';

function keyLines(verb: string, key: CreatedKey): string[] {
  const scopes = key.scopes.length === allScopes.length ? 'every scope' : key.scopes.join(', ');
  const expired = key.expires_at !== null && Date.parse(key.expires_at) <= Date.now();
  return [
    `${verb} API key ${key.id}`,
    `  scopes:  ${scopes}`,
    `  expires: ${key.expires_at ?? 'never'}${expired ? ' (already expired)' : ''}`,
    `  version: ${key.api_version}`,
    `  token:   ${key.token}`,
    'The token is shown only now; store it.',
  ];
}

export function registerKeyCommands(program: Command, ctx: CommandContext): void {
  const key = program.command('key').description('list, create, revoke and rotate API keys (tokens are stored only as hashes)');

  key
    .command('list')
    .description("list an account's or a user's keys, newest first (never their tokens)")
    .option('--account <id>', 'account id')
    .option('--user <id>', 'user id')
    .action(async (opts: { account?: string; user?: string }) => {
      if ((opts.account === undefined) === (opts.user === undefined)) throw new UsageError('pass one of --account ID or --user ID');
      const filter = opts.account !== undefined ? { accountId: parseUuid('--account', opts.account) } : { userId: parseUserId('--user', opts.user) };
      const keys = await (await ctx.admin()).listKeys(filter);
      ctx.result({ keys }, [
        `${keys.length} key${keys.length === 1 ? '' : 's'}`,
        ...keys.map(
          (k) =>
            `  ${k.id}  user ${k.user_id}, ${k.state}${k.replaced_by_id ? ` (replaced by ${k.replaced_by_id})` : ''}, ${k.scopes.length === allScopes.length ? 'every scope' : k.scopes.join(',')}, version ${k.api_version}, expires ${k.expires_at ?? 'never'}`,
        ),
      ]);
    });

  key
    .command('create')
    .description("create an API key for a user (its token is shown only now)")
    .requiredOption('--user <id>', 'user id')
    .option('--scopes <list>', 'comma-separated scopes, e.g. customers:read,jobs:write (default: every scope)')
    .option('--expires-at <iso8601>', 'expiry, e.g. 2026-12-31T23:59:59Z (default: never)')
    .option('--api-version <version>', `API version pinned on the key (default ${CURRENT_VERSION})`)
    .action(async (opts: { user: string; scopes?: string; expiresAt?: string; apiVersion?: string }) => {
      const userId = parseUserId('--user', opts.user);
      const scopes = opts.scopes === undefined ? allScopes : parseScopes(opts.scopes);
      const expiresAt = opts.expiresAt === undefined ? null : parseTimestamp('--expires-at', opts.expiresAt);
      const apiVersion = opts.apiVersion === undefined ? CURRENT_VERSION : parseApiVersion(opts.apiVersion, ctx.apiVersions());
      const created = await (await ctx.admin()).createKey({ userId, scopes, expiresAt, apiVersion });
      ctx.result({ key: created }, keyLines('Created', created));
    });

  key.command('revoke').description('revoke an API key (its token then answers auth.token_revoked)').argument('<id>', 'key id').action(
    async (rawId: string) => {
      const id = parseUuid('key id', rawId);
      const revoked = await (await ctx.admin()).revokeKey(id);
      ctx.result({ key: revoked }, [`Revoked API key ${revoked.id} at ${revoked.revoked_at}`]);
    },
  );

  key
    .command('rotate')
    .description('replace an API key by a new one with the same user, scopes, expiry and version; the old token then answers auth.token_revoked')
    .argument('<id>', 'key id')
    .action(async (rawId: string) => {
      const id = parseUuid('key id', rawId);
      const created = await (await ctx.admin()).rotateKey(id);
      ctx.result({ key: created }, [...keyLines('Rotated: new', created), `The old key ${id} is revoked.`]);
    });
}
