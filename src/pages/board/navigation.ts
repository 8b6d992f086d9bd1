import { live, stopLive } from './connection.ts';
import { dayOf, parseDay } from './dates.ts';
import { $, hideBanner, setLive } from './dom.ts';
import { messageOf } from './errors.ts';
import { subscribe } from './live.ts';
import { boardFailed, loadBoard } from './reads.ts';
import { render } from './render.ts';
import { board } from './store.ts';

// Opening a day: the browser's local day, in the address (?day=YYYY-MM-DD) so that a reload or a bookmark opens
// the same day. Live first, then the board, so that a change made while the board is read is not missed.

/** Opens a day ('YYYY-MM-DD'; today when the text is not a day): the board starts again from nothing. */
export async function openDay(text: string | null): Promise<void> {
  const day = text && parseDay(text) ? text : dayOf(new Date());
  board.day = day;
  board.generation += 1;
  stopLive();
  board.jobs.clear();
  board.seen.clear();
  board.saving.clear();
  board.cardErrors.clear();
  live.lastSeq = null;
  live.retries = 0;
  $('day-input').value = day;
  delete $('board-section').dataset.loaded;
  const url = new URL(location.href);
  url.searchParams.set('day', day);
  history.replaceState(null, '', url.pathname + url.search);
  setLive('connecting', 'Connecting…');
  $('summary').textContent = 'Loading…';
  render();
  try {
    await subscribe(null);
  } catch (error) {
    setLive('unavailable', 'Not live: ' + messageOf(error));
  }
  try {
    await loadBoard();
  } catch (error) {
    boardFailed(error);
  }
}

/** The day before (-1) or after (1) the one shown. */
export function shiftDay(days: number): void {
  const d = parseDay(board.day) || new Date();
  void openDay(dayOf(new Date(d.getFullYear(), d.getMonth(), d.getDate() + days)));
}

/** From the key form to the board, of the day in the address (else today). */
export function openBoard(): void {
  $('key-section').hidden = true;
  $('board-section').hidden = false;
  $('key-error').hidden = true;
  hideBanner();
  void openDay(new URL(location.href).searchParams.get('day') || dayOf(new Date()));
}
