import type { Client, createClient } from 'graphql-ws';
import { $, setLive } from './dom.ts';
import { GRAPHQL_PATH } from './operations.ts';
import { board } from './store.ts';

// The WebSocket to ws(s)://<host>/graphql (graphql-ws, protocol graphql-transport-ws), with the key as
// connectionParams, and the live badge that follows it. The graphql-ws browser client is its own script
// (/assets/graphql-ws/<version>/graphql-ws.min.js), loaded before this one: the global `graphqlWs`.

/** The global of the graphql-ws browser client (its UMD build). */
export interface GraphqlWs {
  createClient: typeof createClient;
}

/** The graphql-ws client, unless its script did not load. */
export function graphqlWs(): GraphqlWs | undefined {
  return (window as typeof window & { graphqlWs?: GraphqlWs }).graphqlWs;
}

/** The live connection and the subscription on it (live.ts). */
export const live = {
  client: null as Client | null,
  /** The token of the current subscription: the handlers of one that was replaced do nothing. */
  current: null as object | null,
  unsubscribe: null as (() => void) | null,
  /** The seq of the last event received: a new subscription resumes after it. */
  lastSeq: null as number | null,
  /** Reconnects since the last connection, for the backoff. */
  retries: 0,
  /** The pending reconnect. */
  timer: undefined as number | undefined,
  /** The pending read of the board after an event the server could not serve. */
  reloadTimer: undefined as number | undefined,
};

/** The client of this day and key, made on first use. Reconnects are live.ts's (they resume after lastSeq). */
export function liveClient(ws: GraphqlWs): Client {
  if (live.client) return live.client;
  const mine = board.generation;
  const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + GRAPHQL_PATH;
  const client = ws.createClient({
    url,
    connectionParams: () => ({ authorization: 'Bearer ' + board.key }),
    lazy: true,
    retryAttempts: 0,
    keepAlive: 15000,
  });
  client.on('connected', () => {
    if (mine !== board.generation) return;
    live.retries = 0;
    setLive('live', 'Live');
  });
  client.on('closed', () => {
    if (mine !== board.generation) return;
    if ($('live').dataset.state === 'live') setLive('reconnecting', 'Reconnecting…');
  });
  live.client = client;
  return client;
}

/** Ends the subscription, the connection and any pending reconnect or read. */
export function stopLive(): void {
  window.clearTimeout(live.timer);
  window.clearTimeout(live.reloadTimer);
  live.timer = undefined;
  live.reloadTimer = undefined;
  live.current = null;
  if (live.unsubscribe) live.unsubscribe();
  live.unsubscribe = null;
  if (live.client) void live.client.dispose();
  live.client = null;
}
