import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { recordOrphanedObjects } from '../storage/orphaned-objects.ts';
import { startStorageCleanup } from '../storage/start-storage-cleanup.ts';
import { postObjectKeys } from '../posts/post-object-keys.ts';
import { findProject } from '../find-in-workspace.ts';

/** Deletes the project; its stored objects are deleted durably by the storage cleanup workflow. */
export async function deleteProject(deps: Deps, caller: Caller, id: string): Promise<void> {
  const batch = await deps.orm.em.fork().transactional(async (em) => {
    const project = await findProject(em, caller.workspaceId, id, { lock: true });
    // Its posts go with it (foreign-key cascade), so their images are orphaned too.
    const keys = [project.coverKey, ...(await postObjectKeys(em, { projectId: id }))];
    const orphans = await recordOrphanedObjects(em, { keys, reason: 'project deleted', workspaceId: caller.workspaceId, projectId: id });
    em.remove(project);
    return orphans;
  });
  await startStorageCleanup(deps, batch);
}
