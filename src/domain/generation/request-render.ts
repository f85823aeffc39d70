import { newId } from '../../data/new-id.ts';
import { AppError } from '../../errors/app-error.ts';
import { startAndWait } from '../../temporal/start-and-wait.ts';
import { workflowIds } from '../../temporal/workflow-ids.ts';
import type { RenderResult } from './save-rendered-image.ts';
import type { renderPost } from '../../../workflows/render-post.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findPost } from '../posts/find-post.ts';
import { postSearchAttributes } from '../posts/post-workflow-options.ts';
import { failuresAsProblems, type ActionOutcome } from './action-outcome.ts';

/** Starts the post's render workflow (artwork + title + brand kit) and waits a while for it. */
export async function requestRender(deps: Deps, caller: Caller, postId: string): Promise<ActionOutcome<RenderResult>> {
  const post = await findPost(deps.orm.em.fork(), caller.workspaceId, postId);
  if (!post.artworkKey) throw new AppError('conflict', `Post ${post.id} has no generated image to render yet; generate it first.`);
  const outcome = await failuresAsProblems('Rendering', () =>
    startAndWait<typeof renderPost>(
      deps.temporal,
      'renderPost',
      {
        workflowId: workflowIds.postRender(post.id),
        taskQueue: deps.taskQueue,
        args: [{ postId: post.id, renderId: newId() }],
        staticSummary: `Render the ${post.format} post image of "${post.title}"`,
        typedSearchAttributes: postSearchAttributes(post),
      },
      deps.actionWaitMs,
      `a render of post ${post.id}`,
    ),
  );
  const current = await findPost(deps.orm.em.fork(), caller.workspaceId, postId);
  return outcome.state === 'completed' ? { state: 'completed', post: current, result: outcome.result } : { state: 'running', post: current };
}
