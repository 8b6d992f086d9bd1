import { at, hhmm, windowOf } from './dates.ts';
import { $, closestOf, el } from './dom.ts';
import { move } from './moves.ts';
import { columns } from './render.ts';
import { board, currentDay } from './store.ts';

// The Move… dialog of a card, for the keyboard and the pointer alike: the technician and the start time.

/** The card the dialog is moving, and the column it is in. */
let moving: { jobId: string; fromUserId: string } | null = null;

function openMoveDialog(jobId: string, fromUserId: string): void {
  const job = board.jobs.get(jobId);
  if (!job) return;
  moving = { jobId, fromUserId };
  $('move-heading').textContent = 'Move job ' + job.number;
  $('move-user').replaceChildren(...columns().map((col) => el('option', { value: col.id, text: col.name, selected: col.id === fromUserId })));
  $('move-time').value = hhmm(new Date(job.scheduledStart));
  $('move-dialog').showModal();
}

export function wireMoveDialog(): void {
  const dialog = $('move-dialog');
  $('board').addEventListener('click', (event) => {
    const button = closestOf(event.target, '.card .move');
    if (!button) return;
    const card = button.closest<HTMLElement>('.card');
    if (card) openMoveDialog(card.dataset.jobId ?? '', card.dataset.userId ?? '');
  });
  $('move-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const what = moving;
    moving = null;
    dialog.close();
    if (!what) return;
    const m = /^(\d{2}):(\d{2})/.exec($('move-time').value);
    const start = m ? at(windowOf(currentDay()).from, Number(m[1]), Number(m[2])) : null;
    void move(what.jobId, what.fromUserId, $('move-user').value, start);
  });
  $('move-cancel').addEventListener('click', () => {
    moving = null;
    dialog.close();
  });
}
