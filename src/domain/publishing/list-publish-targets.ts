import type { EntityManager } from '@mikro-orm/postgresql';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost, readPostNotingTargets, type PostRecord } from '../posts/read-post.ts';
import { withAttempts, type TargetWithAttempts } from './target-attempts.ts';

/** Every publish target of the post with its attempts, newest first (each publication adds one per connection). */
export async function listPublishTargets(deps: Deps, caller: Caller, postId: string): Promise<TargetWithAttempts[]> {
  const em = deps.orm.em.fork();
  await readPost(em, caller.workspaceId, postId);
  return targetsOf(em, postId);
}

/** The post and its publish targets with their attempts, newest target first; a post never published, in one read. */
export async function readPostWithTargets(deps: Deps, caller: Caller, postId: string): Promise<{ post: PostRecord; targets: TargetWithAttempts[] }> {
  const em = deps.orm.em.fork();
  const { post, hasTargets } = await readPostNotingTargets(em, caller.workspaceId, postId);
  return { post, targets: hasTargets ? await targetsOf(em, postId) : [] };
}

async function targetsOf(em: EntityManager, postId: string): Promise<TargetWithAttempts[]> {
  return withAttempts(em, await em.find(PublishTarget, { postId }, { orderBy: { createdAt: 'desc', id: 'desc' } }));
}
