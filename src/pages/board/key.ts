import { stopLive } from './connection.ts';
import { $ } from './dom.ts';
import { board } from './store.ts';

// The API key: kept in this tab's sessionStorage only (never in the URL, never in localStorage), sent as
// Authorization (http.ts) and as the WebSocket's connectionParams (connection.ts).

const KEY_STORAGE = 'fieldline.board.key';

/** The key of this tab, if one was entered. */
export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function rememberKey(key: string): void {
  board.key = key;
  sessionStorage.setItem(KEY_STORAGE, key);
}

/** Drops the key, and whatever is under way for it. */
function dropKey(): void {
  board.generation += 1;
  stopLive();
  sessionStorage.removeItem(KEY_STORAGE);
  board.key = null;
}

/** The server refused the key: the key form again, with the reason. */
export function keyRefused(message: string): void {
  dropKey();
  $('board-section').hidden = true;
  $('key-section').hidden = false;
  const error = $('key-error');
  error.textContent = 'The key was refused: ' + message;
  error.hidden = false;
  $('key-input').focus();
}

/** Forget key: the key and the board leave the tab, and the key form is back. */
export function forgetKey(): void {
  dropKey();
  board.jobs.clear();
  board.users.clear();
  $('board').replaceChildren();
  $('board-section').hidden = true;
  $('key-section').hidden = false;
  $('key-input').focus();
}
