import type { Command } from 'commander';
import type { CommandContext } from '../context.ts';
import { parseUuid } from '../validate.ts';

export function registerWebhookCommands(program: Command, ctx: CommandContext): void {
  const webhook = program.command('webhook').description("list an account's webhook endpoints and their delivery state (partners manage them through the API)");

  webhook
    .command('list')
    .description("list an account's webhook endpoints, oldest first (never their secrets)")
    .requiredOption('--account <id>', 'account id')
    .action(async (opts: { account: string }) => {
      const accountId = parseUuid('--account', opts.account);
      const endpoints = await (await ctx.admin()).listWebhookEndpoints(accountId);
      ctx.result({ webhook_endpoints: endpoints }, [
        `${endpoints.length} webhook endpoint${endpoints.length === 1 ? '' : 's'} in account ${accountId}`,
        ...endpoints.map(
          (e) =>
            `  ${e.id}  ${e.url} ${e.status}${e.paused_until ? ` (paused until ${e.paused_until})` : ''}, ${e.consecutive_failures} failures in a row, last delivery ${e.last_delivery_at ? `${e.last_delivery_at} (${e.last_delivery_status ?? 'no answer'})` : 'never'}`,
        ),
      ]);
    });
}
