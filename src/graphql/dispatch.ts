import { runAsTenant } from '../kernel/context.ts';
import { AppError, validationError } from '../kernel/errors.ts';
import type { WireRecord } from '../kernel/resource-service.ts';
import type { Builder } from './builder.ts';
import type { RecordShape, ResourceTypes } from './resource-schema.ts';

// dispatchBoard(from, to, limit): the live jobs whose scheduled_start is in [from, to), earliest first (ties by
// id), for a dispatch board that shows each with its customer, site, contact, assignees and lines.
//
// A dedicated read rather than the jobs list (which sorts by created_at and pages by 100): one statement for the
// window, ordered by scheduled_start, through the tenant-scoped client (the caller's account, deleted_at IS
// NULL), then the job's own children (lineitems, assignments) in one statement each, serialized by the job
// service so a job here has the wire shape of GET /jobs/{id}. The relations of the jobs go through the
// operation's loaders, so a board costs the same number of statements for 10 jobs or 1,000 (about 9 with every
// relation above). No business rule lives here: it is a read of a time window.

export const DISPATCH_DEFAULT_LIMIT = 500;
export const DISPATCH_MAX_LIMIT = 1000;

interface Board {
  jobs: RecordShape[];
  hasMore: boolean;
}

function instant(name: string, value: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw validationError({ [name]: ['is not an ISO 8601 timestamp'] });
  return date;
}

export function registerDispatchBoard(builder: Builder, job: ResourceTypes): void {
  const DispatchBoard = builder.objectRef<Board>('DispatchBoard').implement({
    description: 'Jobs scheduled in a time window, earliest first.',
    fields: (t) => ({
      jobs: t.field({ type: [job.record], resolve: (board) => board.jobs }),
      hasMore: t.boolean({
        description: 'true when more jobs start in the window than limit: narrow the window (or start it at the last job shown).',
        resolve: (board) => board.hasMore,
      }),
    }),
  });

  builder.queryField('dispatchBoard', (t) =>
    t.field({
      type: DispatchBoard,
      nullable: true,
      description: `Live jobs whose scheduledStart is in [from, to), by scheduledStart then id, at most limit (default ${DISPATCH_DEFAULT_LIMIT}, max ${DISPATCH_MAX_LIMIT}) (needs jobs:read). Select customer, site, contact, assignees and lineitems on each job: they are batched, so the number of SQL statements does not grow with the number of jobs.`,
      authScopes: { scope: 'jobs:read' },
      args: {
        from: t.arg({ type: 'DateTime', required: true, description: 'Start of the window (inclusive).' }),
        to: t.arg({ type: 'DateTime', required: true, description: 'End of the window (exclusive); after from.' }),
        limit: t.arg.int({ description: `1..${DISPATCH_MAX_LIMIT}, default ${DISPATCH_DEFAULT_LIMIT}.` }),
      },
      resolve: async (_root, args, ctx) => {
        const from = instant('from', args.from);
        const to = instant('to', args.to);
        if (to.getTime() <= from.getTime()) throw validationError({ to: ['must be after from'] });
        const limit = args.limit ?? DISPATCH_DEFAULT_LIMIT;
        if (limit > DISPATCH_MAX_LIMIT) {
          throw new AppError('pagination.limit_too_large', `limit must be at most ${DISPATCH_MAX_LIMIT}`, { max_limit: DISPATCH_MAX_LIMIT });
        }
        if (limit < 1) throw validationError({ limit: [`must be between 1 and ${DISPATCH_MAX_LIMIT}`] });
        const service = ctx.domain.resource(job.def.name);
        const db = ctx.domain.db;
        return runAsTenant(ctx.principal.accountId, async () => {
          const rows = (await db.job.findMany({
            where: { scheduled_start: { gte: from, lt: to }, deleted_at: null },
            orderBy: [{ scheduled_start: 'asc' }, { id: 'asc' }],
            take: limit + 1,
          })) as unknown as (Record<string, unknown> & { id: string })[];
          const page = rows.slice(0, limit);
          const children = await service.loadChildren(db, page.map((row) => row.id));
          const jobs = page.map((row): RecordShape => ({ record: service.serialize(row, children) as WireRecord, etag: null }));
          return { jobs, hasMore: rows.length > limit };
        });
      },
    }),
  );
}
