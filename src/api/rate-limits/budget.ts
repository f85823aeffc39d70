import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export type Usage = {
  allowed: boolean;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
  /** This count is the first over the limit in its window (counted once across every api process sharing the store). */
  firstOver: boolean;
};

/** One budget (an API key's, a workspace's, a client address's failures): `limit` counts per window of `windowSeconds`. */
export class Budget {
  readonly #limiter: RateLimiterAbstract;
  readonly limit: number;
  readonly windowSeconds: number;

  constructor(limiter: RateLimiterAbstract) {
    this.#limiter = limiter;
    this.limit = limiter.points;
    this.windowSeconds = limiter.duration;
  }

  /** Counts one more for `name`; allowed while the count is within the limit. One upsert in the store. */
  async take(name: string): Promise<Usage> {
    try {
      return this.#usage(true, await this.#limiter.consume(name));
    } catch (refusal) {
      // The library refuses with the count it reached; anything else is a failure of the store its fallback could
      // not absorb either, and is the request's error.
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      return this.#usage(false, refusal);
    }
  }

  #usage(allowed: boolean, counted: RateLimiterRes): Usage {
    return {
      allowed,
      limit: this.limit,
      windowSeconds: this.windowSeconds,
      remaining: counted.remainingPoints,
      resetSeconds: Math.max(1, Math.ceil(counted.msBeforeNext / 1000)),
      firstOver: counted.consumedPoints === this.limit + 1,
    };
  }
}
