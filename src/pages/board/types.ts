// What the board reads and writes over GraphQL (the operations of operations.ts), typed as schema.graphql
// declares it. Where the page guards against a field it has not got (an event without its job, say), it does so
// because a partial answer (data beside errors) can leave it out.

/** A technician assigned to a job (Job.assignees: User). */
export interface Assignee {
  id: number;
  name: string;
}

/** One assignment of a job (Job.assignments: JobAssignment): its own id and its user's. */
export interface Assignment {
  id: string;
  userId: number;
}

/** A job as the board shows it: the fields of the BoardJob fragment. */
export interface BoardJob {
  id: string;
  number: string;
  title: string | null;
  status: string;
  scopeOfWork: string | null;
  workDescription: string | null;
  etag: string;
  updatedAt: string;
  scheduledStart: string | null;
  scheduledEnd: string | null;
  customer: { id: string; organization: string } | null;
  site: { id: string; siteName: string; city: string } | null;
  assignees: { nodes: Assignee[] };
  assignments: { pageInfo: { hasNextPage: boolean }; nodes: Assignment[] };
}

/** A job with a start: the only kind the board has a row for. */
export type ScheduledJob = BoardJob & { scheduledStart: string };

/** An error of a GraphQL answer (HTTP or WebSocket); extensions.code is the server's error code. */
export interface GraphQLError {
  readonly message: string;
  readonly extensions?: { readonly code?: unknown };
}

/**
 * The body of an answer of POST /graphql: a GraphQL result, or a problem document (code, detail) when the
 * request was refused before GraphQL ran.
 */
export interface GraphQLResponse<Data> {
  data?: Data | null;
  errors?: GraphQLError[];
  code?: string;
  detail?: string;
}

/** A new assignment has no id; a kept one keeps its own. */
export interface AssignmentInput {
  id?: string;
  userId: number;
}

/** The fields of UpdateJobInput that a move writes. */
export interface MoveInput {
  assignments?: AssignmentInput[];
  scheduledStart?: string;
  scheduledEnd?: string;
}

export interface UserError {
  code: string;
  message: string;
  field: string[] | null;
}

/** updateJob's answer (JobPayload). */
export interface JobPayload {
  etag: string | null;
  job: BoardJob | null;
  userErrors: UserError[];
}

export type JobEventTopic = 'JOB_CREATED' | 'JOB_UPDATED' | 'JOB_STATUS_CHANGED' | 'JOB_DELETED';

/** One event of the jobEvents subscription. */
export interface JobEvent {
  seq: number;
  id: string;
  topic: JobEventTopic;
  etag: string | null;
  job: BoardJob;
}
