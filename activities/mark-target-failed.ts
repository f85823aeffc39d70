import { PublishTarget } from '../src/data/entities/publish-target.ts';
import type { ActivityDeps } from './index.ts';

/** A target that could not be published, with the platform's reason for the user. */
export async function markTargetFailed(deps: ActivityDeps, input: { targetId: string; reason: string }): Promise<void> {
  await deps.orm.em.fork().nativeUpdate(
    PublishTarget,
    { id: input.targetId, status: { $ne: 'Published' } },
    { status: 'Failed', errorMessage: input.reason, updatedAt: new Date() },
  );
}
