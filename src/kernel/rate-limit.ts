import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { AppError } from './errors.ts';

// Per-key buckets (per source IP when unauthenticated): REST read on GET/HEAD, write on POST/PATCH/PUT/DELETE,
// webhook_ingest for webhook management; `graphql` is a bucket of points, from which a GraphQL request takes
// the cost of its operation (src/graphql/transport/limits.ts), while each of its mutation fields also takes one write.
// Memory store on one process, Redis when REDIS_URL is set, with the memory store as insurance if Redis fails.

export type Bucket = 'read' | 'write' | 'webhook_ingest' | 'graphql';
export const defaultBucketLimits: Record<Bucket, number> = { read: 1000, write: 300, webhook_ingest: 60, graphql: 100_000 };
export const WINDOW_SECONDS = 60;

export interface RateDecision {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** Told the bucket of every refused request (the /metrics refusal counter, src/ops/metrics.ts). */
export type RefusalListener = (bucket: Bucket) => void;

export class RateLimits {
  private readonly limiters: Record<Bucket, RateLimiterAbstract>;
  private refusalListeners: readonly RefusalListener[] = [];

  constructor(
    private readonly limits: Record<Bucket, number> = defaultBucketLimits,
    redis?: Redis,
  ) {
    const make = (bucket: Bucket): RateLimiterAbstract => {
      const options = { points: limits[bucket], duration: WINDOW_SECONDS, keyPrefix: `fl_rl_${bucket}` };
      if (!redis) return new RateLimiterMemory(options);
      return new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) });
    };
    this.limiters = { read: make('read'), write: make('write'), webhook_ingest: make('webhook_ingest'), graphql: make('graphql') };
  }

  /**
   * Calls `listener` once for each request a bucket refuses (every rate_limit.exceeded consume() throws: REST,
   * GraphQL over HTTP and WebSocket, GraphQL's cost and write charges). Returns the function that stops it.
   */
  onRefusal(listener: RefusalListener): () => void {
    this.refusalListeners = [...this.refusalListeners, listener];
    return () => {
      this.refusalListeners = this.refusalListeners.filter((registered) => registered !== listener);
    };
  }

  /** Gives back points taken for something that was then refused as a whole. */
  async refund(bucket: Bucket, subject: string, points: number): Promise<void> {
    await this.limiters[bucket].reward(subject, points).catch(() => {});
  }

  /**
   * Takes `points` (one request by default) from the bucket. Returns the header values; throws rate_limit.exceeded
   * with them. Points that do not fit are not taken, so a refused request costs nothing.
   */
  async consume(bucket: Bucket, subject: string, points = 1): Promise<RateDecision> {
    const limit = this.limits[bucket];
    try {
      const res = await this.limiters[bucket].consume(subject, points);
      return { limit, remaining: res.remainingPoints, resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      for (const listener of this.refusalListeners) listener(bucket);
      const resetSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      // Jitter spreads the retries of many clients over a few seconds after the window resets.
      const retryAfter = resetSeconds + Math.floor(Math.random() * Math.max(2, Math.ceil(resetSeconds / 10)));
      const what = bucket === 'graphql' ? `${limit} points per minute (this request needs ${points})` : `${limit} requests per minute`;
      const error = new AppError('rate_limit.exceeded', `The ${bucket} bucket allows ${what}.`, {}, { 'Retry-After': String(retryAfter) });
      // The points a refused request would have taken stay available (rate-limiter-flexible counted them).
      await this.refund(bucket, subject, points);
      (error as AppError & { decision: RateDecision }).decision = { limit, remaining: Math.max(0, limit - rejection.consumedPoints + points), resetSeconds };
      throw error;
    }
  }
}

export function bucketOf(method: string): Bucket {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'read' : 'write';
}
