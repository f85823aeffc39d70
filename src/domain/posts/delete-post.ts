import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { recordOrphanedObjects, startStorageCleanup } from '../storage/orphaned-objects.ts';
import { findPost } from './find-post.ts';
import { postObjectKeys } from './post-object-keys.ts';

/** Deletes the post and its versions; every image they stored leaves storage durably. Usage history stays. */
export async function deletePost(deps: Deps, caller: Caller, id: string): Promise<void> {
  const batch = await deps.orm.em.fork().transactional(async (em) => {
    const post = await findPost(em, caller.workspaceId, id, { lock: true });
    const keys = await postObjectKeys(em, { postId: post.id });
    const orphans = recordOrphanedObjects(em, { keys, reason: 'post deleted', workspaceId: caller.workspaceId, projectId: post.projectId });
    em.remove(post);
    return orphans;
  });
  await startStorageCleanup(deps, batch);
}
