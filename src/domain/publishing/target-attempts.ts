import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { PublishTargetAttempt } from '../../adapters/database/entities/publish-target-attempt.ts';

/** A target as clients see it: with its attempts, oldest first. */
export type TargetWithAttempts = { target: PublishTarget; attempts: PublishTargetAttempt[] };

/**
 * The targets with their attempts, in one query. A target has at most one attempt per Temporal attempt of its
 * activity (unique per target and attempt number), so the list is bounded by the socialPublish retry policy's
 * maximumAttempts (workflows/activity-options.ts).
 */
export async function withAttempts(em: EntityManager, targets: PublishTarget[]): Promise<TargetWithAttempts[]> {
  if (targets.length === 0) return [];
  const attempts = await em.find(PublishTargetAttempt, { targetId: { $in: targets.map((target) => target.id) } }, { orderBy: { attempt: 'asc' } });
  const byTarget = Map.groupBy(attempts, (attempt) => attempt.targetId);
  return targets.map((target) => ({ target, attempts: byTarget.get(target.id) ?? [] }));
}
