import { windowOf } from './dates.ts';
import { $, showBanner } from './dom.ts';
import { KeyRefused, messageOf } from './errors.ts';
import { graphql } from './http.ts';
import { keyRefused } from './key.ts';
import { BOARD_LIMIT, BOARD_QUERY, JOB_QUERY } from './operations.ts';
import { render } from './render.ts';
import { board, currentDay, drop, take } from './store.ts';

// Reading the board: the day's jobs (dispatchBoard, for the local day), or one job again (after a refused move).

/** Reads the day's jobs; an answer for a day or key that is no longer the board's is dropped. */
export async function loadBoard(): Promise<void> {
  const mine = board.generation;
  const day = currentDay();
  const w = windowOf(day);
  board.touched.clear();
  const result = await graphql(BOARD_QUERY, { from: w.from.toISOString(), to: w.to.toISOString(), limit: BOARD_LIMIT });
  if (mine !== board.generation) return;
  const read = result.data?.dispatchBoard;
  if (!read) throw new Error(messageOf(result.errors) || 'The board could not be read.');
  const ids = new Set<string>();
  for (const job of read.jobs) {
    ids.add(job.id);
    take(job, { fromBoard: true });
  }
  // A job shown that the board no longer has moved out of the day or was deleted, unless an event or a write
  // that arrived while the board was read put it there (it then stays as that left it).
  for (const id of Array.from(board.jobs.keys())) if (!ids.has(id) && !board.touched.has(id)) board.jobs.delete(id);
  board.touched.clear();
  board.hasMore = read.hasMore;
  $('board-section').dataset.loaded = day;
  if (result.errors) showBanner('Some fields could not be read: ' + messageOf(result.errors));
  render();
}

/** Reads one job again and shows it as it is now (or drops it, if it is gone). */
export async function refreshJob(id: string): Promise<void> {
  const mine = board.generation;
  try {
    const result = await graphql(JOB_QUERY, { id });
    if (mine !== board.generation) return;
    const job = result.data?.job;
    if (job) take(job);
    else drop(id);
  } catch (error) {
    if (error instanceof KeyRefused) return keyRefused(error.message);
    showBanner('Could not read the job again: ' + messageOf(error));
  }
  render();
}

/** A read of the board failed: the key form if the key was refused, else the banner says why. */
export function boardFailed(error: unknown): void {
  if (error instanceof KeyRefused) return keyRefused(error.message);
  showBanner('Could not read the board: ' + messageOf(error));
}
