import type { Database } from '../../adapters/database/orm.ts';
import type { KeyedRequest } from './idempotent-request.ts';

/**
 * Renews the request's lock on its key (`lockMs` from now) three times per `lockMs` until stopped, so the lock outlives
 * the request only by less than `lockMs` however long the request runs. A renewal that fails (the database is down)
 * is reported and the next one tried; a lock taken over meanwhile is left alone (only the holder's `lockId` renews).
 * `stop` waits for a renewal in flight, so none lands after the answer is stored.
 */
export function keepIdempotencyKeyLocked(
  orm: Database,
  request: KeyedRequest,
  lockId: string,
  lockMs: number,
  onError: (error: unknown) => void,
): { stop: () => Promise<void> } {
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = orm.em
      .fork()
      .execute(
        `update idempotency_keys set locked_until = now() + ? * interval '1 millisecond'
          where workspace_id = ? and key = ? and lock_id = ?`,
        [lockMs, request.workspaceId, request.key, lockId],
        'run',
      )
      .then(() => undefined, onError);
  }, lockMs / 3);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await renewing;
    },
  };
}
