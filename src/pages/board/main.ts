import { graphqlWs } from './connection.ts';
import { dayOf, parseDay } from './dates.ts';
import { $, hideBanner, setLive } from './dom.ts';
import { wireDragAndDrop } from './drag.ts';
import { forgetKey, rememberKey, storedKey } from './key.ts';
import { wireMoveDialog } from './move-dialog.ts';
import { openBoard, openDay, shiftDay } from './navigation.ts';
import { board } from './store.ts';

// The dispatch board's script (GET /board, src/pages/board.ts): the entry of the bundle that src/pages/assets.ts
// builds with esbuild when the server starts and serves as /assets/board/<hash>/board.js. No framework; every
// text from the API goes into the page as textContent (never as HTML).
//
// - The key is kept in sessionStorage (this tab only), sent as Authorization on POST /graphql and as the
//   connectionParams of the WebSocket; never in the URL. The day is in the URL (?day=YYYY-MM-DD).
// - The day is the browser's local day: [local midnight, next local midnight), read with dispatchBoard (reads.ts).
// - Columns: "Unassigned", then every user seen assigned to a job in this tab (the API has no user list), by name.
//   Rows: hours. A job with several assignees has a card in each of their columns (render.ts).
// - Live: the jobEvents subscription over graphql-ws (live.ts, connection.ts), resumed after the last seq seen.
// - Every job state (from the board, an event, a mutation) is compared with the one shown (store.ts): an older
//   one never replaces a newer one, whatever order they arrive in.
// - A drop (drag.ts) or the Move… dialog (move-dialog.ts) calls updateJob with the card's etag as ifMatch
//   (moves.ts); userErrors are shown on the card and in the banner, and the card is read again.

function init(): void {
  if (!graphqlWs()) setLive('unavailable', 'Not live: the graphql-ws client did not load.');
  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('key-input').value.trim();
    if (!value) return;
    rememberKey(value);
    $('key-input').value = '';
    openBoard();
  });
  $('forget-key').addEventListener('click', () => forgetKey());
  $('day-input').addEventListener('change', () => {
    if (parseDay($('day-input').value)) void openDay($('day-input').value);
  });
  $('previous-day').addEventListener('click', () => shiftDay(-1));
  $('next-day').addEventListener('click', () => shiftDay(1));
  $('today').addEventListener('click', () => void openDay(dayOf(new Date())));
  $('refresh').addEventListener('click', () => {
    hideBanner();
    void openDay(board.day);
  });
  $('banner-close').addEventListener('click', () => hideBanner());
  wireDragAndDrop();
  wireMoveDialog();
  board.key = storedKey();
  if (board.key) openBoard();
  else $('key-input').focus();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
else init();
