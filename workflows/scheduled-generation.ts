import { ApplicationFailure, executeChild, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { GenerationResult } from '../src/domain/generation/save-generated-image.ts';
import { seedFromId } from '../src/generation/seed.ts';
import { postSearchAttributes } from '../src/domain/posts/post-workflow-options.ts';
import { workflowIds } from '../src/temporal/workflow-ids.ts';
import { databaseWork } from './activity-options.ts';
import { failureReasonFor } from './failure-reason.ts';
import { generatePost } from './generate-post.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork). No
// customer waits for a run; overlap policy "skip" means a run held up by an outage skips firings, never piles them up.
const { createScheduledPost, recordScheduleRun } = proxyActivities<Activities>(databaseWork);

export type ScheduledGenerationResult = { postId: string } & GenerationResult;

/**
 * One firing of a customer's schedule (started by the Temporal Schedule `schedule-<id>`): creates a post in the
 * schedule's project from its prompt template and generates it with the generation workflow, as a child. A run
 * that cannot work (project deleted or archived, brand kit deleted) fails, visibly: in the Temporal UI, on the
 * schedule (`lastRunError`) and on the post when generation fails.
 */
export async function scheduledGeneration({ scheduleId }: { scheduleId: string }): Promise<ScheduledGenerationResult> {
  const postId = uuid4();
  const generationId = uuid4();
  try {
    const post = await createScheduledPost({ scheduleId, postId, runAt: new Date().toISOString() });
    const result = await executeChild(generatePost, {
      workflowId: workflowIds.postGenerate(postId),
      // Found in the Temporal UI like any other generation (runs before this was returned have no workspaceId here).
      ...(post.workspaceId ? { typedSearchAttributes: postSearchAttributes({ id: postId, workspaceId: post.workspaceId, projectId: post.projectId }), staticSummary: `Generate a 1:1 image for "${post.title}"` } : {}),
      args: [{ postId, generationId, prompt: post.prompt, promptWasNew: false, format: '1:1', seed: seedFromId(generationId) }],
    });
    await recordScheduleRun({ scheduleId, error: null });
    return { postId, ...result };
  } catch (error) {
    const reason = failureReasonFor(error, 'A scheduled run');
    await recordScheduleRun({ scheduleId, error: reason });
    throw ApplicationFailure.nonRetryable(reason, failureTypes.scheduledRunFailed);
  }
}
