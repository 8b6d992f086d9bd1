import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/client.ts';
import { acquireDataDirLock, DataDirLockedError } from '../db/data-dir-lock.ts';
import { SigningKeys } from '../kernel/cursor.ts';
import { ApiVersions, parseApiVersions } from '../kernel/versioning.ts';
import { registerAccountCommands } from './commands/account.ts';
import { registerCursorKeyCommands } from './commands/cursor-key.ts';
import { registerIdempotencyKeyCommands } from './commands/idempotency-keys.ts';
import { registerKeyCommands } from './commands/key.ts';
import { registerLookupCommands } from './commands/lookup.ts';
import { registerUserCommands } from './commands/user.ts';
import { registerWebhookCommands } from './commands/webhook.ts';
import type { CommandContext } from './context.ts';
import { runOnServer } from './admin-socket.ts';
import { UsageError } from './validate.ts';
import { AdminError, AdminService } from '../domain.ts';

// The `fieldline` admin command. runCli is the whole program minus the process: tests call it in-process
// with an open database and string sinks; src/cli/main.ts calls it with the real stdio.

export interface CliWritable {
  write(chunk: string): unknown;
}

export interface CliOptions {
  stdout: CliWritable;
  stderr: CliWritable;
  /** An open database to work on. When absent, the command opens DATABASE_URL or the embedded database in DATA_DIR (and closes it). */
  database?: Database;
  /** Environment for DATABASE_URL / DATA_DIR (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The admin service to use with `database` (the server's own, which tells its key cache of each change). */
  admin?: AdminService;
}

/** Exit codes: 0 done, 1 the operation failed (unknown id, conflict, database locked or unreachable), 2 bad usage. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** Tokens and token hashes never reach the output through an error message. */
function redact(message: string): string {
  return message.replace(/svc_[0-9a-fA-F-]{8,}/g, 'svc_[redacted]').replace(/\b[0-9a-f]{64}\b/g, '[redacted]');
}

function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v));
}

async function openFromEnvironment(env: NodeJS.ProcessEnv): Promise<{ database: Database; release(): void }> {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  // Loaded on demand: the database drivers (wasm) are the slow part of starting, and bad usage never needs them.
  const { openDatabase } = await import('../db/client.ts');
  const cannotOpen = (where: string, error: unknown) =>
    new AdminError(`cannot open the database (${where}): ${(error as Error)?.message ?? String(error)}`);
  if (config.DATABASE_URL) {
    try {
      return { database: await openDatabase({ url: config.DATABASE_URL, poolSize: 2 }), release() {} };
    } catch (error) {
      throw cannotOpen('DATABASE_URL', error);
    }
  }
  const lock = acquireDataDirLock(config.DATA_DIR, 'cli');
  try {
    return { database: await openDatabase({ dataDir: config.DATA_DIR }), release: () => lock.release() };
  } catch (error) {
    lock.release();
    throw cannotOpen(`embedded, in ${config.DATA_DIR}`, error);
  }
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function buildProgram(ctx: CommandContext, io: { stdout: CliWritable; stderr: CliWritable }): Command {
  const { json } = ctx;
  const program = new Command('fieldline')
    .description(
      'Administer Fieldline tenants: accounts, users, API keys, lookup values and cursor signing keys.\n' +
        'Works on DATABASE_URL, or on the embedded database in DATA_DIR (default ./data): through the server when it runs.',
    )
    // --json is a program option, accepted anywhere on the line: fieldline key create --user 7 --json
    .option('--json', 'print exactly one JSON object on stdout (errors as {"error":{"message":...}})')
    .configureHelp({ showGlobalOptions: true })
    .version(`fieldline ${packageVersion()} (Node ${process.versions.node})`, '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // With --json, stdout carries the error object; help text on stderr would only be noise.
      writeErr: (text) => (json ? undefined : io.stderr.write(text)),
      // runCli reports errors itself (as JSON with --json).
      outputError: () => {},
    })
    .showSuggestionAfterError(true);
  registerAccountCommands(program, ctx);
  registerUserCommands(program, ctx);
  registerKeyCommands(program, ctx);
  registerLookupCommands(program, ctx);
  registerCursorKeyCommands(program, ctx);
  registerIdempotencyKeyCommands(program, ctx);
  registerWebhookCommands(program, ctx);
  return program;
}

function missingCommand(program: Command, argv: readonly string[]): string {
  const names = (command: Command) => command.commands.map((c) => c.name()).filter((n) => n !== 'help');
  const groupName = argv.find((arg) => !arg.startsWith('-'));
  const group = program.commands.find((c) => c.name() === groupName);
  if (group) return `fieldline ${group.name()} needs an action: ${names(group).join(', ')}`;
  return `a command is required: ${names(program).join(', ')}`;
}

/** Runs one `fieldline` invocation (argv without node and script) and returns its exit code. */
export async function runCli(argv: readonly string[], options: CliOptions): Promise<number> {
  const json = argv.includes('--json');
  const { stdout, stderr } = options;
  let opened: Promise<{ database: Database; release(): void }> | null = null;
  let printed = false;

  const database = async (): Promise<Database> => {
    if (options.database) return options.database;
    opened ??= openFromEnvironment(options.env ?? process.env);
    return (await opened).database;
  };
  let admin: AdminService | null = null;
  let signingKeys: SigningKeys | null = null;
  let versions: ApiVersions | null = null;
  const apiVersions = (): ApiVersions => {
    if (versions) return versions;
    try {
      return (versions = new ApiVersions(parseApiVersions((options.env ?? process.env).API_VERSIONS)));
    } catch (error) {
      throw new UsageError(`invalid configuration: API_VERSIONS: ${(error as Error).message}`);
    }
  };
  const ctx: CommandContext = {
    json,
    apiVersions,
    admin: async () => (admin ??= options.admin ?? new AdminService((await database()).prisma, apiVersions())),
    signingKeys: async () => (signingKeys ??= new SigningKeys((await database()).prisma)),
    prisma: async () => (await database()).prisma,
    result(object, human) {
      if (printed) throw new Error('a command printed two results');
      printed = true;
      stdout.write(json ? `${toJson(object)}\n` : `${human.join('\n')}\n`);
    },
  };

  const fail = (code: number, message: string): number => {
    const safe = redact(message).trim();
    if (json) stdout.write(`${toJson({ error: { message: safe } })}\n`);
    else stderr.write(`fieldline: ${safe}\n${code === EXIT_USAGE ? 'Run fieldline --help (or fieldline <command> <action> --help) for usage.\n' : ''}`);
    return code;
  };

  const program = buildProgram(ctx, { stdout, stderr });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    if (!printed) return fail(EXIT_USAGE, 'no command given; run fieldline --help to list them');
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT_OK;
      if (error.code === 'commander.help') return fail(EXIT_USAGE, missingCommand(program, argv));
      return fail(EXIT_USAGE, error.message.replace(/^error:\s*/, ''));
    }
    if (printed) {
      // The result is already out: a later failure must not print a second object.
      stderr.write(`fieldline: ${redact((error as Error)?.message ?? String(error))}\n`);
      return EXIT_FAILED;
    }
    if (error instanceof UsageError) return fail(EXIT_USAGE, error.message);
    if (error instanceof AdminError) return fail(EXIT_FAILED, error.message);
    if (error instanceof DataDirLockedError && error.holder?.owner === 'server') {
      // The server holding the embedded database runs the command itself (src/cli/admin-socket.ts).
      const served = await runOnServer(error.dataDir, argv);
      if (served) {
        stdout.write(served.stdout);
        stderr.write(served.stderr);
        return served.code;
      }
    }
    if (error instanceof DataDirLockedError) {
      const hint = error.holder?.owner === 'server' ? 'stop the server or use DATABASE_URL' : 'retry when it has finished, or use DATABASE_URL';
      return fail(EXIT_FAILED, `${error.message}: ${hint}`);
    }
    return fail(EXIT_FAILED, `unexpected error: ${(error as Error)?.message ?? String(error)}`);
  } finally {
    if (opened) {
      const handle = await (opened as Promise<{ database: Database; release(): void }>).catch(() => null);
      if (handle) {
        await handle.database.close().catch(() => {});
        handle.release();
      }
    }
  }
}
