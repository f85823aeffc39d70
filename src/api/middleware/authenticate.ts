import type { RequestHandler } from 'express';
import { authenticateApiKey } from '../../domain/api-keys/authenticate-api-key.ts';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import type { Database } from '../../data/orm.ts';

/** Resolves the caller from the bearer key (401 otherwise) and notes the key's use. X-Workspace-Id is ignored. */
export function authenticate(orm: Database, lastUsed: LastUsedTracker): RequestHandler {
  return async (req, res, next) => {
    const caller = await authenticateApiKey(orm, req.headers.authorization);
    res.locals.caller = caller;
    lastUsed.touch(caller.apiKeyId);
    next();
  };
}
