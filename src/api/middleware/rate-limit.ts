import type { RequestHandler } from 'express';
import type { Caller } from '../../domain/caller.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { rateLimitRefusals, type RateLimitKind } from '../../adapters/metrics/api-metrics.ts';
import { callerOf } from '../caller-of.ts';
import type { Usage } from '../rate-limits/budget.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';

/** A request counted against its budgets: the usage its headers show, and the limit that refuses it, if any. */
export type CountedRequest = { shown: Usage; refusedBy: Extract<RateLimitKind, 'api-key' | 'workspace'> | null };

/**
 * Counts a request against its key's budget, then its workspace's: a key over its own limit does not use up its
 * workspace's share, so its refusal is counted against the key only. Two statements in the store at most.
 */
export async function countRequest(limiter: RateLimiter, caller: Caller): Promise<CountedRequest> {
  const key = await limiter.perKey.take(caller.apiKeyId);
  if (!key.allowed) return { shown: key, refusedBy: 'api-key' };
  const workspace = await limiter.perWorkspace.take(caller.workspaceId);
  if (!workspace.allowed) return { shown: workspace, refusedBy: 'workspace' };
  // The headers tell the limit nearer to running out.
  return { shown: workspace.remaining < key.remaining ? workspace : key, refusedBy: null };
}

export function rateLimit(limiter: RateLimiter): RequestHandler {
  return async (_req, res, next) => {
    const { shown, refusedBy } = await countRequest(limiter, callerOf(res));
    res.set({
      'RateLimit-Limit': String(shown.limit),
      'RateLimit-Remaining': String(shown.remaining),
      'RateLimit-Reset': String(shown.resetSeconds),
    });
    const window = `per ${shown.windowSeconds} seconds`;
    if (refusedBy === 'api-key') {
      throw rateLimited('api-key', `The rate limit of ${shown.limit} requests ${window} for this API key is used up; retry in ${shown.resetSeconds} s.`, shown);
    }
    if (refusedBy === 'workspace') {
      throw rateLimited(
        'workspace',
        `The rate limit of ${shown.limit} requests ${window} for this workspace (all its API keys together) is used up; retry in ${shown.resetSeconds} s.`,
        shown,
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
