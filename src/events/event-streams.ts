import { topicReadScopes } from '../kernel/topics.ts';
import type { Authenticator } from '../kernel/auth.ts';
import type { RequestContext } from '../kernel/context.ts';
import { runAsTenant } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import { requireScope } from '../kernel/auth.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { TenantClient } from '../kernel/tenancy.ts';
import { checkTopics } from '../resources/webhooks/topic-rules.ts';
import { TailedEvent, type EventSource } from './tail.ts';
import { topicCatalog, topics } from './topics.ts';
import { topicAvailable, unavailableReason } from '../kernel/topics.ts';

// Live event streams (GraphQL subscriptions): the events of chosen topics of the caller's account, committed from
// now on, from the process's outbox tail (src/events/tail.ts), optionally after replaying what followed a seq the
// client saw last (afterSeq), so a client that reconnects misses nothing. Rules (docs/subscriptions.md):
//   - topics are checked as a webhook endpoint's are (checkTopics: no_topics, unknown, not_available, scope);
//   - afterSeq replays at most MAX_REPLAY events, then goes live; more missed than that, or a client that falls
//     MAX_BUFFERED events behind, ends the stream with subscription.resync_required (re-read the state, then
//     subscribe again);
//   - every stream's key is re-read every KEY_CHECK_MS, so a revoked key's streams end within that interval.

export const MAX_REPLAY = 1_000;
const MAX_BUFFERED = 1_000;
export const KEY_CHECK_MS = 2_000;

/** An item of a stream: an event, or the refusal that ends the stream (served as the last result's error). */
export type StreamItem = { event: TailedEvent } | { refusal: Error };

/** What a typed subscription filters on (<resource>Events(filter)); see matchesRecordFilter. */
export interface RecordEventFilter {
  ids?: readonly string[];
  statuses?: readonly string[];
  from?: Date;
  to?: Date;
  /** Ids of the declared member collection (a job's assignees). */
  members?: readonly string[];
}

interface OpenStream {
  keyId: string;
  end(refusal: AppError): void;
}

export class EventStreams {
  /** The process's outbox tail; set when the app listens (null: subscriptions are not served by this process). */
  source: EventSource | null = null;
  private readonly open = new Set<OpenStream>();
  private keyCheck: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: TenantClient,
    private readonly authenticator: Authenticator,
  ) {}

  /** The events of `topics` (GraphQL `events`): checked as a webhook endpoint's topics are. */
  ofTopics(ctx: RequestContext, sent: readonly string[], afterSeq: number | null | undefined): AsyncIterable<StreamItem> {
    const names = checkTopics(ctx, sent, topicCatalog);
    return this.stream(ctx, names, afterSeq, () => true);
  }

  /** The events of one resource's records (GraphQL `<resource>Events`), narrowed by `filter`. */
  ofResource(ctx: RequestContext, def: ResourceDefinition, filter: RecordEventFilter, afterSeq: number | null | undefined): AsyncIterable<StreamItem> {
    const own = topics().filter((topic) => topic.recordName === def.name);
    // Every read scope the records need: the resource's, or a nested resource's parents' (kernel/topics.ts).
    for (const scope of new Set(own.flatMap(topicReadScopes))) requireScope(ctx.principal, scope);
    const unavailable = own.find((topic) => !topicAvailable(topic, ctx.principal.account.modules));
    if (unavailable) throw new AppError('topic.not_available', unavailableReason(unavailable), { topics: own.map((topic) => topic.name) });
    if (filter.from && filter.to && filter.to <= filter.from) throw new AppError('validation.failed', 'filter.to must be after filter.from', { errors: { 'filter.to': ['must be after filter.from'] } });
    return this.stream(ctx, own.map((topic) => topic.name), afterSeq, (event) => matchesRecordFilter(def, filter, event));
  }

  private stream(ctx: RequestContext, names: string[], afterSeq: number | null | undefined, matches: (event: TailedEvent) => boolean): AsyncIterable<StreamItem> {
    const source = this.source;
    if (!source) throw new AppError('internal.error', 'Subscriptions are not served by this process.');
    if (afterSeq !== null && afterSeq !== undefined && (!Number.isSafeInteger(afterSeq) || afterSeq < 0)) {
      throw new AppError('validation.failed', 'afterSeq must be a seq the server served (a non-negative integer)', { errors: { afterSeq: ['must be a non-negative integer'] } });
    }
    const wanted = new Set(names);
    const accept = (event: TailedEvent) => wanted.has(event.topic) && matches(event);
    let unsubscribe = () => {};
    const entry: OpenStream = { keyId: ctx.principal.key.id, end: (refusal) => live.end(refusal) };
    const live = new LiveStream(() => {
      this.open.delete(entry);
      unsubscribe();
    });
    // Live events are taken from the moment of subscribing; while the replay is read they wait in `pending`, and an
    // event both replayed and tailed is served once (by seq).
    let last = afterSeq === null || afterSeq === undefined ? -1n : BigInt(afterSeq);
    let pending: TailedEvent[] | null = afterSeq === null || afterSeq === undefined ? null : [];
    const serve = (event: TailedEvent) => {
      if (event.seq <= last) return;
      last = event.seq;
      if (!live.offer({ event })) {
        live.end(new AppError('subscription.resync_required', `The subscriber fell more than ${MAX_BUFFERED} events behind; read the current state, then subscribe again (afterSeq: ${last - 1n}).`));
      }
    };
    unsubscribe = source.subscribe(ctx.principal.accountId, (event) => {
      if (!accept(event)) return;
      if (pending) pending.push(event);
      else serve(event);
    });
    this.open.add(entry);
    if (pending) {
      const replayed = pending;
      this.missed(ctx, names, last).then(
        (missed) => {
          if (missed.length > MAX_REPLAY) {
            live.end(new AppError('subscription.resync_required', `More than ${MAX_REPLAY} events followed afterSeq ${last}; read the current state, then subscribe again without afterSeq.`));
            return;
          }
          pending = null;
          for (const event of missed) if (accept(event)) serve(event);
          for (const event of replayed) serve(event);
        },
        (error: unknown) => live.end(error instanceof Error ? error : new Error(String(error))),
      );
    }
    return live;
  }

  /** The account's events of these topics after `seq`, in seq order, at most MAX_REPLAY + 1 (one more says "too many"). */
  private async missed(ctx: RequestContext, names: string[], seq: bigint): Promise<TailedEvent[]> {
    // Awaited inside: a Prisma query runs when awaited, and must run in the tenant's context.
    const rows = await runAsTenant(ctx.principal.accountId, async () =>
      await this.db.event.findMany({
        where: { seq: { gt: seq }, topic: { in: names } },
        orderBy: { seq: 'asc' },
        take: MAX_REPLAY + 1,
        select: { seq: true, id: true, account_id: true, topic: true, record_id: true, payload: true, details: true, etag: true, created_at: true },
      }),
    );
    return rows.map((row) => new TailedEvent(row));
  }

  /** Starts re-reading the keys of open streams every KEY_CHECK_MS (the app does, while it listens). */
  startKeyChecks(): void {
    this.keyCheck ??= setInterval(() => void this.checkKeys(), KEY_CHECK_MS).unref();
  }

  /** Ends the streams of keys that may no longer be used (revoked, expired, account or user deactivated). */
  async checkKeys(): Promise<void> {
    if (this.open.size === 0) return;
    try {
      const refusals = await this.authenticator.refusals([...new Set([...this.open].map((entry) => entry.keyId))]);
      for (const entry of [...this.open]) {
        const refusal = refusals.get(entry.keyId);
        if (refusal) entry.end(refusal);
      }
    } catch {
      // The next check retries; a database that cannot be read ends nothing.
    }
  }

  stop(): void {
    clearInterval(this.keyCheck);
    this.keyCheck = undefined;
    for (const entry of [...this.open]) entry.end(new AppError('internal.error', 'The server is shutting down.'));
  }
}

/**
 * One subscription's stream: the items its consumer has not taken yet (at most MAX_BUFFERED; `offer` answers false
 * beyond), handed over as it asks for them. A plain object with one queue and at most one waiting consumer, rather
 * than a generator library's layers: a process holds one per open subscription (10,000 in the events bench).
 * `end` serves its refusal after what is queued, then completes; `return` (the client completed) drops what is
 * queued. Either releases the stream's source once.
 */
class LiveStream implements AsyncIterableIterator<StreamItem> {
  private readonly queue: StreamItem[] = [];
  private waiting: ((result: IteratorResult<StreamItem, undefined>) => void) | null = null;
  private finished = false;

  constructor(private release: (() => void) | null) {}

  /** Queues an item, or hands it to the waiting consumer; false when MAX_BUFFERED items are already waiting. */
  offer(item: StreamItem): boolean {
    if (this.finished) return true;
    if (this.waiting) this.hand(item);
    else if (this.queue.length >= MAX_BUFFERED) return false;
    else this.queue.push(item);
    return true;
  }

  /** Ends the stream: its refusal (if any) is served after the queued items, then it completes. */
  end(refusal?: Error): void {
    if (this.finished) return;
    this.finished = true;
    this.free();
    if (!refusal) return this.settle();
    if (this.waiting) this.hand({ refusal });
    else this.queue.push({ refusal });
  }

  next(): Promise<IteratorResult<StreamItem, undefined>> {
    const item = this.queue.shift();
    if (item) return Promise.resolve({ value: item, done: false });
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<StreamItem, undefined>> {
    this.queue.length = 0;
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private hand(item: StreamItem): void {
    const resolve = this.waiting!;
    this.waiting = null;
    resolve({ value: item, done: false });
  }

  /** A consumer waiting on a finished stream with nothing queued learns it is done. */
  private settle(): void {
    if (!this.waiting || this.queue.length) return;
    const resolve = this.waiting;
    this.waiting = null;
    resolve({ value: undefined, done: true });
  }

  private free(): void {
    const release = this.release;
    this.release = null;
    release?.();
  }
}

/**
 * Whether a record's event passes a typed subscription's filter. A filtered field the event changed always passes
 * (its `changed_fields` names it), so a record that leaves the filter is reported too: a board showing one day
 * hears of the job moved to the next and drops its card. A deletion is matched on the record as it was.
 */
export function matchesRecordFilter(def: ResourceDefinition, filter: RecordEventFilter, event: TailedEvent): boolean {
  const record = event.row.payload as Record<string, unknown>;
  const details = (event.row.details ?? {}) as { changed_fields?: string[]; previous_status?: string };
  const changed = new Set(details.changed_fields ?? []);
  if (filter.ids && !filter.ids.includes(event.row.record_id)) return false;
  if (filter.statuses && !changed.has('status') && !filter.statuses.includes(record.status as string)) return false;
  const window = def.events?.subscriptionFilters?.window;
  if (window && (filter.from || filter.to) && !changed.has(window)) {
    const value = typeof record[window] === 'string' ? new Date(record[window] as string) : null;
    if (!value || (filter.from && value < filter.from) || (filter.to && value >= filter.to)) return false;
  }
  const members = def.events?.subscriptionFilters?.members;
  if (members && filter.members && !changed.has(members.collection)) {
    const entries = Array.isArray(record[members.collection]) ? (record[members.collection] as Record<string, unknown>[]) : [];
    if (!entries.some((entry) => filter.members!.includes(String(entry[members.key])))) return false;
  }
  return true;
}
