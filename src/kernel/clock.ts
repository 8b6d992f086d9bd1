/** The time source of the domain; tests replace it to move time (cursor expiry, key expiry). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
