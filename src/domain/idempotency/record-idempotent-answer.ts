import type { Database } from '../../adapters/database/orm.ts';
import type { KeyedRequest, StoredAnswer } from './idempotent-request.ts';

/**
 * Stores the answer under the key and lifts its lock. Only the lock's holder writes: a request that outlived its lock
 * (and whose key a retry took over) leaves the newer request's row alone.
 */
export async function recordIdempotentAnswer(orm: Database, request: KeyedRequest, lockId: string, answer: StoredAnswer): Promise<void> {
  await orm.em.fork().execute(
    `update idempotency_keys
        set response_status = ?, response_headers = ?::jsonb, response_body = ?, lock_id = null, locked_until = null
      where workspace_id = ? and key = ? and lock_id = ?`,
    [answer.status, JSON.stringify(answer.headers), answer.body, request.workspaceId, request.key, lockId],
    'run',
  );
}

/** Gives the key back (the request failed on our side, 5xx): the client's retry runs the request again. */
export async function releaseIdempotencyKey(orm: Database, request: KeyedRequest, lockId: string): Promise<void> {
  await orm.em
    .fork()
    .execute(`delete from idempotency_keys where workspace_id = ? and key = ? and lock_id = ?`, [request.workspaceId, request.key, lockId], 'run');
}
