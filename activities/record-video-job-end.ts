import { VideoJob } from '../src/data/entities/video-job.ts';
import type { ActivityDeps } from './index.ts';

export type RecordVideoJobEndInput = { jobId: string; status: 'failed' | 'cancelled'; error: string | null };

/**
 * Writes how a job ended without a video, so the job is answered from its row after Temporal has dropped the
 * workflow. A job already done keeps that (its video was saved); a deleted job (its post was deleted) has no row.
 */
export async function recordVideoJobEnd(deps: ActivityDeps, input: RecordVideoJobEndInput): Promise<void> {
  await deps.orm.em.fork().nativeUpdate(
    VideoJob,
    { id: input.jobId, status: { $in: ['queued', 'running'] } },
    { status: input.status, error: input.error, completedAt: new Date() },
  );
}
