import type { EntityManager } from '@mikro-orm/postgresql';
import { VideoJob } from '../../adapters/database/entities/video-job.ts';

/** The post's newest finished video job (the post's video), or null. */
export function latestVideoJob(em: EntityManager, postId: string): Promise<VideoJob | null> {
  return em.findOne(VideoJob, { postId, videoKey: { $ne: null } }, { orderBy: { completedAt: 'desc' } });
}
