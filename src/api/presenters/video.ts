import type { VideoJob } from '../../adapters/database/entities/video-job.ts';
import type { VideoJobView } from '../../domain/video/get-video-job.ts';
import type { Schemas } from '../schemas.ts';

export function presentVideoJob(job: VideoJobView): Schemas['VideoJob'] {
  return { ...job, completedAt: job.completedAt?.toISOString() ?? null };
}

/** A started job, as the dashboard's own API answers it (not part of openapi.yaml): the id to poll. */
export function presentStartedVideoJob(job: VideoJob): { jobId: string } {
  return { jobId: job.id };
}

export function presentVideoUrl({ url, expiresAt }: { url: string; expiresAt: Date }): Schemas['VideoPresignedUrl'] {
  return { url, expiresAt: expiresAt.toISOString() };
}
