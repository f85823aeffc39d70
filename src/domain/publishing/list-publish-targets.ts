import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost } from '../posts/read-post.ts';

/** Every publish target of the post, newest first (each publication adds one per connection). */
export async function listPublishTargets(deps: Deps, caller: Caller, postId: string): Promise<PublishTarget[]> {
  const em = deps.orm.em.fork();
  await readPost(em, caller.workspaceId, postId);
  return em.find(PublishTarget, { postId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
}
