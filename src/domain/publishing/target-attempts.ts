import type { EntityManager } from '@mikro-orm/postgresql';
import type { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { PublishTargetAttempt } from '../../adapters/database/entities/publish-target-attempt.ts';
import { PublishTargetPart } from '../../adapters/database/entities/publish-target-part.ts';

/** A target as clients see it: with its attempts, oldest first, and the posts of its thread the platform has, in order. */
export type TargetWithAttempts = { target: PublishTarget; attempts: PublishTargetAttempt[]; parts: PublishTargetPart[] };

/**
 * The targets with their attempts (one query) and, for threads, their parts (one more). A Temporal attempt of the
 * activity records one attempt for each part it published and at most one for the part it failed at, so a target
 * has at most as many as its parts (maxThreadParts) and the socialPublish retry policy's maximumAttempts
 * (workflows/contracts/activity-options.ts) together.
 */
export async function withAttempts(em: EntityManager, targets: PublishTarget[]): Promise<TargetWithAttempts[]> {
  if (targets.length === 0) return [];
  const attempts = await em.find(PublishTargetAttempt, { targetId: { $in: targets.map((target) => target.id) } }, { orderBy: { attempt: 'asc', part: 'asc' } });
  const threads = targets.filter((target) => target.thread).map((target) => target.id);
  const parts = threads.length > 0 ? await em.find(PublishTargetPart, { targetId: { $in: threads } }, { orderBy: { part: 'asc' } }) : [];
  const byTarget = Map.groupBy(attempts, (attempt) => attempt.targetId);
  const partsByTarget = Map.groupBy(parts, (part) => part.targetId);
  return targets.map((target) => ({ target, attempts: byTarget.get(target.id) ?? [], parts: partsByTarget.get(target.id) ?? [] }));
}
