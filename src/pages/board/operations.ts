import type { BoardJob, JobEvent, JobPayload, MoveInput } from './types.ts';

// The GraphQL operations of the board, each with the types of its variables and of its data. With
// GRAPHQL_PERSISTED_OPERATIONS in allowlist mode these texts must be in the manifest (docs/board.md).

export const GRAPHQL_PATH = '/graphql';
/** The most jobs one board read asks for; the summary says when a day has more. */
export const BOARD_LIMIT = 200;
/**
 * The assignments read per job. A move rewrites the whole list (the API takes it as a snapshot), so a job with
 * more than this is not moved from the board (it says so) rather than losing the assignments it did not read.
 */
export const MAX_ASSIGNEES = 10;

/** An operation's text; `types` is never set, it only carries the types of its variables and data. */
export interface Operation<Variables, Data> {
  readonly query: string;
  readonly types?: { variables: Variables; data: Data };
}

export type VariablesOf<O> = O extends Operation<infer Variables, unknown> ? Variables : never;
export type DataOf<O> = O extends Operation<unknown, infer Data> ? Data : never;

/** A local day as GraphQL DateTimes: [from, to). */
export interface DayRange {
  from: string;
  to: string;
}

const CARD_FIELDS =
  'fragment BoardJob on Job { id number title status scopeOfWork workDescription etag updatedAt scheduledStart scheduledEnd ' +
  'customer { id organization } site { id siteName city } ' +
  'assignees(first: ' + MAX_ASSIGNEES + ') { nodes { id name } } assignments(first: ' + MAX_ASSIGNEES + ') { pageInfo { hasNextPage } nodes { id userId } } }';

export const BOARD_QUERY: Operation<DayRange & { limit: number }, { dispatchBoard: { hasMore: boolean; jobs: BoardJob[] } | null }> = {
  query:
    'query DispatchBoard($from: DateTime!, $to: DateTime!, $limit: Int) { dispatchBoard(from: $from, to: $to, limit: $limit) { hasMore jobs { ...BoardJob } } } ' +
    CARD_FIELDS,
};

export const JOB_QUERY: Operation<{ id: string }, { job: BoardJob | null }> = {
  query: 'query BoardJob($id: ID!) { job(id: $id) { ...BoardJob } } ' + CARD_FIELDS,
};

export const UPDATE_JOB: Operation<{ id: string; ifMatch: string; input: MoveInput }, { updateJob: JobPayload | null }> = {
  query:
    'mutation BoardMove($id: ID!, $ifMatch: String, $input: UpdateJobInput!) { updateJob(id: $id, ifMatch: $ifMatch, input: $input) { etag job { ...BoardJob } userErrors { code message field } } } ' +
    CARD_FIELDS,
};

export const JOB_EVENTS: Operation<{ filter: DayRange; afterSeq?: number }, { jobEvents: JobEvent }> = {
  query:
    'subscription BoardEvents($filter: JobEventFilter, $afterSeq: SafeInt) { jobEvents(filter: $filter, afterSeq: $afterSeq) { seq id topic etag job { ...BoardJob } } } ' +
    CARD_FIELDS,
};
