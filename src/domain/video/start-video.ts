import type { EntityManager } from '@mikro-orm/postgresql';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { describeWorkflow, startWorkflow } from '../../adapters/temporal/workflow-gateway.ts';
import { workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { generateVideo } from '../../../workflows/generate-video.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findPost } from '../find-in-workspace.ts';
import { postSearchAttributes } from '../../adapters/temporal/search-attributes.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { planRules, requireVideoSlot } from '../workspaces/plans.ts';
import { readJobState } from './video-job-state.ts';

/**
 * Starts a video of the post (dashboard only). The job row commits before the workflow starts, so the workflow
 * always finds it; if Temporal does not take the start, the row is taken back and the caller gets 503. Not hearing
 * back is not the same as not taking it (the answer can be lost on the way): Temporal is asked whether the job's
 * run exists before the row is taken back, and when it does the start is answered as made; when Temporal cannot
 * say, the row stays and reads as failed if the run never began. One video
 * per post at a time: a second start while one is being made answers 409 naming the running job. And no more videos
 * being made at once in the workspace than its plan allows (the ffmpeg queue is shared by every tenant): 429 with
 * Retry-After, counted under the workspace's lock so that concurrent starts cannot both take the last place.
 */
export async function startVideo(deps: Deps, caller: Caller, postId: string): Promise<VideoJob> {
  const { job, post } = await deps.orm.em.fork().transactional(async (em) => {
    const { plan } = await lockWorkspace(em, caller.workspaceId);
    const found = await findPost(em, caller.workspaceId, postId, { lock: true });
    if (!found.artworkKey && !found.imageKey) throw new AppError('conflict', `Post ${found.id} has no image yet; generate it before making a video.`);
    const previous = await em.findOne(VideoJob, { postId: found.id, status: { $in: ['queued', 'running'] } }, { orderBy: { createdAt: 'desc' } });
    if (previous) {
      const state = await readJobState(deps.temporal, previous, 'report the running video job');
      if (state.status === 'queued' || state.status === 'running') {
        throw new AppError('conflict', `A video of post ${found.id} is already being made (job ${previous.id}); wait for it to finish.`);
      }
    }
    requireVideoSlot(plan, await videosBeingMade(deps, em, caller.workspaceId, planRules[plan].limits.concurrentVideos));
    return { job: em.create(VideoJob, { workspaceId: caller.workspaceId, postId: found.id, format: found.format }), post: found };
  });

  try {
    await startWorkflow(
      deps.temporal,
      generateVideo,
      {
        workflowId: workflowIds.videoJob(job.id),
        taskQueue: deps.taskQueue,
        args: [{ jobId: job.id }],
        staticSummary: `Video of "${post.title}" (${post.format})`,
        typedSearchAttributes: postSearchAttributes(post),
      },
      'the video',
    );
  } catch (error) {
    const run = await startOf(deps, job.id);
    if (run === 'started') return job;
    // When Temporal cannot say either, the row stays: a job whose run never began reads as failed (readJobState).
    if (run === 'not started') await deps.orm.em.fork().nativeDelete(VideoJob, { id: job.id });
    throw error;
  }
  return job;
}

/** Whether Temporal has the job's run, as it says when asked. */
async function startOf(deps: Deps, jobId: string): Promise<'started' | 'not started' | 'unknown'> {
  try {
    return (await describeWorkflow(deps.temporal, workflowIds.videoJob(jobId), 'report the video start')) ? 'started' : 'not started';
  } catch {
    return 'unknown';
  }
}

// Longer than any start takes (one Temporal deadline, after which a failed start takes its row back).
const startInFlightMs = 60_000;

/**
 * The workspace's jobs whose rows say they are queued or running. Only when they would fill the plan is Temporal
 * asked about each: a job whose run was terminated never records its end, and must not hold a place for ever. A
 * job with no run yet is one whose start is on its way (its row commits first), unless the row is too old for that.
 */
async function videosBeingMade(deps: Deps, em: EntityManager, workspaceId: string, limit: number | null): Promise<number> {
  const unfinished = await em.find(VideoJob, { workspaceId, status: { $in: ['queued', 'running'] } });
  if (limit === null || unfinished.length < limit) return unfinished.length;
  let counted = 0;
  for (const job of unfinished) {
    const run = await describeWorkflow(deps.temporal, workflowIds.videoJob(job.id), 'count the videos being made');
    const beingMade = run ? run.status.name === 'RUNNING' : Date.now() - job.createdAt.getTime() < startInFlightMs;
    if (beingMade) counted += 1;
  }
  return counted;
}
