import type { Request, RequestHandler } from 'express';
import { authenticateApiKey, bearerKeyOf } from '../../domain/api-keys/authenticate-api-key.ts';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import type { Database } from '../../adapters/database/orm.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import { rateLimited } from './rate-limit.ts';

/**
 * Resolves the caller from the bearer key (401 otherwise) and notes the key's use. X-Workspace-Id is ignored.
 *
 * Failed authentication throttles the guesser, never a valid key. Every well-formed key is looked up, even from a
 * client address over its failure budget, and only a key the lookup refused counts against that budget: many clients
 * share an address (behind a NAT, or every client behind a proxy whose hops are not trusted), and neither their
 * failures nor their valid requests in flight can refuse a key that verifies. Looking keys up from such an address is
 * safe: a key is 32 random bytes (256 bits), so no number of guesses finds one, and a lookup is one indexed read, what
 * any valid request costs. The budget bounds what a guesser learns: once over it, a refused key answers 429 (with
 * Retry-After) instead of 401 and its reason (unknown, inactive, expired) for the rest of the window; and it flags
 * the address: a log line when it goes over (once per window, across processes) and
 * `api_rate_limit_refusals_total{limit="auth-failures"}`. Missing or malformed keys answer 401 at once: no lookup,
 * not counted.
 */
export function authenticate(orm: Database, lastUsed: LastUsedTracker, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const key = bearerKeyOf(req.headers.authorization);
    let caller;
    try {
      caller = await authenticateApiKey(orm, key);
    } catch (error) {
      // Only a refused key counts; the database failing to answer is not the client's failure.
      if (error instanceof AppError && error.code === 'unauthorized') throw await failedAuthentication(req, limiter, error);
      throw error;
    }
    res.locals.caller = caller;
    lastUsed.touch(caller.apiKeyId);
    next();
  };
}

/** Counts a refused key against its address's budget: the 401 while within it, a 429 past it. */
async function failedAuthentication(req: Request, limiter: RateLimiter, refusal: AppError): Promise<AppError> {
  // With trusted proxy hops (TRUST_PROXY_HOPS), the client's address from X-Forwarded-For.
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const attempt = await limiter.authFailures.take(address);
  if (attempt.allowed) return refusal;
  if (attempt.firstOver)
    req.log.warn({ address, failures: attempt.limit, windowSeconds: attempt.windowSeconds }, 'failed authentications from one address went over their budget');
  return rateLimited(
    'auth-failures',
    `Too many failed authentications from this address (${attempt.limit} per ${attempt.windowSeconds} seconds); retry in ${attempt.resetSeconds} s.`,
    attempt,
  );
}
