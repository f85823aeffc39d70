import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { recordOrphanedObjects } from '../storage/orphaned-objects.ts';
import { startStorageCleanup } from '../storage/start-storage-cleanup.ts';
import { cancelPublication } from '../publishing/publication-workflow.ts';
import { findPost } from '../find-in-workspace.ts';
import { readPost } from './read-post.ts';
import { postObjectKeys } from './post-object-keys.ts';

/**
 * Deletes the post with its versions and publish targets; a pending publication is cancelled first (should that
 * fail, the publication finds the post gone and does nothing). Every image the post stored leaves storage durably.
 * Usage history stays.
 */
export async function deletePost(deps: Deps, caller: Caller, id: string): Promise<void> {
  const current = await readPost(deps.orm.em.fork(), caller.workspaceId, id);
  if (current.status === 'scheduled') {
    await cancelPublication(deps, current.id).catch((error: unknown) =>
      deps.logger.warn({ err: error, postId: id }, 'publication not cancelled before deleting the post'),
    );
  }
  const batch = await deps.orm.em.fork().transactional(async (em) => {
    const post = await findPost(em, caller.workspaceId, id, { lock: true });
    const keys = await postObjectKeys(em, { postId: post.id });
    const orphans = await recordOrphanedObjects(em, { keys, reason: 'post deleted', workspaceId: caller.workspaceId, projectId: post.projectId });
    em.remove(post);
    return orphans;
  });
  await startStorageCleanup(deps, batch);
}
