import { hhmm, pad, windowOf } from './dates.ts';
import { $, el } from './dom.ts';
import { BOARD_LIMIT } from './operations.ts';
import { assignmentsOf, board } from './store.ts';
import type { ScheduledJob } from './types.ts';

// The board's table, drawn again from the store after every change: a column "Unassigned", then one per user
// seen assigned to a job in this tab (by name); rows of hours, 07:00-18:00 widened to the day's jobs. A job with
// several assignees has a card in each of their columns. Every text from the API is set as text, never as HTML.
// The card (or its Move… button) that had the focus has it again afterwards.

/** A column: a user's id as text ('' for Unassigned) and the heading's name. */
export interface Column {
  id: string;
  name: string;
}

export function columns(): Column[] {
  const list = Array.from(board.users, ([id, name]) => ({ id, name }));
  list.sort((a, b) => a.name.localeCompare(b.name) || Number(a.id) - Number(b.id));
  return [{ id: '', name: 'Unassigned' }, ...list];
}

function startOf(job: ScheduledJob): Date {
  return new Date(job.scheduledStart);
}

function cardOf(job: ScheduledJob, userId: string): HTMLElement {
  const time = hhmm(startOf(job)) + (job.scheduledEnd ? '–' + hhmm(new Date(job.scheduledEnd)) : '');
  const headingId = 'job-' + job.id + '-' + (userId || 'none');
  const description = job.workDescription || job.scopeOfWork || '';
  const place = job.customer ? job.customer.organization : job.site ? job.site.siteName : '';
  const error = board.cardErrors.get(job.id);
  const saving = board.saving.has(job.id);
  return el(
    'article',
    {
      class: 'card',
      draggable: 'true',
      tabindex: '0',
      'data-job-id': job.id,
      'data-etag': job.etag,
      'data-user-id': userId,
      'data-saving': saving ? 'true' : null,
      'aria-labelledby': headingId,
      'aria-busy': saving ? 'true' : null,
    },
    [
      el('h3', { id: headingId, text: '#' + job.number + (job.title ? ' · ' + job.title : '') }),
      el('p', { class: 'time', text: time + ' · ' + job.status }),
      place ? el('p', { class: 'customer', text: place }) : null,
      description ? el('p', { class: 'desc', text: description, title: description }) : null,
      error ? el('p', { class: 'card-error', role: 'alert', text: error }) : null,
      el('button', { type: 'button', class: 'move', text: 'Move…', 'aria-label': 'Move job ' + job.number }),
    ],
  );
}

/** The focused card (or its Move… button), to focus again once the table is drawn again. */
function focusedCard(): { job: string; user: string; button: boolean } | null {
  const active = document.activeElement;
  const card = active ? active.closest<HTMLElement>('.card') : null;
  return card ? { job: card.dataset.jobId ?? '', user: card.dataset.userId ?? '', button: active !== card } : null;
}

export function render(): void {
  const table = $('board');
  const day = board.day;
  if (!day) return;
  const focus = focusedCard();

  const list = Array.from(board.jobs.values()).sort(
    (a, b) => startOf(a).getTime() - startOf(b).getTime() || (a.number < b.number ? -1 : 1),
  );
  let first = 7;
  let last = 18;
  for (const job of list) {
    const hour = startOf(job).getHours();
    first = Math.min(first, hour);
    last = Math.max(last, hour);
  }

  // owner@hour -> the jobs of that cell. An assignee not seen among the assignees yet gets a column all the same.
  const cells = new Map<string, ScheduledJob[]>();
  for (const job of list) {
    const hour = startOf(job).getHours();
    const assignments = assignmentsOf(job);
    const owners = assignments.length ? assignments.map((a) => String(a.userId)) : [''];
    for (const owner of owners) {
      if (owner !== '' && !board.users.has(owner)) board.users.set(owner, 'User ' + owner);
      const at = owner + '@' + hour;
      const cell = cells.get(at);
      if (cell) cell.push(job);
      else cells.set(at, [job]);
    }
  }
  const cols = columns();

  const head = el('tr', null, [el('th', { scope: 'col', class: 'hour-col', text: 'Time' })]);
  for (const col of cols) {
    const count = list.filter((job) => {
      const a = assignmentsOf(job);
      return col.id === '' ? a.length === 0 : a.some((x) => String(x.userId) === col.id);
    }).length;
    head.appendChild(el('th', { scope: 'col', class: 'column-head drop', 'data-user-id': col.id, text: col.name + ' (' + count + ')' }));
  }
  const body = el('tbody');
  for (let hour = first; hour <= last; hour++) {
    const row = el('tr', { 'data-hour': hour }, [el('th', { scope: 'row', text: pad(hour) + ':00' })]);
    for (const col of cols) {
      const cell = el('td', { class: 'slot drop', 'data-user-id': col.id, 'data-hour': hour, 'aria-label': col.name + ', ' + pad(hour) + ':00' });
      for (const job of cells.get(col.id + '@' + hour) ?? []) cell.appendChild(cardOf(job, col.id));
      row.appendChild(cell);
    }
    body.appendChild(row);
  }
  table.replaceChildren(el('thead', null, [head]), body);
  table.style.minWidth = 4.5 + cols.length * 13 + 'rem';

  if ($('board-section').dataset.loaded === day)
    $('summary').textContent =
      list.length +
      (list.length === 1 ? ' job' : ' jobs') +
      ' on ' +
      windowOf(day).from.toLocaleDateString(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' }) +
      (board.hasMore ? ' (more jobs start this day than the board shows: ' + BOARD_LIMIT + ' at most)' : '') +
      '.';

  if (focus) {
    const again =
      table.querySelector<HTMLElement>('.card[data-job-id="' + CSS.escape(focus.job) + '"][data-user-id="' + CSS.escape(focus.user) + '"]') ||
      table.querySelector<HTMLElement>('.card[data-job-id="' + CSS.escape(focus.job) + '"]');
    if (again) (focus.button ? again.querySelector<HTMLElement>('.move') : again)?.focus();
  }
}
