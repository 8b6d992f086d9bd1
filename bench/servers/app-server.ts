// Bench-only entry: the real Fieldline app (buildApp) on the bench database, in its own process.
// Started by bench/customers-list.bench.ts, bench/graphql-limits.bench.ts and bench/events.bench.ts over IPC; LOG_LEVEL silent, rate
// limits out of the way; `limits: false` turns the GraphQL cost limits off (the graphql-limits baseline).
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { answerControlMessages } from './control.ts';

interface StartMessage {
  type: 'start';
  databaseUrl: string;
  limits?: boolean;
  /** Settings over the bench defaults (config variables, e.g. WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  config?: Record<string, string>;
}

const unlimited = 1_000_000_000;

answerControlMessages();

process.once('message', (message: StartMessage) => {
  void (async () => {
    const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: message.databaseUrl, HOST: '127.0.0.1', ...message.config });
    const database = await openDatabase({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, migrate: false });
    const app = buildApp({ database, config, rateLimits: { read: unlimited, write: unlimited, webhook_ingest: unlimited, graphql: unlimited }, graphqlLimits: message.limits ?? true });
    const { port } = await app.listen(0, '127.0.0.1');
    let closing = false;
    const close = async () => {
      if (closing) return;
      closing = true;
      await app.close().catch(() => {});
      await database.close().catch(() => {});
      process.exit(0);
    };
    process.on('SIGTERM', () => void close());
    process.on('SIGINT', () => void close());
    process.on('disconnect', () => void close());
    process.send?.({ type: 'ready', port, poolSize: config.DATABASE_POOL_SIZE });
  })().catch((error: unknown) => {
    process.send?.({ type: 'failed', message: (error as Error)?.message ?? String(error) });
    process.exit(1);
  });
});
