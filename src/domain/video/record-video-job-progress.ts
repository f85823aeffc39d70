import type { EntityManager } from '@mikro-orm/postgresql';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';

/**
 * Keeps a running job's progress in its row (one statement): what stays when the job fails or is cancelled, or
 * Temporal no longer keeps it. Only a running row is written, so a late write never changes an end.
 */
export async function recordVideoJobProgress(em: EntityManager, jobId: string, percent: number): Promise<void> {
  await em.nativeUpdate(VideoJob, { id: jobId, status: 'running' }, { progress: percent });
}
