import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { eventsAfter, latestSeq, type TailRow } from '../db/outbox.ts';
import { CatchUp } from './catch-up.ts';
import { envelopeOf, type EventEnvelope } from '../kernel/envelope.ts';

// The subscription tail: each process reads the outbox once, in commit order, and hands every event to the live
// subscriptions of its account in this process (src/events/event-streams.ts). Woken by the outbox's NOTIFY
// (Database.listen, which also fires after every (re)connection so nothing missed while disconnected is
// skipped) with a poll as a backstop; it resumes after the last seq it read, and events are numbered at commit
// (the events_webhooks migration), so no event can appear behind it later. An event is read once per process,
// whatever the number of subscribers, and its envelope is built once per API version it is served in.

const BATCH = 500;
const POLL_MS = 2_000;

/** One event as every subscription of a process receives it. */
export class TailedEvent {
  private readonly envelopes = new Map<string, EventEnvelope>();

  constructor(readonly row: TailRow) {}

  get seq(): bigint {
    return this.row.seq;
  }

  get topic(): string {
    return this.row.topic;
  }

  /** The webhook body of the event in `apiVersion`, built once per version and shared by every subscriber. */
  envelope(apiVersion: string): EventEnvelope {
    let envelope = this.envelopes.get(apiVersion);
    if (!envelope) this.envelopes.set(apiVersion, (envelope = envelopeOf(this.row, apiVersion)));
    return envelope;
  }
}

export type TailListener = (event: TailedEvent) => void;

/** What event streams need of the tail (a test or a process without a database could stand in). */
export interface EventSource {
  /** Calls `listener` with every event of the account committed from now on, in seq order; answers the unsubscribe. */
  subscribe(accountId: string, listener: TailListener): () => void;
}

export class OutboxTail implements EventSource {
  private readonly listeners = new Map<string, Set<TailListener>>();
  private last: bigint | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private poll: NodeJS.Timeout | undefined;
  private readonly reader: CatchUp;

  constructor(
    private readonly database: Database,
    private readonly logger: Logger,
  ) {
    this.reader = new CatchUp(() => this.readOnce(), BATCH, logger, 'event tail read');
  }

  /** The seq of the last event this process read (null while the tail is stopped): /metrics compares it with the outbox's head. */
  get position(): bigint | null {
    return this.last;
  }

  async start(): Promise<void> {
    this.last = await latestSeq(this.database.prisma);
    this.stopListening = await this.database.listen('fieldline_events', () => this.wake(), () => this.wake());
    this.poll = setInterval(() => this.wake(), POLL_MS).unref();
  }

  subscribe(accountId: string, listener: TailListener): () => void {
    let set = this.listeners.get(accountId);
    if (!set) this.listeners.set(accountId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(accountId) === set) this.listeners.delete(accountId);
    };
  }

  /** Reads what committed since the last read (again after the current read, when one is running). */
  wake(): void {
    if (this.last !== null) this.reader.wake();
  }

  private async readOnce(): Promise<number> {
    if (this.listeners.size === 0) {
      // Nobody listens in this process: skip ahead without reading payloads.
      this.last = await latestSeq(this.database.prisma);
      return 0;
    }
    const rows = await eventsAfter(this.database.prisma, this.last!, BATCH);
    for (const row of rows) {
      this.last = row.seq;
      const listeners = this.listeners.get(row.account_id);
      if (!listeners) continue;
      const event = new TailedEvent(row);
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'event subscriber failed');
        }
      }
    }
    return rows.length;
  }

  async stop(): Promise<void> {
    clearInterval(this.poll);
    await this.stopListening?.();
    this.stopListening = null;
    await this.reader.idle();
    this.last = null;
    this.listeners.clear();
  }
}
