import type { EntityManager } from '@mikro-orm/postgresql';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';
import { videoJobDeleted } from './save-post-video.ts';

/**
 * An attempt at the job's video begins: a job still under way is `running` from 0% again (each attempt makes the
 * video from the start), and one already ended keeps its end. Returns the job; a deleted job ends the work for good.
 */
export async function beginVideoAttempt(em: EntityManager, jobId: string): Promise<VideoJob> {
  const job = await em.findOne(VideoJob, jobId);
  if (!job) throw videoJobDeleted(jobId);
  await em.nativeUpdate(VideoJob, { id: job.id, status: { $in: ['queued', 'running'] } }, { status: 'running', progress: 0 });
  return job;
}
