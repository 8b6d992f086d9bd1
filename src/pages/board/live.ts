import { graphqlWs, live, liveClient } from './connection.ts';
import { windowOf } from './dates.ts';
import { setLive, showBanner } from './dom.ts';
import { codeOf, messageOf } from './errors.ts';
import { type DataOf, JOB_EVENTS, type VariablesOf } from './operations.ts';
import { boardFailed, loadBoard } from './reads.ts';
import { render } from './render.ts';
import { board, currentDay, drop, take } from './store.ts';
import type { JobEvent } from './types.ts';

// Live updates: the jobEvents subscription filtered to the day. After a lost connection it subscribes again with
// afterSeq = the last seq seen, so no change is missed; when the server answers subscription.resync_required
// (or no event was seen yet) the board is read again instead.

function applyEvent(event: JobEvent): void {
  if (typeof event.seq === 'number' && (live.lastSeq === null || event.seq > live.lastSeq)) live.lastSeq = event.seq;
  if (!event.job) return reloadSoon();
  if (event.topic === 'JOB_DELETED') {
    drop(event.job.id);
    board.cardErrors.delete(event.job.id);
  } else {
    const job = event.job;
    if (event.etag) job.etag = event.etag;
    take(job);
  }
  render();
}

/** An event the server could not serve: the board is read again (once for a burst), so nothing is missed. */
function reloadSoon(): void {
  const mine = board.generation;
  if (live.reloadTimer) return;
  live.reloadTimer = window.setTimeout(() => {
    live.reloadTimer = undefined;
    void readAgain(mine);
  }, 250);
}

/**
 * Subscribes to the day's job events (after afterSeq, when given); resolves once the socket is connected (or
 * the subscription failed, or after 3 s). Each subscription has its own token: the handlers of one that was
 * replaced (a resync, a reconnect, another day) do nothing.
 */
export function subscribe(afterSeq: number | null): Promise<void> {
  const ws = graphqlWs();
  if (!ws) return Promise.resolve();
  const token = {};
  live.current = token;
  if (live.unsubscribe) live.unsubscribe();
  const client = liveClient(ws);
  const w = windowOf(currentDay());
  const variables: VariablesOf<typeof JOB_EVENTS> = { filter: { from: w.from.toISOString(), to: w.to.toISOString() } };
  if (afterSeq !== null) variables.afterSeq = afterSeq;
  return new Promise((resolve) => {
    let settled = false;
    let off = (): void => {};
    const settle = (): void => {
      if (!settled) {
        settled = true;
        off();
        resolve();
      }
    };
    off = client.on('connected', settle);
    window.setTimeout(settle, 3000);
    live.unsubscribe = client.subscribe<DataOf<typeof JOB_EVENTS>>(
      { query: JOB_EVENTS.query, variables },
      {
        next(result) {
          if (token !== live.current) return;
          const event = result.data?.jobEvents;
          if (result.errors && result.errors.length) {
            if (codeOf(result.errors) === 'subscription.resync_required') return resync();
            // The stream ends after this (a revoked key, say); what it could not serve is read again.
            showBanner('Live update failed: ' + messageOf(result.errors));
            if (!event) return reloadSoon();
          }
          if (event) applyEvent(event);
        },
        error(error: unknown) {
          settle();
          if (token !== live.current) return;
          live.unsubscribe = null;
          if (Array.isArray(error)) {
            // The server refused the subscription itself (GraphQL errors): no retry, except a resync.
            if (codeOf(error) === 'subscription.resync_required') return resync();
            setLive('unavailable', 'Not live: ' + messageOf(error));
            return;
          }
          // Otherwise the socket closed: for good when the server refused the key or the request, else reconnect.
          const closed = error as { code?: unknown; reason?: unknown } | null;
          const code = closed && typeof closed.code === 'number' ? closed.code : null;
          if (code === 4400 || code === 4401 || code === 4403) {
            setLive('unavailable', 'Not live: ' + (closed?.reason || 'the key was refused') + '. Refresh to try again.');
            return;
          }
          reconnect();
        },
        complete() {
          settle();
          if (token !== live.current) return;
          live.unsubscribe = null;
          reconnect();
        },
      },
    );
  });
}

/** After a lost connection: subscribe again after the last seq seen (or read the board again if none was seen). */
function reconnect(): void {
  const mine = board.generation;
  live.current = null;
  setLive('reconnecting', 'Reconnecting…');
  const delay = Math.min(10000, 500 * Math.pow(2, live.retries++)) * (0.75 + Math.random() * 0.5);
  window.clearTimeout(live.timer);
  live.timer = window.setTimeout(() => {
    if (mine !== board.generation) return;
    if (live.lastSeq !== null) void subscribe(live.lastSeq);
    else void subscribe(null).then(() => readAgain(mine));
  }, delay);
}

/** The server cannot replay from our seq: read the board again and follow the events from now on. */
function resync(): void {
  const mine = board.generation;
  live.lastSeq = null;
  void subscribe(null).then(() => readAgain(mine));
}

/** Reads the board again, unless the day or the key changed since `mine`. */
function readAgain(mine: number): Promise<void> | undefined {
  if (mine === board.generation) return loadBoard().catch(boardFailed);
  return undefined;
}
