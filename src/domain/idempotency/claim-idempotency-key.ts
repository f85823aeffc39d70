import type { Database } from '../../adapters/database/orm.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { AppError } from '../../common/errors/app-error.ts';
import type { KeyedRequest, StoredAnswer } from './idempotent-request.ts';

/** `takenOver`: the key was held by the same request, whose api process died before it answered. */
export type Claim = { state: 'claimed'; lockId: string; takenOver: boolean } | { state: 'answered'; answer: StoredAnswer };

type StoredRow = {
  request_method: string;
  request_path: string;
  request_hash: string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  locked_for_ms: number;
};

/** How long keys and their answers are kept: a client retries within minutes or hours, never a day later. */
const keyLifetimeHours = 24;

/** When what a keyed request recorded now expires with its key (its created resource, its publication's plan). */
export function keyExpiresAt(): Date {
  return new Date(Date.now() + keyLifetimeHours * 3_600_000);
}

/**
 * Takes the workspace's key for this request, or finds what it already holds: the stored answer of the same request
 * (to replay), the same request still running (409), or another request (422). The key is taken when it is new,
 * expired, or locked by the same request whose lock ran out (its api process died before it answered: a running
 * request renews its lock, see keepIdempotencyKeyLocked).
 *
 * One statement takes the key (`insert ... on conflict do update ... where`), so two requests racing for it cannot
 * both win; the loser reads the row the winner wrote.
 */
export async function claimIdempotencyKey(orm: Database, request: KeyedRequest, lockMs: number): Promise<Claim> {
  const em = orm.em.fork();
  // The row can vanish between the two statements (its request answered 5xx and gave the key back): try again.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const lockId = newId();
    // created_at is kept on a takeover, so `returning` can tell one (an earlier time) from a new or expired key's
    // claim (the statement's now()).
    const taken = await em.execute<Array<{ lock_id: string; taken_over: boolean }>>(
      `insert into idempotency_keys (id, workspace_id, key, request_method, request_path, request_hash, lock_id, locked_until, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, now() + ? * interval '1 millisecond', now(), now() + ? * interval '1 hour')
       on conflict (workspace_id, key) do update
          set request_method = excluded.request_method, request_path = excluded.request_path,
              request_hash = excluded.request_hash, lock_id = excluded.lock_id, locked_until = excluded.locked_until,
              response_status = null, response_headers = null, response_body = null,
              created_at = case when idempotency_keys.expires_at <= now() then excluded.created_at else idempotency_keys.created_at end,
              expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= now()
           or (idempotency_keys.response_status is null and idempotency_keys.locked_until <= now()
               and idempotency_keys.request_method = excluded.request_method
               and idempotency_keys.request_path = excluded.request_path
               and idempotency_keys.request_hash = excluded.request_hash)
       returning lock_id, created_at < now() as taken_over`,
      [newId(), request.workspaceId, request.key, request.method, request.path, request.hash, lockId, lockMs, keyLifetimeHours],
      'all',
    );
    if (taken[0]) return { state: 'claimed', lockId, takenOver: taken[0].taken_over };

    const [row] = await em.execute<StoredRow[]>(
      `select request_method, request_path, request_hash, response_status, response_headers, response_body,
              greatest(0, extract(epoch from (locked_until - now())) * 1000)::int as locked_for_ms
         from idempotency_keys
        where workspace_id = ? and key = ? and expires_at > now()`,
      [request.workspaceId, request.key],
      'all',
    );
    if (!row) continue;
    if (row.request_method !== request.method || row.request_path !== request.path) {
      throw new AppError(
        'idempotency-key-reused',
        `This Idempotency-Key was first used with ${row.request_method} ${row.request_path}; use a new key for a new request.`,
      );
    }
    if (row.request_hash !== request.hash) {
      throw new AppError('idempotency-key-reused', 'This Idempotency-Key was first used with another request body; use a new key for a new request.');
    }
    if (row.response_status !== null) {
      return { state: 'answered', answer: { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? '' } };
    }
    throw inUse(row.locked_for_ms);
  }
  throw inUse(1000);
}

function inUse(lockedForMs: number): AppError {
  // When the key can be taken over at the latest: its lock is renewed while the first request runs, so a retry then
  // gets its answer if it has finished, or takes over from a first request whose process died.
  const retryAfterSeconds = Math.max(1, Math.ceil(lockedForMs / 1000));
  return new AppError(
    'idempotency-key-in-use',
    `A request with this Idempotency-Key is still running; retry in ${retryAfterSeconds} s to get its answer (or to take over, if it has stopped).`,
    { retryAfterSeconds },
  );
}
