import { ApplicationFailure, executeChild, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { seedFromId } from '../src/adapters/image-providers/seed.ts';
import { databaseWork } from './contracts/activity-options.ts';
import type { ScheduledGenerationInput, ScheduledGenerationResult } from './contracts/scheduled-generation.ts';
import { failureReasonFor } from './failure-reason.ts';
import { generatePost } from './generate-post.ts';
import { generatePostStart } from './starts/generate-post.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork). No
// customer waits for a run; overlap policy "skip" means a run held up by an outage skips firings, never piles them up.
const { createScheduledPost, recordScheduleRun } = proxyActivities<Activities>(databaseWork);

/**
 * One firing of a customer's schedule (started by the Temporal Schedule `schedule-<id>`): creates a post in the
 * schedule's project from its prompt template and generates it with the generation workflow, as a child. A run
 * that cannot work (project deleted or archived, brand kit deleted) fails, visibly: in the Temporal UI, on the
 * schedule (`lastRunError`) and on the post when generation fails.
 */
export async function scheduledGeneration({ scheduleId }: ScheduledGenerationInput): Promise<ScheduledGenerationResult> {
  const postId = uuid4();
  const generationId = uuid4();
  try {
    const post = await createScheduledPost({ scheduleId, postId, runAt: new Date().toISOString() });
    const result = await executeChild(
      generatePost,
      generatePostStart(
        { id: postId, workspaceId: post.workspaceId, projectId: post.projectId, title: post.title },
        { generationId, prompt: post.prompt, promptWasNew: false, format: '1:1', seed: seedFromId(generationId), imageRunsLocally: post.imageRunsLocally },
      ),
    );
    await recordScheduleRun({ scheduleId, error: null });
    return { postId, ...result };
  } catch (error) {
    const reason = failureReasonFor(error, 'A scheduled run');
    await recordScheduleRun({ scheduleId, error: reason });
    throw ApplicationFailure.nonRetryable(reason, failureTypes.scheduledRunFailed);
  }
}
