import pg from 'pg';

/**
 * LISTEN on its own connection to the server (a pooled connection cannot hold a LISTEN). A lost connection is
 * reopened after a pause, and onConnect runs after every subscription, so the listener reads what it missed.
 */
export async function listenOnServer(url: string, channel: string, onNotify: () => void, onConnect: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    next.on('error', () => {
      next.end().catch(() => {});
      if (client === next) client = null;
      if (!stopped) retry = setTimeout(() => void connect().catch(() => {}), 1000).unref();
    });
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    if (stopped) return void (await next.end());
    client = next;
    onConnect();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
