// The one-shot `migrate` service of docker-compose.yml (docs/operations.md, "Deployment"): applies the migrations
// to DATABASE_URL and does the first start's work (the demo account on a database without any account, its key
// printed on stderr, as `npm start` does), then exits 0. The API replicas wait for it to have completed
// (`service_completed_successfully`), so no two processes race a first start; each replica still checks the
// migrations when it starts (under the schema engine's advisory lock: a no-op once this has run).
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { bootstrapDemo } from '../src/domain.ts';
import { createLogger } from '../src/kernel/logger.ts';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);
if (!config.DATABASE_URL) {
  // The embedded database lives inside the one server process, which applies its migrations itself.
  logger.fatal('migrate needs DATABASE_URL (PostgreSQL); the embedded database is migrated by the server');
  process.stderr.write('migrate: DATABASE_URL is not set\n');
  process.exit(1);
}
const started = Date.now();
try {
  const database = await openDatabase({ url: config.DATABASE_URL, poolSize: 1 });
  try {
    const app = buildApp({ database, config: { ...config, LOG_LEVEL: 'silent' }, logger });
    try {
      const demo = await bootstrapDemo(app.domain.admin, database.prisma);
      if (demo) {
        logger.info({ account_id: demo.account.id, key_id: demo.key.id }, 'demo account created; its key was printed on stderr');
        process.stderr.write(`First start: created the demo account "${demo.account.name}" (${demo.account.id}).\nDemo API key (every scope; shown only now, store it):\n\n  ${demo.key.token}\n\n`);
      }
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
  logger.info({ duration_ms: Date.now() - started }, 'migrations applied');
  process.exit(0);
} catch (error) {
  // No stack trace, no connection string: the driver's code and message only.
  logger.fatal({ err_name: (error as Error)?.name, err_code: (error as { code?: string })?.code, err_message: (error as Error)?.message }, 'migrate failed');
  process.exit(1);
}
