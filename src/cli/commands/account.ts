import type { Command } from 'commander';
import { yesNo, type CommandContext } from '../context.ts';
import { parseModules, parseName, parseOnOff, parseUuid, UsageError } from '../validate.ts';
import { allScopes, isCurrencyCode, isTimeZone } from '../../domain.ts';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function modulesLine(modules: Record<string, unknown>): string {
  return Object.entries(modules)
    .map(([name, value]) => `${name}=${String(value)}`)
    .join(', ');
}

export function registerAccountCommands(program: Command, ctx: CommandContext): void {
  const account = program.command('account').description('list, create and update tenant accounts');

  account
    .command('list')
    .description('list every account, oldest first, with its users and live keys')
    .action(async () => {
      const accounts = await (await ctx.admin()).listAccounts();
      ctx.result({ accounts }, [
        `${accounts.length} account${accounts.length === 1 ? '' : 's'}`,
        ...accounts.map((a) => `  ${a.id}  ${a.name}${a.sandbox ? ' (sandbox)' : ''}: active ${yesNo(a.active)}, API access ${yesNo(a.api_access)}, ${a.users} users, ${a.live_keys} live keys`),
      ]);
    });

  account
    .command('create')
    .description('create an account with an admin user and an API key that has every scope (its token is shown only now)')
    .requiredOption('--name <name>', 'account name')
    .option('--sandbox', 'a sandbox account (exempt from the API-access plan check)')
    .option('--no-api-access', "the account's plan has no API access (its keys answer auth.plan_required unless sandbox)")
    .action(async (opts: { name: string; sandbox?: boolean; apiAccess: boolean }) => {
      const name = parseName('--name', opts.name);
      const admin = await ctx.admin();
      const created = await admin.createAccount({ name, sandbox: opts.sandbox ?? false, apiAccess: opts.apiAccess });
      const { account: acc, user, key } = created;
      const everyScope = key.scopes.length === allScopes.length;
      ctx.result({ account: acc, user, key }, [
        `Created account "${acc.name}" (${acc.id})`,
        `  sandbox: ${yesNo(acc.sandbox)}, API access: ${acc.api_access ? 'on' : 'off'}, modules: ${modulesLine(acc.modules)}`,
        `  admin user: ${user.id} ${user.name} <${user.email}> (${user.role})`,
        `  API key:    ${key.id} (${everyScope ? 'every scope' : key.scopes.join(', ')}; version ${key.api_version})`,
        `  token:      ${key.token}`,
        'The token is shown only now; store it.',
      ]);
    });

  account
    .command('update')
    .description('deactivate or activate an account, switch its API access, set its modules')
    .argument('<id>', 'account id')
    .option('--deactivate', 'deactivate the account (its keys answer account.deactivated)')
    .option('--reason <text>', 'with --deactivate: the reason returned to API callers')
    .option('--activate', 'activate the account again')
    .option('--api-access <on|off>', "switch the plan's API access")
    .option('--module <name=value>', 'set a module: AddressRequired=Yes|No, System=on|off (repeatable)', collect, [] as string[])
    .option('--currency <code>', 'ISO 4217 currency of the account\'s amounts (e.g. USD)')
    .option('--time-zone <zone>', 'IANA time zone of the account (e.g. America/Chicago): what "today" is for invoice dates')
    .option('--payment-terms <days>', 'days from an invoice date to its default due date (0 to 3650)')
    .action(
    async (
      rawId: string,
      opts: { deactivate?: boolean; reason?: string; activate?: boolean; apiAccess?: string; module: string[]; currency?: string; timeZone?: string; paymentTerms?: string },
    ) => {
      const id = parseUuid('account id', rawId);
      if (opts.deactivate && opts.activate) throw new UsageError('--deactivate and --activate cannot be combined');
      if (opts.reason !== undefined && !opts.deactivate) throw new UsageError('--reason goes with --deactivate');
      const reason = opts.reason === undefined ? undefined : parseName('--reason', opts.reason, 500);
      const apiAccess = opts.apiAccess === undefined ? undefined : parseOnOff('--api-access', opts.apiAccess);
      const modules = parseModules(opts.module);
      const active = opts.deactivate ? false : opts.activate ? true : undefined;
      if (opts.currency !== undefined && !isCurrencyCode(opts.currency)) throw new UsageError(`--currency must be an ISO 4217 code such as USD; got "${opts.currency}"`);
      if (opts.timeZone !== undefined && !isTimeZone(opts.timeZone)) throw new UsageError(`--time-zone must be an IANA time zone such as America/Chicago; got "${opts.timeZone}"`);
      const paymentTermsDays = opts.paymentTerms === undefined ? undefined : Number(opts.paymentTerms);
      if (paymentTermsDays !== undefined && !(/^\d{1,4}$/.test(opts.paymentTerms!) && paymentTermsDays <= 3650)) throw new UsageError(`--payment-terms must be whole days from 0 to 3650; got "${opts.paymentTerms}"`);
      const billing = { currency: opts.currency, timeZone: opts.timeZone, paymentTermsDays };
      if (active === undefined && apiAccess === undefined && Object.keys(modules).length === 0 && Object.values(billing).every((v) => v === undefined)) {
        throw new UsageError('nothing to change: pass --deactivate [--reason TEXT], --activate, --api-access on|off, --module NAME=VALUE, --currency, --time-zone or --payment-terms');
      }
      const admin = await ctx.admin();
      const updated = await admin.updateAccount(id, { active, reason, apiAccess, modules, ...billing });
      ctx.result({ account: updated }, [
        `Updated account "${updated.name}" (${updated.id})`,
        `  active: ${yesNo(updated.active)}${!updated.active && updated.deactivation_reason ? ` (reason: ${updated.deactivation_reason})` : ''}`,
        `  API access: ${updated.api_access ? 'on' : 'off'}${updated.sandbox ? ' (sandbox: exempt)' : ''}`,
        `  modules: ${modulesLine(updated.modules)}`,
        `  currency: ${updated.currency}, time zone: ${updated.time_zone}, payment terms: ${updated.payment_terms_days} days`,
      ]);
    },
  );
}
