import { WithStartWorkflowOperation, WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { Post } from '../../data/entities/post.ts';
import { newId } from '../../data/new-id.ts';
import { AppError } from '../../errors/app-error.ts';
import { inTemporal } from '../../temporal/in-temporal.ts';
import { workflowIds } from '../../temporal/workflow-ids.ts';
import type { PublicationPlan } from './record-publication-plan.ts';
import { cancelUpdate, planUpdate, type PublicationRequest, type postPublication } from '../../../workflows/post-publication.ts';
import type { Deps } from '../deps.ts';
import { postSearchAttributes } from '../posts/post-workflow-options.ts';

/**
 * Plans the post's publication through its workflow, starting the workflow if none runs (Update-with-Start). The
 * workflow records the plan in the database before the update answers, so the state change and the durable timer
 * that follows it can never get separated: there is no moment where one exists without the other. When Temporal
 * does not answer (503), the update never ran, so the database is unchanged and the request can be sent again: the
 * workflow ID makes it the same publication.
 */
export async function planPublication(
  deps: Deps,
  post: Post,
  request: PublicationRequest,
): Promise<{ plan: PublicationPlan; handle: WorkflowHandle<typeof postPublication> }> {
  const start = new WithStartWorkflowOperation<typeof postPublication>('postPublication', {
    workflowId: workflowIds.postPublication(post.id),
    taskQueue: deps.taskQueue,
    // Used only when this starts the workflow; a publication already running keeps its own.
    args: [{ postId: post.id, publicationId: newId() }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: `Publish "${post.title}"`,
    typedSearchAttributes: postSearchAttributes(post),
  });
  const plan = await inTemporal(deps.temporal, 'accept the publication', async () => {
    try {
      return await deps.temporal.workflow.executeUpdateWithStart(planUpdate, { args: [request], startWorkflowOperation: start });
    } catch (error) {
      throw asProblem(error, post.id);
    }
  });
  return { plan, handle: await start.workflowHandle() };
}

/** Cancels the post's pending publication, if there is one (503 when Temporal does not answer). */
export async function cancelPublication(deps: Deps, postId: string): Promise<void> {
  const handle = deps.temporal.workflow.getHandle<typeof postPublication>(workflowIds.postPublication(postId));
  await inTemporal(deps.temporal, 'cancel the publication', async () => {
    try {
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') return;
      await handle.executeUpdate(cancelUpdate);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      throw asProblem(error, postId);
    }
  });
}

function asProblem(error: unknown, postId: string): unknown {
  if (!(error instanceof WorkflowUpdateFailedError)) return error;
  const reason = error.cause?.message ?? error.message;
  if (/no longer exists/.test(reason)) return new AppError('not-found', reason);
  return new AppError('conflict', `Post ${postId}: ${reason}`);
}
