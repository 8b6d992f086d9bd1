import type { Clock } from '../../src/kernel/clock.ts';

/** A clock that can be pinned to a moment (to make equal timestamps on purpose) and released again. */
export class ManualClock implements Clock {
  private pinned: number | null = null;

  now(): Date {
    return new Date(this.pinned ?? Date.now());
  }

  pin(at: Date | string): void {
    this.pinned = new Date(at).getTime();
  }

  release(): void {
    this.pinned = null;
  }
}
