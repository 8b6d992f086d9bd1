import type { Command } from 'commander';
import type { CommandContext } from '../context.ts';
import { parseSigningKeyId } from '../validate.ts';
import { AdminError } from '../../domain.ts';

// The HMAC keys that sign list cursors (src/kernel/cursor.ts). Rotation adds a new signing key; older keys
// keep verifying until retired, after which their cursors answer cursor.invalid. Secrets are never printed.
// A running server reads the keys again within 5 seconds.

export function registerCursorKeyCommands(program: Command, ctx: CommandContext): void {
  const group = program.command('cursor-key').description('rotate and retire the keys that sign list cursors');

  group.command('list').description('list cursor signing keys (ids and dates, never secrets)').action(async () => {
    const prisma = await ctx.prisma();
    const keys = await prisma.signingKey.findMany({ select: { id: true, created_at: true, retired_at: true }, orderBy: { created_at: 'desc' } });
    const rows = keys.map((k) => ({ id: k.id, created_at: k.created_at.toISOString(), retired_at: k.retired_at?.toISOString() ?? null }));
    ctx.result(
      { cursor_keys: rows },
      rows.length
        ? rows.map((k) => `${k.id}  created ${k.created_at}  ${k.retired_at ? `retired ${k.retired_at}` : 'live'}`)
        : ['No cursor signing keys yet (the server creates one on first use).'],
    );
  });

  group
    .command('rotate')
    .description('add a new signing key; new cursors use it, cursors of older live keys keep working')
    .option('--retire-previous', 'also retire every key that was live (their cursors answer cursor.invalid)')
    .action(async (opts: { retirePrevious?: boolean }) => {
      const prisma = await ctx.prisma();
      const signingKeys = await ctx.signingKeys();
      const before = opts.retirePrevious ? await prisma.signingKey.findMany({ where: { retired_at: null }, select: { id: true } }) : [];
      const id = await signingKeys.rotate({ retirePrevious: opts.retirePrevious ?? false });
      const created = await prisma.signingKey.findUniqueOrThrow({ where: { id }, select: { id: true, created_at: true } });
      const retired = before.map((k) => k.id);
      ctx.result({ cursor_key: { id: created.id, created_at: created.created_at.toISOString() }, retired }, [
        `New cursor signing key ${created.id}`,
        retired.length ? `Retired ${retired.join(', ')}: their cursors now answer cursor.invalid.` : 'Cursors signed by older live keys keep working until retired.',
      ]);
    });

  group
    .command('retire')
    .description("retire a signing key: cursors it signed answer cursor.invalid")
    .argument('<kid>', 'key id, as printed by cursor-key list or rotate')
    .action(async (rawKid: string) => {
      const kid = parseSigningKeyId(rawKid);
      const prisma = await ctx.prisma();
      const existing = await prisma.signingKey.findUnique({ where: { id: kid }, select: { id: true, retired_at: true } });
      if (!existing) throw new AdminError(`no cursor key ${kid}`);
      if (existing.retired_at) throw new AdminError(`cursor key ${kid} is already retired`);
      await (await ctx.signingKeys()).retire(kid);
      const row = await prisma.signingKey.findUniqueOrThrow({ where: { id: kid }, select: { id: true, created_at: true, retired_at: true } });
      const live = await prisma.signingKey.count({ where: { retired_at: null } });
      ctx.result(
        { cursor_key: { id: row.id, created_at: row.created_at.toISOString(), retired_at: row.retired_at?.toISOString() ?? null } },
        [
          `Retired cursor signing key ${row.id}: its cursors now answer cursor.invalid.`,
          ...(live === 0 ? ['No live key is left; the server creates a new one on its next list request.'] : []),
        ],
      );
    });
}
