import type { RequestHandler } from 'express';
import { AppError } from '../../errors/app-error.ts';
import type { Config } from '../../config.ts';
import { rateLimitRefusals, type RateLimitKind } from '../../metrics/api-metrics.ts';
import { callerOf } from '../caller-of.ts';

type Usage = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

/** Fixed-window counts per name (a key, a workspace, a client address), in this process's memory. */
class FixedWindows {
  readonly #windows = new Map<string, { start: number; count: number }>();
  readonly limit: number;
  readonly windowMs: number;

  constructor(limit: number, windowSeconds: number) {
    this.limit = limit;
    this.windowMs = windowSeconds * 1000;
  }

  /** Counts one more for `name`; allowed while the count is within the limit. */
  take(name: string, now = Date.now()): Usage {
    const window = this.#current(name, now);
    window.count += 1;
    return this.#usage(window, window.count <= this.limit, now);
  }

  /** Takes back one count of `name` (one that turned out not to count, e.g. a key that was good after all). */
  giveBack(name: string, now = Date.now()): void {
    const window = this.#current(name, now);
    window.count = Math.max(0, window.count - 1);
  }

  /** Whether one more may still be counted for `name`, without counting it. */
  peek(name: string, now = Date.now()): Usage {
    const window = this.#current(name, now);
    return this.#usage(window, window.count < this.limit, now);
  }

  #current(name: string, now: number): { start: number; count: number } {
    let window = this.#windows.get(name);
    if (!window || now - window.start >= this.windowMs) {
      if (!window) this.#forgetExpired(now);
      window = { start: now, count: 0 };
      this.#windows.set(name, window);
    }
    return window;
  }

  #usage(window: { start: number; count: number }, allowed: boolean, now: number): Usage {
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.ceil((window.start + this.windowMs - now) / 1000),
    };
  }

  #forgetExpired(now: number): void {
    if (this.#windows.size < 10_000) return;
    for (const [name, window] of this.#windows) if (now - window.start >= this.windowMs) this.#windows.delete(name);
  }
}

/**
 * The request limits of the API: per key, per workspace across all its keys (so that minting keys does not multiply
 * the limit), and failed authentications per client address (so that guessing keys costs no database lookups
 * beyond the first few). Counted per api process; with several behind a load balancer each counts on its own.
 */
export class RateLimiter {
  readonly perKey: FixedWindows;
  readonly perWorkspace: FixedWindows;
  readonly authFailures: FixedWindows;

  constructor(settings: Config['rateLimit']) {
    this.perKey = new FixedWindows(settings.requests, settings.windowSeconds);
    this.perWorkspace = new FixedWindows(settings.workspaceRequests, settings.windowSeconds);
    this.authFailures = new FixedWindows(settings.authFailuresPerAddress, settings.windowSeconds);
  }
}

export function rateLimit(limiter: RateLimiter): RequestHandler {
  return (_req, res, next) => {
    const { apiKeyId, workspaceId } = callerOf(res);
    const key = limiter.perKey.take(apiKeyId);
    // A key over its own limit does not use up its workspace's share.
    const workspace = key.allowed ? limiter.perWorkspace.take(workspaceId) : limiter.perWorkspace.peek(workspaceId);
    // The headers tell the limit nearest to running out.
    const nearest = !workspace.allowed || workspace.remaining < key.remaining ? workspace : key;
    res.set({
      'RateLimit-Limit': String(nearest.limit),
      'RateLimit-Remaining': String(nearest.remaining),
      'RateLimit-Reset': String(nearest.resetSeconds),
    });
    const seconds = limiter.perKey.windowMs / 1000;
    if (!key.allowed) {
      return next(rateLimited('api-key', `The rate limit of ${key.limit} requests per ${seconds} seconds for this API key is used up; retry in ${key.resetSeconds} s.`, key));
    }
    if (!workspace.allowed) {
      return next(
        rateLimited(
          'workspace',
          `The rate limit of ${workspace.limit} requests per ${seconds} seconds for this workspace (all its API keys together) is used up; retry in ${workspace.resetSeconds} s.`,
          workspace,
        ),
      );
    }
    next();
  };
}

/** The 429 of a refusal by `kind`'s limit, counted for the metrics. */
export function rateLimited(kind: RateLimitKind, detail: string, usage: Usage): AppError {
  rateLimitRefusals.inc({ limit: kind });
  return new AppError('rate-limited', detail, { retryAfterSeconds: usage.resetSeconds });
}
