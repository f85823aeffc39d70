import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost } from '../posts/read-post.ts';
import { withAttempts, type TargetWithAttempts } from './target-attempts.ts';

/** Every publish target of the post with its attempts, newest first (each publication adds one per connection). */
export async function listPublishTargets(deps: Deps, caller: Caller, postId: string): Promise<TargetWithAttempts[]> {
  const em = deps.orm.em.fork();
  await readPost(em, caller.workspaceId, postId);
  return withAttempts(em, await em.find(PublishTarget, { postId }, { orderBy: { createdAt: 'desc', id: 'desc' } }));
}
