import type { VideoJobView } from '../../domain/video/get-video-job.ts';
import type { Schemas } from '../schemas.ts';

export function presentVideoJob(job: VideoJobView): Schemas['VideoJob'] {
  return { ...job, completedAt: job.completedAt?.toISOString() ?? null };
}
