import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTargetAttempt, type PublishAttemptOutcome } from '../../adapters/database/entities/publish-target-attempt.ts';
import { newId } from '../../adapters/database/new-id.ts';
import type { ServerAnswer } from '../../adapters/social/social-connector.ts';

export type PublishAttempt = {
  targetId: string;
  attempt: number;
  /** The part of a thread the attempt was at; absent: 1 (a single post). */
  part?: number | undefined;
  attemptedAt: Date;
  outcome: PublishAttemptOutcome;
  detail: string;
  nextAttemptAt: Date | null;
  /** Each server's answer where the post went to several (Nostr relays). */
  answers?: ServerAnswer[] | null | undefined;
};

/**
 * Records one attempt of a target (at one part of a thread), in the caller's transaction if it has one. The first
 * record of an attempt at a part stands (an activity that records twice, a late answer after the next attempt began); a target deleted meanwhile
 * (its post was) records nothing rather than failing.
 */
export async function recordPublishAttempt(em: EntityManager, attempt: PublishAttempt): Promise<void> {
  await em.execute(
    `insert into publish_target_attempts (id, target_id, attempt, part, attempted_at, outcome, detail, next_attempt_at, answers)
     select ?::uuid, t.id, ?::integer, ?::integer, ?::timestamptz, ?, ?, ?::timestamptz, ?::jsonb from publish_targets t where t.id = ?::uuid
     on conflict (target_id, attempt, part) do nothing`,
    [
      newId(),
      attempt.attempt,
      attempt.part ?? 1,
      attempt.attemptedAt.toISOString(),
      attempt.outcome,
      attempt.detail,
      attempt.nextAttemptAt?.toISOString() ?? null,
      attempt.answers ? JSON.stringify(attempt.answers) : null,
      attempt.targetId,
    ],
    'run',
  );
}

/** The attempts of the target (at every part) before number `before`, as recorded, oldest first. */
export async function recordedAttempts(
  em: EntityManager,
  targetId: string,
  before: number,
): Promise<(Pick<PublishAttempt, 'attempt' | 'outcome' | 'attemptedAt'> & { part: number })[]> {
  return em.find(
    PublishTargetAttempt,
    { targetId, attempt: { $lt: before } },
    { fields: ['attempt', 'part', 'outcome', 'attemptedAt'], orderBy: { attempt: 'asc', part: 'asc' } },
  );
}
