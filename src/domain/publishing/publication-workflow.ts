import type { WorkflowHandle } from '@temporalio/client';
import type { Post } from '../../adapters/database/entities/post.ts';
import { newId } from '../../adapters/database/new-id.ts';
import { updateIfRunning, updateWithStart, waitForOutcome, type Outcome } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import {
  cancelUpdate,
  planUpdate,
  type PublicationPlan,
  type PublicationRequest,
  type PublicationResult,
} from '../../../workflows/contracts/post-publication.ts';
import { postPublication } from '../../../workflows/post-publication.ts';
import type { Deps } from '../deps.ts';
import { postSearchAttributes } from '../../adapters/temporal/search-attributes.ts';

/**
 * Plans the post's publication through its workflow, starting the workflow if none runs (Update-with-Start). The
 * workflow records the plan in the database before the update answers, so the state change and the durable timer
 * that follows it can never get separated: there is no moment where one exists without the other. When Temporal
 * does not answer (503), it may still have taken the update (its answer lost on the way): the request can be sent
 * again, and the workflow ID makes it the same publication. What names a request's `Idempotency-Key` (`request.requestKey`) is
 * also the update's ID, so a retry joins a plan that Temporal took before the first answer was lost; once that run
 * has ended, the plan recorded under the key answers instead (`replayed`, see recordPublicationPlan).
 */
export async function planPublication(
  deps: Deps,
  post: Pick<Post, 'id' | 'title' | 'workspaceId' | 'projectId'>,
  request: PublicationRequest,
): Promise<{ plan: PublicationPlan; handle: WorkflowHandle<typeof postPublication> }> {
  const { result, handle } = await updateWithStart(
    deps.temporal,
    planUpdate,
    [request],
    {
      workflow: postPublication,
      options: {
        workflowId: workflowIds.postPublication(post.id),
        taskQueue: deps.taskQueue,
        // Used only when this starts the workflow; a publication already running keeps its own.
        args: [{ postId: post.id, publicationId: newId() }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `Publish "${post.title}"`,
        typedSearchAttributes: postSearchAttributes(post),
      },
    },
    { purpose: 'accept the publication', subject: `Post ${post.id}` },
    request.requestKey === undefined ? undefined : `plan ${request.requestKey}`,
  );
  return { plan: result, handle };
}

/** Cancels the post's pending publication, if there is one (503 when Temporal does not answer). */
export async function cancelPublication(deps: Deps, postId: string): Promise<void> {
  await updateIfRunning(deps.temporal, workflowIds.postPublication(postId), cancelUpdate, { purpose: 'cancel the publication', subject: `Post ${postId}` });
}

/**
 * The publication's result: the plan's own when it published at once, else the run's when it finished within the
 * action wait limit, else `running`; the workflow goes on either way. A publication that failed (the post deleted
 * meanwhile: 404) reads as the generation and render actions do. A replayed plan's publication has ended: `ended`,
 * its outcome is what the database says.
 */
export async function publicationOutcome(
  deps: Deps,
  { plan, handle }: { plan: PublicationPlan; handle: WorkflowHandle<typeof postPublication> },
): Promise<Outcome<PublicationResult> | { state: 'ended' }> {
  if (plan.replayed) return { state: 'ended' };
  if (plan.result) return { state: 'completed', result: plan.result };
  return waitForOutcome(deps.temporal, handle, { name: 'Publishing', waitMs: deps.actionWaitMs });
}
