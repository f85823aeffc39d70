import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTarget } from '../../data/entities/publish-target.ts';

/** A target that could not be published, with the platform's reason for the user (one statement). */
export async function markTargetFailed(em: EntityManager, input: { targetId: string; reason: string }): Promise<void> {
  await em.nativeUpdate(PublishTarget, { id: input.targetId, status: { $ne: 'Published' } }, { status: 'Failed', errorMessage: input.reason, updatedAt: new Date() });
}
