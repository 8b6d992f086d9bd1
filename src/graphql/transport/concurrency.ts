import { E_TIMEOUT, Semaphore, withTimeout } from 'async-mutex';
import { AppError } from '../../kernel/errors.ts';

// Step 2b of the limits (docs/graphql-limits.md): how many expensive operations run at once. The points buckets
// bound what a key spends in a minute, not how much of the machine it holds at one moment: ten dispatch boards or
// introspection dumps sent together by one key would all run at once, and every other caller's `{ me }` would
// wait behind them. An operation whose cost reaches `threshold` (it is admitted and charged first) takes a slot of
// its key and a slot of the process; one that cannot have both within `waitMs` is refused with 429
// rate_limit.exceeded and a Retry-After, never queued for ever. Cheap operations never wait. The slots are this
// process's: behind a load balancer each process bounds its own (docs/decisions.md).

export interface ConcurrencyLimits {
  /** The cost (points) from which an operation is expensive. */
  threshold: number;
  /** Expensive operations of one key running at once in this process. */
  perKey: number;
  /** Expensive operations running at once in this process, all keys together. */
  perProcess: number;
  /** How long an expensive operation may wait for its slots. */
  waitMs: number;
}

interface KeySlots {
  semaphore: Semaphore;
  /** Operations holding or waiting for a slot of this key: the entry is dropped at 0, so the map stays small. */
  users: number;
}

export class ExpensiveOperations {
  private readonly process: Semaphore;
  private readonly keys = new Map<string, KeySlots>();

  constructor(readonly limits: ConcurrencyLimits) {
    this.process = new Semaphore(limits.perProcess);
  }

  isExpensive(cost: number): boolean {
    return cost >= this.limits.threshold;
  }

  /** Takes a slot of the key and one of the process; answers the function that gives them back (call it once). */
  async enter(keyId: string): Promise<() => void> {
    const deadline = Date.now() + this.limits.waitMs;
    const slots = this.keys.get(keyId) ?? { semaphore: new Semaphore(this.limits.perKey), users: 0 };
    this.keys.set(keyId, slots);
    slots.users += 1;
    const leaveKey = () => {
      slots.users -= 1;
      if (slots.users === 0 && this.keys.get(keyId) === slots) this.keys.delete(keyId);
    };
    let releaseKey: (() => void) | undefined;
    try {
      [, releaseKey] = await withTimeout(slots.semaphore, Math.max(1, deadline - Date.now())).acquire();
      const [, releaseProcess] = await withTimeout(this.process, Math.max(1, deadline - Date.now())).acquire();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        releaseProcess();
        releaseKey!();
        leaveKey();
      };
    } catch (error) {
      releaseKey?.();
      leaveKey();
      if (error !== E_TIMEOUT) throw error;
      const seconds = Math.max(1, Math.ceil(this.limits.waitMs / 1000));
      throw new AppError(
        'rate_limit.exceeded',
        `Too many expensive operations (${this.limits.threshold} points or more) are running: at most ${this.limits.perKey} of one key and ${this.limits.perProcess} in all at once; this one waited ${this.limits.waitMs} ms.`,
        {},
        { 'Retry-After': String(seconds + Math.floor(Math.random() * 2)) },
      );
    }
  }
}
