import { WorkflowFailedError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
// A CommonJS module: Node's ESM loader offers it as a default export only.
import proto from '@temporalio/proto';
import type { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { postFormats } from '../../adapters/artwork/post-formats.ts';
import { failureReasonOf, failureReasonOfDescribed } from '../../adapters/temporal/failure-reasons.ts';
import { describeWorkflow, inTemporal, temporalDeadline } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { describeProgress, type VideoProgress } from '../../adapters/video-encoding/video-progress.ts';
import { videoSeconds } from '../../adapters/video-encoding/encode-post-video.ts';

type VideoJobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
/** `progress`: 0 to 100, the share of frames encoded (100 once encoded); `completedAt`: when the job ended. */
export type VideoJobState = { status: VideoJobStatus; message: string; error: string | null; progress: number; completedAt: Date | null };

const { PENDING_ACTIVITY_STATE_SCHEDULED } = proto.temporal.api.enums.v1.PendingActivityState;

/**
 * A job's status. A job whose row says how it ended (written by its workflow) is answered from the row alone, also
 * after Temporal has dropped the workflow's history (retention). Otherwise it is asked of the workflow: waiting for
 * a worker (`queued`), working (`running`, with the activity's last progress report), or ended without the row
 * saying so yet (a moment before the write commits; a terminated or
 * timed-out run, which runs no code of ours). A row that never says how the job ended, whose workflow Temporal no
 * longer keeps, is a job that failed without a word: `failed`, saying so.
 */
export async function readJobState(client: Client, job: VideoJob, purpose = 'report the video job'): Promise<VideoJobState> {
  const recorded = recordedEnd(job);
  if (recorded) return recorded;
  const workflowId = workflowIds.videoJob(job.id);
  // One deadline for both questions to Temporal (see temporalDeadline).
  const deadline = temporalDeadline(client);
  const description = await describeWorkflow(client, workflowId, purpose, deadline);
  if (!description) {
    const never = job.status === 'queued' ? 'was never started, or ' : '';
    return ended(job, 'failed', 'The job ended without a video.', `Its workflow ${never}ended without recording how, and is no longer kept by Temporal.`, null);
  }

  const closedAt = description.closeTime ?? null;
  switch (description.status.name) {
    case 'RUNNING':
      return runningState(description, job);
    case 'COMPLETED':
      // The save committed (that is the workflow's last step), but our record was read just before: say done.
      return { ...done(job), completedAt: closedAt };
    case 'CANCELLED':
      return ended(job, 'cancelled', 'The job was cancelled.', null, closedAt);
    case 'TERMINATED':
      return ended(job, 'failed', 'The job was stopped.', 'An operator terminated the workflow.', closedAt);
    case 'TIMED_OUT':
      return ended(job, 'failed', 'The job took too long.', 'The workflow timed out.', closedAt);
    default:
      return ended(
        job,
        'failed',
        'The video could not be made.',
        await inTemporal(client, purpose, () => failureOf(client.workflow.getHandle(workflowId)), deadline),
        closedAt,
      );
  }
}

/** What the row says of a job that has ended, or undefined while it has not. */
function recordedEnd(job: VideoJob): VideoJobState | undefined {
  switch (job.status) {
    case 'done':
      return done(job);
    case 'failed':
      return ended(job, 'failed', 'The video could not be made.', job.error, job.completedAt);
    case 'cancelled':
      return ended(job, 'cancelled', 'The job was cancelled.', null, job.completedAt);
    default:
      return undefined;
  }
}

function runningState(description: WorkflowExecutionDescription, job: VideoJob): VideoJobState {
  const activity = description.raw.pendingActivities?.[0];
  // Between encoding and saving no activity is pending either; the row, marked running by the encode, tells.
  const saving = { status: 'running', message: 'Saving the video', error: null, progress: 100, completedAt: null } as const;
  if (!activity && job.status === 'running') return saving;
  if (!activity || (activity.state === PENDING_ACTIVITY_STATE_SCHEDULED && (activity.attempt ?? 1) <= 1)) {
    return { status: 'queued', message: 'Waiting for a worker.', error: null, progress: 0, completedAt: null };
  }
  if (activity.activityType?.name === 'savePostVideo') return saving;
  const payload = activity.heartbeatDetails?.payloads?.[0];
  const progress = payload ? defaultPayloadConverter.fromPayload<VideoProgress>(payload) : undefined;
  // A retried attempt makes the video again from the start: its progress starts again at 0, and the message says why.
  // Why the last attempt failed, in the words a client may read (never the failure's own message).
  const after = activity.lastFailure ? failureReasonOfDescribed(activity.lastFailure).replace(/\.$/, '') : 'an error';
  const retry = (activity.attempt ?? 1) > 1 ? ` (attempt ${activity.attempt}, after: ${after})` : '';
  return { status: 'running', message: `${describeProgress(progress)}${retry}`, error: null, progress: progress?.percent ?? 0, completedAt: null };
}

function done(job: VideoJob): VideoJobState {
  const { width, height } = postFormats[job.format];
  return {
    status: 'done',
    message: `Done: a ${videoSeconds}-second ${width}×${height} video.`,
    error: null,
    progress: 100,
    completedAt: job.completedAt ?? null,
  };
}

/** Ended without a video: the progress is how far the last attempt got, as the row recorded it. */
function ended(
  job: VideoJob,
  status: 'failed' | 'cancelled',
  message: string,
  error: string | null | undefined,
  completedAt: Date | null | undefined,
): VideoJobState {
  return { status, message, error: error ?? null, progress: job.progress, completedAt: completedAt ?? null };
}

async function failureOf(handle: { result(): Promise<unknown> }): Promise<string> {
  try {
    await handle.result();
    return 'The workflow ended without a result.';
  } catch (error) {
    if (error instanceof WorkflowFailedError) return failureReasonOf(error.cause);
    throw error;
  }
}
