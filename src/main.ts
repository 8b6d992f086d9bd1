import { loadConfig, type Config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { acquireDataDirLock } from './db/data-dir-lock.ts';
import { buildApp } from './app.ts';
import { createLogger } from './kernel/logger.ts';
import { bootstrapDemo } from './domain.ts';
import { Redis } from 'ioredis';
import { serveAdminSocket } from './cli/admin-socket.ts';
import { runCli } from './cli/run.ts';
import { errorText } from './kernel/logger.ts';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  // A setting the server cannot start with: one line naming each, no stack trace (stdout keeps to JSON lines).
  createLogger('info').fatal({ err_message: (error as Error).message }, 'failed to start');
  process.stderr.write(`Fieldline cannot start: ${(error as Error).message}\n`);
  process.exit(1);
}
const logger = createLogger(config.LOG_LEVEL);

async function main() {
  // The embedded database can be opened by one process only; the `fieldline` command takes the same lock.
  const lock = config.DATABASE_URL ? null : acquireDataDirLock(config.DATA_DIR, 'server');
  const database = await openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR, poolSize: config.DATABASE_POOL_SIZE });
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
  const app = buildApp({ database, config, logger, redis });
  const demo = await bootstrapDemo(app.domain.admin, database.prisma);
  const { port } = await app.listen(config.PORT);
  // On the embedded database, the `fieldline` command runs through this process (src/cli/admin-socket.ts).
  const adminSocket = lock
    ? await serveAdminSocket(
        config.DATA_DIR,
        async (argv) => {
          let stdout = '';
          let stderr = '';
          const code = await runCli(argv, { stdout: { write: (text) => (stdout += text) }, stderr: { write: (text) => (stderr += text) }, database, admin: app.domain.admin });
          // What ran and how it ended; never its output (a created key's token is in it).
          logger.info({ command: argv.filter((arg) => !arg.startsWith('-')).slice(0, 2).join(' '), exit_code: code }, 'fieldline command run for the CLI');
          return { code, stdout, stderr };
        },
        (error) => logger.error({ err: errorText(error) }, 'admin socket error'),
      )
    : null;
  const base = `http://localhost:${port}`;
  // stdout holds JSON log lines only (for log shippers); the banner, and the demo key on a first start, are for the
  // person at the terminal and go to stderr. The log gets the same facts as structured lines, never the key itself.
  logger.info({ port, database: database.kind === 'pglite' ? 'embedded' : 'postgresql' }, 'listening');
  if (demo) logger.info({ account_id: demo.account.id, key_id: demo.key.id }, 'demo account created; its key was printed on stderr');
  const banner = [
    `Fieldline listening on ${base} (${database.kind === 'pglite' ? `embedded database in ${config.DATA_DIR}` : 'PostgreSQL'})`,
    `  REST    ${base}/api/v2   (OpenAPI: ${base}/api/v2/openapi.json, reference: ${base}/docs)`,
    `  GraphQL ${base}/graphql`,
  ];
  if (demo) {
    banner.push(
      `\nFirst start: created the demo account "${demo.account.name}" (${demo.account.id}).`,
      `Demo API key (every scope; shown only now, store it):\n\n  ${demo.key.token}\n`,
      `  curl -H "Authorization: Bearer ${demo.key.token}" ${base}/api/v2/me\n`,
    );
  }
  process.stderr.write(`${banner.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const started = Date.now();
    // The drain has SHUTDOWN_TIMEOUT_MS; what follows it (the queue's deliveries under way, closing the database)
    // gets 10 s more before the process gives up on them.
    const limitMs = config.SHUTDOWN_TIMEOUT_MS + 10_000;
    const force = setTimeout(() => {
      logger.error({ signal, duration_ms: Date.now() - started }, `shutdown did not finish within ${limitMs / 1000} s; exiting`);
      process.exit(1);
    }, limitMs).unref();
    await adminSocket?.close();
    const drained = await app.close();
    await redis?.quit().catch(() => {});
    await database.close();
    lock?.release();
    clearTimeout(force);
    // The last line a process writes: what it stopped on and how long the drain took.
    logger.info({ signal, duration_ms: Date.now() - started, drained }, 'stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error) => {
  logger.fatal({ err_name: (error as Error)?.name, err_message: (error as Error)?.message }, 'failed to start');
  process.exit(1);
});
