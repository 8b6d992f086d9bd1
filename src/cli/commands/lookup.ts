import type { Command } from 'commander';
import { customFieldTypes } from '../../kernel/lookups.ts';
import type { CommandContext } from '../context.ts';
import { parseFieldType, parseList, parseName, parseResource, parseUuid, UsageError } from '../validate.ts';
import { relatedNames } from '../../domain.ts';

// Lookup values of an account: statuses, labels and custom field definitions, per resource class.

function lookupOptions(command: Command): Command {
  return command
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--resource <name>', relatedNames.join('|'))
    .requiredOption('--name <name>', 'display name');
}

function registerLookup(program: Command, ctx: CommandContext, kind: 'status' | 'label', description: string): void {
  const group = program.command(kind).description(description);
  for (const action of ['add', 'remove'] as const) {
    lookupOptions(group.command(action).description(`${action} a ${kind} of a resource class`)).action(
      async (opts: { account: string; resource: string; name: string }) => {
        const input = {
          accountId: parseUuid('--account', opts.account),
          relatedName: parseResource(opts.resource),
          name: parseName('--name', opts.name),
        };
        const admin = await ctx.admin();
        const row = action === 'add' ? await admin.addLookup(kind, input) : await admin.removeLookup(kind, input);
        const verb = action === 'add' ? 'Added' : 'Removed';
        ctx.result({ [kind]: row }, [`${verb} ${kind} "${row.display_name}" (${row.id}) for ${row.related_name} in account ${input.accountId}`]);
      },
    );
  }
}

export function registerLookupCommands(program: Command, ctx: CommandContext): void {
  registerLookup(program, ctx, 'status', 'add or remove statuses (the values a record status may take)');
  registerLookup(program, ctx, 'label', 'add or remove labels (the values a record label may take)');

  const field = program.command('custom-field').description('define custom fields');
  lookupOptions(field.command('add').description('add a custom field definition to a resource class'))
    .requiredOption('--type <type>', customFieldTypes.join('|'))
    .option('--options <list>', 'comma-separated choices (required for select and multiselect); for attachment, the content types allowed (image/png,image/*,application/pdf; default any)')
    .option('--max-size <bytes>', 'attachment: the largest file in bytes (default 26214400, 25 MB)')
    .option('--required', 'records must carry a value')
    .action(async (opts: { account: string; resource: string; name: string; type: string; options?: string; maxSize?: string; required?: boolean }) => {
      const accountId = parseUuid('--account', opts.account);
      const relatedName = parseResource(opts.resource);
      const name = parseName('--name', opts.name);
      const type = parseFieldType(opts.type);
      const options = parseList(opts.options);
      const choices = type === 'select' || type === 'multiselect';
      if (choices && options.length === 0) throw new UsageError(`--options is required for ${type} fields, e.g. --options a,b`);
      if (!choices && type !== 'attachment' && opts.options !== undefined) throw new UsageError('--options goes with --type select, multiselect or attachment');
      if (new Set(options).size !== options.length) throw new UsageError('--options must not repeat a choice');
      if (opts.maxSize !== undefined && type !== 'attachment') throw new UsageError('--max-size goes with --type attachment');
      if (opts.maxSize !== undefined && !/^\d{1,10}$/.test(opts.maxSize.trim())) throw new UsageError(`--max-size must be a whole number of bytes; got "${opts.maxSize}"`);
      const maxSizeBytes = opts.maxSize === undefined ? undefined : Number(opts.maxSize.trim());
      const row = await (await ctx.admin()).addCustomField({ accountId, relatedName, name, type, options, required: opts.required ?? false, maxSizeBytes });
      ctx.result({ custom_field_definition: row }, [
        `Added custom field "${row.name}" (${row.id}) for ${row.related_name}: ${row.field_type}${row.options.length ? ` [${row.options.join(', ')}]` : ''}${row.max_size_bytes ? `, at most ${row.max_size_bytes} bytes` : ''}${row.required ? ', required' : ''}`,
      ]);
    });
  lookupOptions(field.command('remove').description('retire a custom field definition (values on records are no longer served by the lookup)'))
    .action(async (opts: { account: string; resource: string; name: string }) => {
      const accountId = parseUuid('--account', opts.account);
      const relatedName = parseResource(opts.resource);
      const name = parseName('--name', opts.name);
      const row = await (await ctx.admin()).removeCustomField({ accountId, relatedName, name });
      ctx.result({ custom_field_definition: row }, [`Removed custom field "${row.name}" (${row.id}) from ${row.related_name}`]);
    });
}
