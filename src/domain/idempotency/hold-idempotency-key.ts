import { isSealed, type SecretBox } from '../../adapters/crypto/secret-box.ts';
import type { Deps } from '../deps.ts';
import { claimIdempotencyKey } from './claim-idempotency-key.ts';
import { requestFingerprint, type KeyedRequest, type StoredAnswer } from './idempotent-request.ts';
import { keepIdempotencyKeyLocked } from './keep-idempotency-key-locked.ts';
import { recordIdempotentAnswer, releaseIdempotencyKey } from './record-idempotent-answer.ts';

/** The key already answered this request (its stored answer, opened), or is held for this run until `settle`. */
export type HeldKey =
  | { state: 'answered'; answer: StoredAnswer }
  | {
      state: 'held';
      /** What the run records its effects under (recordPublicationPlan, createOnce), so a later run finds them. */
      requestKey: string;
      /** The key was held by the same request, whose process died before it answered: its effects may exist. */
      takenOver: boolean;
      /** Stores the answer for a retry to replay (below 500), or gives the key back (5xx); the lock stops either way. */
      settle: (answer: StoredAnswer) => Promise<void>;
    };

/**
 * An Idempotency-Key's whole life for one request, as REST (src/api/middleware/idempotency.ts) and the MCP tools
 * (src/api/mcp/run-keyed.ts) both use it: claimed, or its first answer found; while the request runs, its lock is
 * renewed a few times as often as it would run out (`idempotencyLockMs`), so a retry waits for a live run and takes
 * over a dead one; then the answer is stored or the key given back.
 */
export async function holdIdempotencyKey(
  deps: Pick<Deps, 'orm' | 'idempotentAnswers' | 'idempotencyLockMs'>,
  request: KeyedRequest,
  onRenewFailed: (error: unknown) => void,
): Promise<HeldKey> {
  const claim = await claimIdempotencyKey(deps.orm, request, deps.idempotencyLockMs);
  if (claim.state === 'answered') return { state: 'answered', answer: { ...claim.answer, body: openStoredBody(deps.idempotentAnswers, claim.answer.body) } };
  const lock = keepIdempotencyKeyLocked(deps.orm, request, claim.lockId, deps.idempotencyLockMs, onRenewFailed);
  return {
    state: 'held',
    requestKey: requestFingerprint(request),
    takenOver: claim.takenOver,
    settle: async (answer) => {
      await lock.stop();
      await (answer.status >= 500
        ? releaseIdempotencyKey(deps.orm, request, claim.lockId)
        : recordIdempotentAnswer(deps.orm, request, claim.lockId, { ...answer, body: deps.idempotentAnswers.seal(answer.body) }));
    },
  };
}

/**
 * A stored answer is sealed like any secret at rest: answers that create a secret (an API key, a webhook's signing
 * secret) carry it in their body, and the replay must give it back. An answer stored before answers were sealed is
 * plain JSON (never `v1.` or `v2.`), and is kept at most a day.
 */
function openStoredBody(answers: SecretBox, stored: string): string {
  return isSealed(stored) ? answers.open(stored) : stored;
}
