import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { videoSeconds } from '../../adapters/video-encoding/encode-post-video.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { loadPostForUpdate } from '../posts/load-post.ts';
import { claimObjectKey } from '../storage/orphaned-objects.ts';
import { recordUsage } from '../usage/record-usage.ts';
import { WorkRefused } from '../work-refused.ts';

export type SavePostVideoInput = { jobId: string; videoKey: string; bytes: number };

/**
 * Attaches the stored video to its post, in the caller's transaction: the job (done), `hasVideo` and the usage item
 * commit together, exactly once.
 */
export async function savePostVideo(em: EntityManager, input: SavePostVideoInput): Promise<{ videoKey: string }> {
  const job = await em.findOne(VideoJob, input.jobId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!job) throw videoJobDeleted(input.jobId);
  if (job.videoKey) return { videoKey: job.videoKey };

  const post = await loadPostForUpdate(em, job.postId);
  if (!(await claimObjectKey(em, input.videoKey))) {
    throw new WorkRefused(failureTypes.videoExpired, 'The video expired before it could be saved; start it again.');
  }
  // Done wins over an end recorded meanwhile (a cancel that came after the video was stored): the video exists.
  Object.assign(job, {
    videoKey: input.videoKey,
    videoBytes: input.bytes,
    durationMs: videoSeconds * 1000,
    status: 'done',
    progress: 100,
    error: null,
    completedAt: new Date(),
  });
  Object.assign(post, { hasVideo: true, updatedAt: new Date() });
  const size = (input.bytes / (1024 * 1024)).toFixed(1);
  recordUsage(em, {
    workspaceId: post.workspaceId,
    type: 'VideoGeneration',
    description: `Made a ${job.format} video of "${post.title}" (${size} MB).`,
    postId: post.id,
  });
  return { videoKey: input.videoKey };
}

/** A job deleted while its video was made (its post was deleted): the job ends for good. */
export function videoJobDeleted(jobId: string): WorkRefused {
  return new WorkRefused(failureTypes.jobDeleted, `Video job ${jobId} no longer exists (its post was deleted).`);
}
