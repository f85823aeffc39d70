import { AppError } from '../../common/errors/app-error.ts';
import { startAndWait } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import type { RenderResult } from '../../../workflows/contracts/render-post.ts';
import { renderPost } from '../../../workflows/render-post.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { intendedWorkId } from '../idempotency/request-effects.ts';
import { readPost } from '../posts/read-post.ts';
import { postSearchAttributes } from '../../adapters/temporal/search-attributes.ts';
import type { ActionOutcome } from './action-outcome.ts';

/**
 * Starts the post's render workflow (artwork + title + brand kit) and waits a while for it. `requestKey` is the
 * request's Idempotency-Key (requestFingerprint): a retry joins the render the first send started, or runs it again
 * under the same id, which finds the version it saved (as requestGeneration does).
 */
export async function requestRender(deps: Deps, caller: Caller, postId: string, requestKey?: string): Promise<ActionOutcome<RenderResult>> {
  const post = await readPost(deps.orm.em.fork(), caller.workspaceId, postId);
  if (!post.artworkKey) throw new AppError('conflict', `Post ${post.id} has no generated image to render yet; generate it first.`);
  const outcome = await startAndWait(
    deps.temporal,
    renderPost,
    {
      workflowId: workflowIds.postRender(post.id),
      taskQueue: deps.taskQueue,
      args: [{ postId: post.id, renderId: await intendedWorkId(deps.orm.em.fork(), caller.workspaceId, requestKey, 'render') }],
      staticSummary: `Render the ${post.format} post image of "${post.title}"`,
      typedSearchAttributes: postSearchAttributes(post),
    },
    { description: `a render of post ${post.id}`, name: 'Rendering', waitMs: deps.actionWaitMs, requestKey },
  );
  return { ...outcome, post: await readPost(deps.orm.em.fork(), caller.workspaceId, postId) };
}
