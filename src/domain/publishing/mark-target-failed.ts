import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import { storableReason } from '../../common/validation/storable-text.ts';

/** A target that could not be published, with the platform's reason for the user (its own words, made storable). */
export async function markTargetFailed(em: EntityManager, input: { targetId: string; reason: string }): Promise<void> {
  await em.nativeUpdate(
    PublishTarget,
    { id: input.targetId, status: { $ne: 'Published' } },
    { status: 'Failed', errorMessage: storableReason(input.reason), updatedAt: new Date() },
  );
}
