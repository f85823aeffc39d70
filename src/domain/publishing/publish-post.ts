import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readPost, type PostRecord } from '../posts/read-post.ts';
import { planPublication, publicationOutcome } from './publication-workflow.ts';

/** What publishing answers of the post. */
export type PublishedPost = Pick<PostRecord, 'id' | 'status' | 'publishedAt'>;

/**
 * Publishes the post now (a scheduled publication is brought forward): the post becomes `published` and
 * `post.published` goes to webhooks. Waits for it like other actions; `completed` is false when it took longer.
 * `requestKey` names the request's Idempotency-Key (requestFingerprint): a retry gets the publication the first
 * send planned.
 */
export async function publishPost(deps: Deps, caller: Caller, postId: string, requestKey?: string): Promise<{ post: PublishedPost; completed: boolean }> {
  const post = await readPost(deps.orm.em.fork(), caller.workspaceId, postId);
  const request = { publishAt: null, connectionIds: [], ...(requestKey === undefined ? {} : { requestKey }) };
  const outcome = await publicationOutcome(deps, await planPublication(deps, post, request));
  // Published, the run's result is what the post now says (its settle wrote both), so it is not read again.
  if (outcome.state === 'completed' && outcome.result.outcome === 'published' && outcome.result.publishedAt) {
    return { post: { id: post.id, status: 'published', publishedAt: new Date(outcome.result.publishedAt) }, completed: true };
  }
  return { post: await readPost(deps.orm.em.fork(), caller.workspaceId, postId), completed: outcome.state !== 'running' };
}
