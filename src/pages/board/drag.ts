import { $, closestOf } from './dom.ts';
import { move, startAtHour } from './moves.ts';
import { board } from './store.ts';

// Drag and drop of cards: onto a column's heading (another technician, same time), a cell (that technician, and
// that hour, the minutes kept) or Unassigned. The drop target under the pointer is outlined.

/** The card being dragged, and the column it was dragged from. */
let dragged: { jobId: string; fromUserId: string } | null = null;

function dropTarget(node: EventTarget | null): HTMLElement | null {
  return closestOf(node, '#board .drop');
}

function clearTargets(): void {
  document.querySelectorAll('#board .drop-target').forEach((node) => node.classList.remove('drop-target'));
}

export function wireDragAndDrop(): void {
  const table = $('board');
  table.addEventListener('dragstart', (event) => {
    const card = closestOf(event.target, '.card');
    if (!card) return;
    dragged = { jobId: card.dataset.jobId ?? '', fromUserId: card.dataset.userId ?? '' };
    if (!event.dataTransfer) return;
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', dragged.jobId);
  });
  table.addEventListener('dragend', () => {
    dragged = null;
    clearTargets();
  });
  table.addEventListener('dragover', (event) => {
    const target = dropTarget(event.target);
    if (!dragged || !target) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'move';
    if (!target.classList.contains('drop-target')) {
      clearTargets();
      target.classList.add('drop-target');
    }
  });
  table.addEventListener('dragleave', (event) => {
    const target = dropTarget(event.target);
    const to = event.relatedTarget instanceof Node ? event.relatedTarget : null;
    if (target && !target.contains(to)) target.classList.remove('drop-target');
  });
  table.addEventListener('drop', (event) => {
    const target = dropTarget(event.target);
    const what = dragged;
    dragged = null;
    clearTargets();
    if (!what || !target) return;
    event.preventDefault();
    const job = board.jobs.get(what.jobId);
    if (!job) return;
    const hour = target.dataset.hour;
    void move(what.jobId, what.fromUserId, target.dataset.userId ?? null, hour === undefined ? null : startAtHour(job, Number(hour)));
  });
}
