import type { RequestHandler } from 'express';
import { AppError } from '../../errors/app-error.ts';
import { callerOf } from '../caller-of.ts';

/**
 * Fixed-window request counting per API key, in this process's memory. With several api processes behind a load
 * balancer each one counts on its own; put a shared limiter in front for a global limit.
 */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly limit: number;
  readonly windowMs: number;

  constructor(limit: number, windowSeconds: number) {
    this.limit = limit;
    this.windowMs = windowSeconds * 1000;
  }

  take(key: string, now = Date.now()): { allowed: boolean; remaining: number; resetSeconds: number } {
    let window = this.#windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      if (!window) this.#forgetExpired(now);
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    window.count += 1;
    return {
      allowed: window.count <= this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.ceil((window.start + this.windowMs - now) / 1000),
    };
  }

  #forgetExpired(now: number): void {
    if (this.#windows.size < 10_000) return;
    for (const [key, window] of this.#windows) if (now - window.start >= this.windowMs) this.#windows.delete(key);
  }
}

export function rateLimit(limiter: RateLimiter): RequestHandler {
  return (_req, res, next) => {
    const { allowed, remaining, resetSeconds } = limiter.take(callerOf(res).apiKeyId);
    res.set({
      'RateLimit-Limit': String(limiter.limit),
      'RateLimit-Remaining': String(remaining),
      'RateLimit-Reset': String(resetSeconds),
    });
    if (allowed) return next();
    next(
      new AppError(
        'rate-limited',
        `The rate limit of ${limiter.limit} requests per ${limiter.windowMs / 1000} seconds is used up; retry in ${resetSeconds} s.`,
        { retryAfterSeconds: resetSeconds },
      ),
    );
  };
}
