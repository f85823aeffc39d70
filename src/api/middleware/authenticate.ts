import type { RequestHandler } from 'express';
import { authenticateApiKey, bearerKeyOf } from '../../domain/api-keys/authenticate-api-key.ts';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import type { Database } from '../../data/orm.ts';
import { AppError } from '../../errors/app-error.ts';
import { rateLimited, type RateLimiter } from './rate-limit.ts';

/**
 * Resolves the caller from the bearer key (401 otherwise) and notes the key's use. X-Workspace-Id is ignored.
 * A client address whose well-formed keys failed too often in the window answers 429 before any lookup, whatever
 * key it sends, until the window ends. (Missing or malformed keys answer 401 at once: no lookup, not counted.)
 */
export function authenticate(orm: Database, lastUsed: LastUsedTracker, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const key = bearerKeyOf(req.headers.authorization);
    // Counted as a failure before the lookup and given back when the key is good: concurrent guesses cannot slip
    // past the limit while their lookups are in flight.
    const attempt = limiter.authFailures.take(address);
    if (!attempt.allowed) {
      const seconds = limiter.authFailures.windowMs / 1000;
      throw rateLimited('auth-failures', `Too many failed authentications from this address (${attempt.limit} per ${seconds} seconds); retry in ${attempt.resetSeconds} s.`, attempt);
    }
    let caller;
    try {
      caller = await authenticateApiKey(orm, key);
    } catch (error) {
      // Only a refused key counts; the database failing to answer is not the client's failure.
      if (!(error instanceof AppError && error.code === 'unauthorized')) limiter.authFailures.giveBack(address);
      throw error;
    }
    limiter.authFailures.giveBack(address);
    res.locals.caller = caller;
    lastUsed.touch(caller.apiKeyId);
    next();
  };
}
