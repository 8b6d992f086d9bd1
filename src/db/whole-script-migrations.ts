import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * @prisma/adapter-pg runs a migration script statement by statement, split on every ";", which breaks the
 * dollar-quoted bodies of trigger functions. PostgreSQL takes the whole script as one simple-protocol query
 * (one implicit transaction), so migrations are applied through adapters that do that.
 */
export function wholeScriptMigrations(factory: SqlMigrationAwareDriverAdapterFactory): SqlMigrationAwareDriverAdapterFactory {
  const whole = <T extends SqlDriverAdapter>(adapter: T): T => {
    const inner = adapter as unknown as { client: { query(sql: string): Promise<unknown> }; onError(error: unknown): never };
    adapter.executeScript = async (script: string) => {
      try {
        await inner.client.query(script);
      } catch (error) {
        inner.onError(error);
      }
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => whole(await factory.connect()),
    connectToShadowDb: async () => whole(await factory.connectToShadowDb()),
  };
}
