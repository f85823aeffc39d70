import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Workspace } from '../../adapters/database/entities/workspace.ts';

/**
 * Locks the workspace row until the transaction ends. Quota checks count and then insert; holding this lock makes
 * two concurrent requests take turns, so neither can slip past the limit.
 */
export async function lockWorkspace(em: EntityManager, workspaceId: string): Promise<Workspace> {
  return em.findOneOrFail(Workspace, workspaceId, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
