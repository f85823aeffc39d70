import type { Post } from '../../data/entities/post.ts';
import { waitForOutcome } from '../../temporal/start-and-wait.ts';
import { failuresAsProblems } from '../generation/action-outcome.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findPost } from '../posts/find-post.ts';
import { planPublication } from './publication-workflow.ts';

/**
 * Publishes the post now (a scheduled publication is brought forward): the post becomes `published` and
 * `post.published` goes to webhooks. Waits for it like other actions; `completed` is false when it took longer.
 */
export async function publishPost(deps: Deps, caller: Caller, postId: string): Promise<{ post: Post; completed: boolean }> {
  const post = await findPost(deps.orm.em.fork(), caller.workspaceId, postId);
  const { handle } = await planPublication(deps, post, { publishAt: null, connectionIds: [] });
  const completed = await waitFor(deps, () => handle.result());
  return { post: await findPost(deps.orm.em.fork(), caller.workspaceId, postId), completed };
}

/**
 * True when `work` finished within the action wait limit; the workflow goes on either way. A publication that
 * failed (the post deleted meanwhile: 404) reads as the generation and render actions do.
 */
export async function waitFor(deps: Deps, work: () => Promise<unknown>): Promise<boolean> {
  const outcome = await failuresAsProblems('Publishing', () => waitForOutcome(deps.temporal, deps.actionWaitMs, work));
  return outcome.state === 'completed';
}
