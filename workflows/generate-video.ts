import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { databaseWork } from './activity-options.ts';

// Encoding takes seconds to a minute; the heartbeat (every progress step) shows a dead worker within 10 s, and
// the video is then made again from the start on another attempt. A refusal (no image, ffmpeg rejecting the
// input) is final. Bounded (3 attempts): a job that cannot be made says so instead of running for ever.
const { renderPostVideo } = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
});

// Database work: unbounded only while the database is down (anything else fails at once, see databaseWork).
const { savePostVideo } = proxyActivities<Activities>(databaseWork);

export type GenerateVideoInput = { jobId: string };
export type GeneratedVideo = { videoKey: string; notes: string[] };

/**
 * A video job (its workflow ID is the job id): makes the post's video and attaches it to the post. When it fails,
 * the workflow fails with the reason in words, which the job's `error` shows.
 */
export async function generateVideo(input: GenerateVideoInput): Promise<GeneratedVideo> {
  try {
    const video = await renderPostVideo(input);
    await savePostVideo({ jobId: input.jobId, videoKey: video.videoKey, bytes: video.bytes });
    return { videoKey: video.videoKey, notes: video.notes };
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw ApplicationFailure.nonRetryable(reason, 'VideoFailed');
  }
}
