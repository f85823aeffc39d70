import { WorkflowFailedError, WorkflowNotFoundError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
// A CommonJS module: Node's ESM loader offers it as a default export only.
import proto from '@temporalio/proto';
import type { VideoJob } from '../../data/entities/video-job.ts';
import { postFormats } from '../../images/post-formats.ts';
import { workflowIds } from '../../temporal/workflow-ids.ts';
import { describeProgress, type VideoProgress } from '../../video/video-progress.ts';
import { videoSeconds } from '../../video/encode-post-video.ts';

export type VideoJobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export type VideoJobState = { status: VideoJobStatus; message: string; error: string | null };

const { PENDING_ACTIVITY_STATE_SCHEDULED } = proto.temporal.api.enums.v1.PendingActivityState;

/**
 * A job's status as Temporal sees its workflow: waiting for a worker (`queued`), working (`running`, with the
 * activity's last progress report), `done`, `failed` (with the reason) or `cancelled`. A job our record shows
 * finished is `done` even after Temporal has dropped the workflow's history (retention).
 */
export async function readJobState(client: Client, job: VideoJob): Promise<VideoJobState> {
  if (job.completedAt && job.videoKey) return done(job);
  const handle = client.workflow.getHandle(workflowIds.videoJob(job.id));
  let description: WorkflowExecutionDescription;
  try {
    description = await handle.describe();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return { status: 'failed', message: 'The job ended without a video.', error: 'Its workflow was never started or is no longer kept by Temporal.' };
  }

  switch (description.status.name) {
    case 'RUNNING':
      return runningState(description);
    case 'COMPLETED':
      // The save committed (that is the workflow's last step), but our record was read just before: say done.
      return done(job);
    case 'CANCELLED':
      return { status: 'cancelled', message: 'The job was cancelled.', error: null };
    case 'TERMINATED':
      return { status: 'failed', message: 'The job was stopped.', error: 'An operator terminated the workflow.' };
    case 'TIMED_OUT':
      return { status: 'failed', message: 'The job took too long.', error: 'The workflow timed out.' };
    default:
      return { status: 'failed', message: 'The video could not be made.', error: await failureOf(handle) };
  }
}

function runningState(description: WorkflowExecutionDescription): VideoJobState {
  const activity = description.raw.pendingActivities?.[0];
  if (!activity || (activity.state === PENDING_ACTIVITY_STATE_SCHEDULED && (activity.attempt ?? 1) <= 1)) {
    return { status: 'queued', message: 'Waiting for a worker.', error: null };
  }
  if (activity.activityType?.name === 'savePostVideo') return { status: 'running', message: 'Saving the video', error: null };
  const payload = activity.heartbeatDetails?.payloads?.[0];
  const progress = payload ? defaultPayloadConverter.fromPayload<VideoProgress>(payload) : undefined;
  const retry = (activity.attempt ?? 1) > 1 ? ` (attempt ${activity.attempt}, after: ${activity.lastFailure?.message ?? 'an error'})` : '';
  return { status: 'running', message: `${describeProgress(progress)}${retry}`, error: null };
}

function done(job: VideoJob): VideoJobState {
  const { width, height } = postFormats[job.format];
  return { status: 'done', message: `Done: a ${videoSeconds}-second ${width}×${height} video.`, error: null };
}

async function failureOf(handle: { result(): Promise<unknown> }): Promise<string> {
  try {
    await handle.result();
    return 'The workflow ended without a result.';
  } catch (error) {
    if (error instanceof WorkflowFailedError) return error.cause?.message ?? error.message;
    throw error;
  }
}
