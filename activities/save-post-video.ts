import { ApplicationFailure } from '@temporalio/activity';
import { LockMode } from '@mikro-orm/postgresql';
import { VideoJob } from '../src/data/entities/video-job.ts';
import { claimObjectKey } from '../src/domain/storage/orphaned-objects.ts';
import { recordUsage } from '../src/domain/usage/record-usage.ts';
import type { ActivityDeps } from './index.ts';
import { loadPost } from './load-post.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

export type SavePostVideoInput = { jobId: string; videoKey: string; bytes: number };

/** Attaches the stored video to its post: the job (done), `hasVideo` and the usage item commit together, exactly once. */
export async function savePostVideo(deps: ActivityDeps, input: SavePostVideoInput): Promise<{ videoKey: string }> {
  return deps.orm.em.fork().transactional(async (em) => {
    const job = await em.findOne(VideoJob, input.jobId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!job) throw ApplicationFailure.nonRetryable(`Video job ${input.jobId} no longer exists (its post was deleted).`, failureTypes.jobDeleted);
    if (job.videoKey) return { videoKey: job.videoKey };

    const { post } = await loadPost(em, job.postId, { lock: true });
    if (!(await claimObjectKey(em, input.videoKey))) {
      throw ApplicationFailure.nonRetryable('The video expired before it could be saved; start it again.', failureTypes.videoExpired);
    }
    // Done wins over an end recorded meanwhile (a cancel that came after the video was stored): the video exists.
    Object.assign(job, { videoKey: input.videoKey, status: 'done', progress: 100, error: null, completedAt: new Date() });
    Object.assign(post, { hasVideo: true, updatedAt: new Date() });
    const size = (input.bytes / (1024 * 1024)).toFixed(1);
    recordUsage(em, { workspaceId: post.workspaceId, type: 'VideoGeneration', description: `Made a ${job.format} video of "${post.title}" (${size} MB).`, postId: post.id });
    return { videoKey: input.videoKey };
  });
}
