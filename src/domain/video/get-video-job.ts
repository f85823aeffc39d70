import { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { notFound } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { readJobState, type VideoJobState } from './video-job-state.ts';

export type VideoJobView = VideoJobState & { jobId: string; postId: string; videoUrl: string | null };

/** A job of the caller's workspace (checked on our record, not the workflow), with its state from Temporal. */
export async function getVideoJob(deps: Deps, caller: Caller, jobId: string): Promise<VideoJobView> {
  const job = await deps.orm.em.fork().findOne(VideoJob, { id: jobId, workspaceId: caller.workspaceId });
  if (!job) throw notFound(`Video job ${jobId}`);
  const state = await readJobState(deps.temporal, job);
  // A job Temporal reports done a moment before our record shows the video is read again for its key.
  const videoKey = state.status === 'done' ? (job.videoKey ?? (await deps.orm.em.fork().findOne(VideoJob, job.id))?.videoKey) : null;
  return { ...state, jobId: job.id, postId: job.postId, videoUrl: videoKey ? await deps.storage.signedUrl(videoKey) : null };
}
