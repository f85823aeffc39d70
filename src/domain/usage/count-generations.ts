import type { EntityManager } from '@mikro-orm/postgresql';
import { UsageActivity } from '../../adapters/database/entities/usage-activity.ts';

/** The first instant of the current month, UTC: where a monthly budget starts counting. */
export function monthStartOf(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The images the workspace generated since `since`, from its usage items (one `PostGeneration` per image). */
export function countGenerations(em: EntityManager, workspaceId: string, since: Date): Promise<number> {
  return em.count(UsageActivity, { workspaceId, type: 'PostGeneration', createdAt: { $gte: since } });
}
