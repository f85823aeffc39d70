import type { Post } from '../../adapters/database/entities/post.ts';
import type { PublishTarget } from '../../adapters/database/entities/publish-target.ts';
import type { Schemas } from '../schemas.ts';

export function presentPublishTarget(target: PublishTarget): Schemas['PublishTarget'] {
  return {
    id: target.id,
    connectionId: target.connectionId,
    platform: target.platform,
    status: target.status,
    externalPostId: target.externalPostId ?? null,
    externalUrl: target.externalUrl ?? null,
    errorMessage: target.errorMessage ?? null,
    scheduledAt: target.scheduledAt?.toISOString() ?? null,
    publishedAt: target.publishedAt?.toISOString() ?? null,
    createdAt: target.createdAt.toISOString(),
  };
}

export function presentPublishedPost(post: Pick<Post, 'id' | 'status' | 'publishedAt'>): Schemas['PublishPostResponse'] {
  return { id: post.id, status: post.status, publishedAt: post.publishedAt?.toISOString() ?? null };
}

/** `scheduledAt`: the time asked for, shown while the post's row does not have it yet. */
export function presentScheduledPost(post: Post, scheduledAt: string): Schemas['SchedulePostResponse'] {
  return { id: post.id, status: post.status, scheduledAt: post.scheduledAt?.toISOString() ?? scheduledAt };
}
