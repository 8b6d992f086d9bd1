import type { Command } from 'commander';
import { purgeExpiredIdempotencyKeys } from '../../db/idempotency-purge.ts';
import type { CommandContext } from '../context.ts';

// Idempotency keys past their 24-hour replay window (src/kernel/idempotency.ts). Every server process purges them
// hourly; this purges now (after a long outage, or before a backup).

export function registerIdempotencyKeyCommands(program: Command, ctx: CommandContext): void {
  const group = program.command('idempotency-keys').description('idempotency keys of financial creates (kept 24 hours)');

  group
    .command('purge')
    .description('delete every key past its 24-hour replay window now (servers also do it hourly)')
    .action(async () => {
      const purged = await purgeExpiredIdempotencyKeys(await ctx.prisma(), new Date());
      ctx.result({ purged }, [`Purged ${purged} expired idempotency key${purged === 1 ? '' : 's'}.`]);
    });
}
