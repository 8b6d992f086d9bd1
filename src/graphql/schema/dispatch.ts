import { requestContext, type Builder } from './builder.ts';
import { pageCost } from './cost.ts';
import { selectedRead } from './selection.ts';
import type { RecordShape } from './record-type.ts';
import type { ResourceTypes } from './resource-schema.ts';
import { DISPATCH_DEFAULT_LIMIT, DISPATCH_MAX_LIMIT } from '../../domain.ts';

// dispatchBoard(from, to, limit): the adapter of domain.dispatchBoard (src/resources/jobs/dispatch-board.service.ts),
// which validates the window and the limit and reads the jobs. This file only maps the arguments and serves
// the jobs as Job objects (read with only the fields the query selects); their relations (customer, site,
// contact, assignees, lines' items and tax rates) go through the operation's loaders, so a board costs the same
// number of statements for 10 jobs or 1,000.

/** Where the board's selection holds its jobs. */
const BOARD_JOBS: readonly (readonly string[])[] = [['jobs']];

interface Board {
  jobs: RecordShape[];
  hasMore: boolean;
}

export function registerDispatchBoard(builder: Builder, job: ResourceTypes): void {
  const DispatchBoard = builder.objectRef<Board>('DispatchBoard').implement({
    description: 'Jobs scheduled in a time window, earliest first.',
    fields: (t) => ({
      // dispatchBoard's limit multiplies this selection (pageCost): each job costs 1 plus its own selection.
      jobs: t.field({ type: [job.record], description: 'The jobs of the window, earliest scheduledStart first.', complexity: { field: 1, multiplier: 1 }, resolve: (board) => board.jobs }),
      hasMore: t.boolean({
        description: 'Whether more jobs start in the window than limit: narrow the window (or start it at the last job shown).',
        resolve: (board) => board.hasMore,
      }),
    }),
  });

  builder.queryField('dispatchBoard', (t) =>
    t.field({
      type: DispatchBoard,
      nullable: true,
      description: `Live jobs whose scheduledStart is in [from, to), by scheduledStart then id, at most limit (default ${DISPATCH_DEFAULT_LIMIT}, max ${DISPATCH_MAX_LIMIT}). Needs jobs:read. Select customer, site, contact, assignees and lineitems on each job: they are batched, so the number of database statements does not grow with the number of jobs.`,
      authScopes: { scope: 'jobs:read' },
      complexity: pageCost(DISPATCH_DEFAULT_LIMIT),
      args: {
        from: t.arg({ type: 'DateTime', required: true, description: 'Start of the window (inclusive).' }),
        to: t.arg({ type: 'DateTime', required: true, description: 'End of the window (exclusive); after from.' }),
        limit: t.arg.int({ description: `1..${DISPATCH_MAX_LIMIT}, default ${DISPATCH_DEFAULT_LIMIT}.` }),
      },
      resolve: async (_root, args, ctx, info) => {
        const board = await ctx.domain.dispatchBoard.board(requestContext(ctx), { from: args.from, to: args.to, limit: args.limit }, selectedRead(job.def, info, BOARD_JOBS));
        return { jobs: board.jobs, hasMore: board.hasMore };
      },
    }),
  );
}
