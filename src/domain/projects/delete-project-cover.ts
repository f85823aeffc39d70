import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { recordOrphanedObjects } from '../storage/orphaned-objects.ts';
import { startStorageCleanup } from '../storage/start-storage-cleanup.ts';
import { findProject } from './find-project.ts';

/** Removes the cover (a project without one is left as it is); the image leaves storage durably. */
export async function deleteProjectCover(deps: Deps, caller: Caller, id: string): Promise<void> {
  const batch = await deps.orm.em.fork().transactional(async (em) => {
    const project = await findProject(em, caller.workspaceId, id, { lock: true });
    const orphans = await recordOrphanedObjects(em, {
      keys: [project.coverKey],
      reason: 'project cover deleted',
      workspaceId: caller.workspaceId,
      projectId: id,
    });
    project.coverKey = null;
    return orphans;
  });
  await startStorageCleanup(deps, batch);
}
