import type { RequestHandler } from 'express';
import { authenticateApiKey, bearerKeyOf } from '../../domain/api-keys/authenticate-api-key.ts';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import type { Database } from '../../data/orm.ts';
import { AppError } from '../../errors/app-error.ts';
import { rateLimited, type RateLimiter } from './rate-limit.ts';

/**
 * Resolves the caller from the bearer key (401 otherwise) and notes the key's use. X-Workspace-Id is ignored.
 * A client address whose well-formed keys failed too often in the window answers 429 before any lookup, whatever
 * key it sends, until the window ends. (Missing or malformed keys cost no lookup and are not counted.)
 */
export function authenticate(orm: Database, lastUsed: LastUsedTracker, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const failures = limiter.authFailures.peek(address);
    if (!failures.allowed) {
      const seconds = limiter.authFailures.windowMs / 1000;
      throw rateLimited(
        `Too many failed authentications from this address (${failures.limit} per ${seconds} seconds); retry in ${failures.resetSeconds} s.`,
        failures,
      );
    }
    const key = bearerKeyOf(req.headers.authorization);
    const caller = await authenticateApiKey(orm, key).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'unauthorized') limiter.authFailures.take(address);
      throw error;
    });
    res.locals.caller = caller;
    lastUsed.touch(caller.apiKeyId);
    next();
  };
}
