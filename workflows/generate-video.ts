import { ActivityCancellationType, ApplicationFailure, CancellationScope, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import { databaseWork, videoEncoding } from './contracts/activity-options.ts';
import type { GeneratedVideo, GenerateVideoInput } from './contracts/generate-video.ts';
import { failureReasonFor } from './failure-reason.ts';
import { failureTypes } from '../src/adapters/temporal/failure-types.ts';

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { savePostVideo, recordVideoJobEnd } = proxyActivities<Activities>(databaseWork);

/**
 * A video job (its workflow ID is the job id): makes the post's video and attaches it to the post. How the job ended
 * is written to its row (done with the video; failed with the reason; cancelled), which answers the job once
 * Temporal no longer keeps this run. A failed job also fails the workflow with the reason in words; a cancelled
 * one (ffmpeg killed first) ends cancelled.
 */
export async function generateVideo(input: GenerateVideoInput): Promise<GeneratedVideo> {
  // Bounded: a job that cannot be made says so instead of running for ever (see videoEncoding). On the video queue,
  // whose workers bound how many encodes run at once; a cancellation waits until the activity has killed ffmpeg, so
  // "cancelled" is recorded only once nothing is encoding any more.
  const { renderPostVideo } = proxyActivities<Activities>({
    ...videoEncoding,
    taskQueue: taskQueues.video(workflowInfo().taskQueue),
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  try {
    const video = await renderPostVideo(input);
    await savePostVideo({ jobId: input.jobId, videoKey: video.videoKey, bytes: video.bytes });
    return { videoKey: video.videoKey, notes: video.notes };
  } catch (error) {
    if (isCancellation(error)) {
      await CancellationScope.nonCancellable(() => recordVideoJobEnd({ jobId: input.jobId, status: 'cancelled', error: null }));
      throw error;
    }
    const reason = failureReasonFor(error, 'A video job');
    await recordVideoJobEnd({ jobId: input.jobId, status: 'failed', error: reason });
    throw ApplicationFailure.create({ message: reason, type: failureTypes.videoFailed, nonRetryable: true, cause: error as Error });
  }
}
