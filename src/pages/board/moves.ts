import { at, windowOf } from './dates.ts';
import { showBanner } from './dom.ts';
import { KeyRefused, messageOf } from './errors.ts';
import { graphql } from './http.ts';
import { keyRefused } from './key.ts';
import { MAX_ASSIGNEES, UPDATE_JOB } from './operations.ts';
import { refreshJob } from './reads.ts';
import { render } from './render.ts';
import { assignmentsOf, board, currentDay, take } from './store.ts';
import type { AssignmentInput, BoardJob, MoveInput, ScheduledJob } from './types.ts';

// Moving a job (a drop, or the Move… dialog): updateJob with the card's etag as ifMatch. userErrors are shown on
// the card and in the banner, and the card is read again.

/** The job's assignments once moved from one column to another: the other assignees of the job stay. */
function assignmentsAfterMove(job: BoardJob, fromUserId: string, toUserId: string): AssignmentInput[] {
  const current = assignmentsOf(job);
  const kept: AssignmentInput[] = current.filter((a) => String(a.userId) !== fromUserId).map((a) => ({ id: a.id, userId: a.userId }));
  const already = current.some((a) => String(a.userId) === toUserId);
  if (toUserId !== '' && !already) kept.push({ userId: Number(toUserId) });
  return kept;
}

/** The start a drop onto an hour row gives: that hour of the day, the minutes of the job's start kept. */
export function startAtHour(job: ScheduledJob, hour: number): Date {
  return at(windowOf(currentDay()).from, hour, new Date(job.scheduledStart).getMinutes());
}

/**
 * Moves a job from the column of fromUserId: to another column (toUserId: a user id, '' for Unassigned; null
 * for the same) and/or to another start (the length of the visit is kept).
 */
export async function move(jobId: string, fromUserId: string, toUserId: string | null, start: Date | null): Promise<void> {
  const job = board.jobs.get(jobId);
  if (!job || board.saving.has(jobId)) return;
  const input: MoveInput = {};
  if (toUserId !== null && toUserId !== fromUserId) {
    if (job.assignments?.pageInfo?.hasNextPage) {
      showBanner('Job ' + job.number + ' has more than ' + MAX_ASSIGNEES + ' technicians: change its assignments in the API instead.');
      return;
    }
    input.assignments = assignmentsAfterMove(job, fromUserId, toUserId);
  }
  if (start && job.scheduledStart && start.getTime() !== new Date(job.scheduledStart).getTime()) {
    input.scheduledStart = start.toISOString();
    if (job.scheduledEnd) {
      const length = new Date(job.scheduledEnd).getTime() - new Date(job.scheduledStart).getTime();
      input.scheduledEnd = new Date(start.getTime() + length).toISOString();
    }
  }
  if (!Object.keys(input).length) return;
  const mine = board.generation;
  board.cardErrors.delete(jobId);
  board.saving.add(jobId);
  render();
  try {
    const result = await graphql(UPDATE_JOB, { id: jobId, ifMatch: job.etag, input });
    if (mine !== board.generation) return;
    const payload = result.data?.updateJob;
    if (!payload) throw new Error(messageOf(result.errors) || 'The job could not be changed.');
    board.saving.delete(jobId);
    if (payload.userErrors && payload.userErrors.length) {
      const message = payload.userErrors.map((e) => e.message).join(' ');
      const stale = payload.userErrors.some((e) => e.code === 'precondition.failed');
      const text = stale ? 'Someone else changed this job first; it now shows as it is. ' + message : message;
      board.cardErrors.set(jobId, text);
      showBanner('Job ' + job.number + ' was not moved: ' + text);
      await refreshJob(jobId);
      return;
    }
    const written = payload.job;
    if (!written) throw new Error('The job could not be changed.');
    if (payload.etag) written.etag = payload.etag;
    take(written);
    render();
  } catch (error) {
    board.saving.delete(jobId);
    if (error instanceof KeyRefused) return keyRefused(error.message);
    board.cardErrors.set(jobId, messageOf(error));
    showBanner('Job ' + job.number + ' was not moved: ' + messageOf(error));
    render();
  }
}
