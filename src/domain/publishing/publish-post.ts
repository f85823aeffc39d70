import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost, type PostRecord } from '../posts/read-post.ts';
import { planPublication, publicationCompleted } from './publication-workflow.ts';

/**
 * Publishes the post now (a scheduled publication is brought forward): the post becomes `published` and
 * `post.published` goes to webhooks. Waits for it like other actions; `completed` is false when it took longer.
 */
export async function publishPost(deps: Deps, caller: Caller, postId: string): Promise<{ post: PostRecord; completed: boolean }> {
  const post = await readPost(deps.orm.em.fork(), caller.workspaceId, postId);
  const { handle } = await planPublication(deps, post, { publishAt: null, connectionIds: [] });
  const completed = await publicationCompleted(deps, handle);
  return { post: await readPost(deps.orm.em.fork(), caller.workspaceId, postId), completed };
}
