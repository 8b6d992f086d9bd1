import type { RequestContext } from '../../kernel/context.ts';
import { parseTimestamp } from '../../kernel/dates.ts';
import { AppError, validationError } from '../../kernel/errors.ts';
import type { ReadOptions, ResourceService, Single } from '../../kernel/resource-service.ts';

// The dispatch board: the live jobs whose scheduled_start is in [from, to), earliest first (ties by id), at most
// `limit` of them, for a board that shows each with its customer, site, contact, assignees and lines.
//
// The window matches on scheduled_start only (a job that started before `from` and is still running is not on
// the board; a job without scheduled_start never is): the board answers "which visits start in this window",
// which one index serves (jobs (account_id, scheduled_start, id)).
//
// It is the jobs list (GET /jobs?scheduled_start[gte]=from&scheduled_start[lt]=to&sort=scheduled_start) with a
// limit of up to 1,000 instead of 100: one keyset statement for the window, then the jobs' own children
// (lineitems, assignments) in one statement per collection, so a job here has the wire shape of GET
// /jobs/{id}. The adapters batch the relations they add, so a board costs the same number of statements for
// 10 jobs or 1,000.

export const DISPATCH_DEFAULT_LIMIT = 500;
export const DISPATCH_MAX_LIMIT = 1000;

export interface DispatchWindow {
  /** Start of the window (inclusive), an ISO 8601 timestamp with offset (or a date: midnight UTC). */
  from: string;
  /** End of the window (exclusive), after from. */
  to: string;
  /** 1..DISPATCH_MAX_LIMIT, default DISPATCH_DEFAULT_LIMIT. */
  limit?: number | null;
}

export interface DispatchBoard {
  jobs: Single[];
  /** More jobs start in the window than limit. */
  hasMore: boolean;
}

function instant(name: string, value: string): Date {
  const date = parseTimestamp(value);
  if (!date) throw validationError({ [name]: ['is not an ISO 8601 timestamp'] });
  return date;
}

export class DispatchBoardService {
  constructor(private readonly jobs: ResourceService) {}

  /** `read`: what each job serves (all its fields when omitted). */
  async board(ctx: RequestContext, window: DispatchWindow, read: ReadOptions = {}): Promise<DispatchBoard> {
    const from = instant('from', window.from);
    const to = instant('to', window.to);
    if (to.getTime() <= from.getTime()) throw validationError({ to: ['must be after from'] });
    const limit = window.limit ?? DISPATCH_DEFAULT_LIMIT;
    if (limit > DISPATCH_MAX_LIMIT) {
      throw new AppError('pagination.limit_too_large', `limit must be at most ${DISPATCH_MAX_LIMIT}`, { max_limit: DISPATCH_MAX_LIMIT });
    }
    if (!Number.isInteger(limit) || limit < 1) throw validationError({ limit: [`must be between 1 and ${DISPATCH_MAX_LIMIT}`] });
    // The jobs list itself (same SQL, keyset order, serialization and child loading as GET /jobs), with the
    // board's larger bound on limit.
    const page = await this.jobs.list(
      ctx,
      {
        filters: [
          { field: 'scheduled_start', op: 'gte', value: from.toISOString() },
          { field: 'scheduled_start', op: 'lt', value: to.toISOString() },
        ],
        sort: 'scheduled_start',
        limit,
      },
      { ...read, maxLimit: DISPATCH_MAX_LIMIT },
    );
    return { jobs: page.data, hasMore: page.hasMore };
  }
}
