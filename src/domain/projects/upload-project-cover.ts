import { Project } from '../../adapters/database/entities/project.ts';
import { madeBefore, recordEffect } from '../idempotency/request-effects.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { objectKeys } from '../../adapters/object-storage/object-keys.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { claimObjectKey, reserveObjectKey } from '../storage/orphaned-objects.ts';
import { startStorageCleanup } from '../storage/start-storage-cleanup.ts';
import { detectImageType } from './detect-image-type.ts';
import { findProject } from '../find-in-workspace.ts';
import { swapProjectCover } from './swap-project-cover.ts';

// An upload that has not committed within this time is considered dead and its object is swept away.
const uploadGraceMs = 60 * 60 * 1000;

/**
 * Stores a new cover and swaps it in. The new object is recorded as orphaned *before* its bytes are stored and
 * claimed in the transaction that points the project at it; so if the process dies in between, the sweep deletes
 * it after the grace period, and the replaced cover is orphaned in that same transaction. A keyed upload is recorded
 * in that transaction too: a retry whose first answer was lost answers the project's cover as it is now, uploading
 * nothing (a cover uploaded by another request since stays; 404 when the cover was deleted since).
 */
export async function uploadProjectCover(
  deps: Deps,
  caller: Caller,
  id: string,
  bytes: Buffer,
  requestKey?: string,
): Promise<{ project: Project; coverKey: string }> {
  const type = await detectImageType(bytes);
  const em = deps.orm.em.fork();
  await findProject(em, caller.workspaceId, id);
  const uploaded = {
    type: 'project-cover',
    find: (projectId: string) => em.findOne(Project, { id: projectId, workspaceId: caller.workspaceId, coverKey: { $ne: null } }),
    noun: 'cover of project',
  };
  const before = await madeBefore(em, caller.workspaceId, requestKey, uploaded);
  if (before?.coverKey) return { project: before, coverKey: before.coverKey };

  const key = objectKeys.projectCover(caller.workspaceId, id, type.extension);
  await reserveObjectKey(em, { key, reason: 'project cover upload did not complete', graceMs: uploadGraceMs });
  await deps.storage.put(key, bytes, type.contentType);

  const { project, replaced } = await em.fork().transactional(async (tx) => {
    const swapped = await swapProjectCover(tx, caller, id, { key, reason: 'project cover replaced' });
    // A claim that fails rolls the swap back with it.
    if (!(await claimObjectKey(tx, key))) {
      throw new AppError('service-unavailable', 'The upload took too long and was discarded; please upload again.');
    }
    if (requestKey !== undefined) await recordEffect(tx, caller.workspaceId, requestKey, uploaded.type, { resourceId: id });
    return swapped;
  });
  await startStorageCleanup(deps, replaced);
  return { project, coverKey: key };
}
