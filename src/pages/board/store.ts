import { windowOf } from './dates.ts';
import type { Assignment, BoardJob, ScheduledJob } from './types.ts';

// What the board knows: the key, the day, the jobs shown and the newest state seen of each job. Every job state
// (from the board, an event, a mutation) is compared with the one seen by (updatedAt, the lock version of its
// ETag): an older one never replaces a newer one, whatever order they arrive in.

/** [updatedAt in ms, lock version] of a job state; [Infinity, Infinity] once the job was deleted. */
type Version = [number, number];

export const board = {
  /** The API key (also in sessionStorage: key.ts). */
  key: null as string | null,
  /** The day shown, 'YYYY-MM-DD'. */
  day: null as string | null,
  /** id -> job shown (scheduledStart within the day). */
  jobs: new Map<string, ScheduledJob>(),
  /** id -> version of the newest state seen. */
  seen: new Map<string, Version>(),
  /** user id (as text) -> name: every assignee seen in this tab (the API has no list of users). */
  users: new Map<string, string>(),
  /** job id -> the message of its last refused move. */
  cardErrors: new Map<string, string>(),
  /** The ids of the jobs being written. */
  saving: new Set<string>(),
  /** The ids of the jobs changed by an event or a write since the board was last read. */
  touched: new Set<string>(),
  /** Whether more jobs start this day than the board read. */
  hasMore: false,
  /** Bumped when the day or the key changes: the answers of an older one are dropped. */
  generation: 0,
};

/** The day shown (a day is always open once the board is). */
export function currentDay(): string {
  if (!board.day) throw new Error('No day is open.');
  return board.day;
}

function versionOf(job: BoardJob): Version {
  const m = /^W\/"(\d+)-(\d+)"$/.exec(job.etag || '');
  return [Date.parse(job.updatedAt) || 0, m ? Number(m[2]) : 0];
}

function older(a: Version, b: Version): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

function scheduled(job: BoardJob): job is ScheduledJob {
  return Boolean(job.scheduledStart);
}

function inDay(job: ScheduledJob): boolean {
  if (!board.day) return false;
  const w = windowOf(board.day);
  const start = new Date(job.scheduledStart).getTime();
  return start >= w.from.getTime() && start < w.to.getTime();
}

/** Takes a job state in unless a newer one was seen; returns whether it was taken. */
export function take(job: BoardJob, options?: { fromBoard: boolean }): boolean {
  const version = versionOf(job);
  const known = board.seen.get(job.id);
  if (known && older(version, known)) return false;
  board.seen.set(job.id, version);
  if (!options?.fromBoard) board.touched.add(job.id);
  for (const user of job.assignees?.nodes ?? []) board.users.set(String(user.id), user.name);
  if (scheduled(job) && inDay(job)) board.jobs.set(job.id, job);
  else board.jobs.delete(job.id);
  return true;
}

/** A job that was deleted (or is no longer readable): no older state of it is taken again. */
export function drop(id: string): void {
  board.seen.set(id, [Infinity, Infinity]);
  board.touched.add(id);
  board.jobs.delete(id);
}

/** The assignments of a job shown (none for Unassigned). */
export function assignmentsOf(job: BoardJob): Assignment[] {
  return job.assignments?.nodes ?? [];
}
