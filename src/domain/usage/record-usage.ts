import type { EntityManager } from '@mikro-orm/postgresql';
import { UsageActivity, type UsageType } from '../../adapters/database/entities/usage-activity.ts';

/** Adds a usage item in the caller's transaction, so it commits exactly when the work it counts does. */
export function recordUsage(em: EntityManager, usage: { workspaceId: string; type: UsageType; description: string; postId?: string }): UsageActivity {
  return em.create(UsageActivity, { ...usage, postId: usage.postId ?? null });
}
