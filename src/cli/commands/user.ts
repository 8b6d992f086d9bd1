import type { Command } from 'commander';
import { roles } from '../../kernel/permissions.ts';
import { yesNo, type CommandContext } from '../context.ts';
import { parseEmail, parseName, parseRole, parseUserId, parseUuid, UsageError } from '../validate.ts';

export function registerUserCommands(program: Command, ctx: CommandContext): void {
  const user = program.command('user').description("list and create users and change their state or role (a key never has more rights than its user)");

  user
    .command('list')
    .description('list the users of an account')
    .requiredOption('--account <id>', 'account id')
    .action(async (opts: { account: string }) => {
      const accountId = parseUuid('--account', opts.account);
      const users = await (await ctx.admin()).listUsers(accountId);
      ctx.result({ users }, [
        `${users.length} user${users.length === 1 ? '' : 's'} in account ${accountId}`,
        ...users.map((u) => `  ${u.id}  ${u.name} <${u.email}> (${u.role})${u.active ? '' : ' inactive'}`),
      ]);
    });

  user
    .command('create')
    .description('create a user in an account')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--name <name>', "the user's name")
    .requiredOption('--email <email>', 'email address, unique within the account')
    .option('--role <role>', `${roles.join('|')} (default office)`)
    .action(async (opts: { account: string; name: string; email: string; role?: string }) => {
      const accountId = parseUuid('--account', opts.account);
      const name = parseName('--name', opts.name);
      const email = parseEmail(opts.email);
      const role = opts.role === undefined ? 'office' : parseRole(opts.role);
      const created = await (await ctx.admin()).createUser({ accountId, name, email, role });
      ctx.result({ user: { ...created, account_id: accountId } }, [
        `Created user ${created.id} ${created.name} <${created.email}> (${created.role}) in account ${accountId}`,
      ]);
    });

  user
    .command('update')
    .description("make a user inactive (its keys answer account.inactive) or active again, or change its role")
    .argument('<id>', 'user id')
    .option('--inactive', 'make the user inactive')
    .option('--active', 'make the user active again')
    .option('--role <role>', roles.join('|'))
    .action(async (rawId: string, opts: { inactive?: boolean; active?: boolean; role?: string }) => {
      const id = parseUserId('user id', rawId);
      if (opts.inactive && opts.active) throw new UsageError('--inactive and --active cannot be combined');
      const role = opts.role === undefined ? undefined : parseRole(opts.role);
      const active = opts.inactive ? false : opts.active ? true : undefined;
      if (active === undefined && role === undefined) throw new UsageError('nothing to change: pass --inactive, --active or --role ROLE');
      const updated = await (await ctx.admin()).updateUser(id, { active, role });
      ctx.result({ user: updated }, [`Updated user ${updated.id} ${updated.name} <${updated.email}>: role ${updated.role}, active ${yesNo(updated.active)}`]);
    });
}
