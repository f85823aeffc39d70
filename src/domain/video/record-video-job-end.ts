import type { EntityManager } from '@mikro-orm/postgresql';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';

export type VideoJobEnd = { jobId: string; status: 'failed' | 'cancelled'; error: string | null };

/**
 * Writes how a job ended without a video (one statement), so the job is answered from its row after Temporal has
 * dropped the workflow. A job already done keeps that (its video was saved); a deleted job (its post was deleted) has
 * no row.
 */
export async function recordVideoJobEnd(em: EntityManager, input: VideoJobEnd): Promise<void> {
  await em.nativeUpdate(
    VideoJob,
    { id: input.jobId, status: { $in: ['queued', 'running'] } },
    { status: input.status, error: input.error, completedAt: new Date() },
  );
}
