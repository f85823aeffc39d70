import type { Post } from '../../adapters/database/entities/post.ts';
import type { PublishTargetAttempt } from '../../adapters/database/entities/publish-target-attempt.ts';
import type { TargetWithAttempts } from '../../domain/publishing/target-attempts.ts';
import type { Schemas } from '../schemas.ts';

function presentAttempt(attempt: PublishTargetAttempt): Schemas['PublishAttempt'] {
  return {
    at: attempt.attemptedAt.toISOString(),
    outcome: attempt.outcome,
    detail: attempt.detail,
    nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
    answers: attempt.answers ?? null,
  };
}

export function presentPublishTarget({ target, attempts }: TargetWithAttempts): Schemas['PublishTarget'] {
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
    attempts: attempts.map(presentAttempt),
  };
}

export function presentPublishedPost(post: Pick<Post, 'id' | 'status' | 'publishedAt'>): Schemas['PublishPostResponse'] {
  return { id: post.id, status: post.status, publishedAt: post.publishedAt?.toISOString() ?? null };
}

/** `scheduledAt`: the time asked for, shown while the post's row does not have it yet. */
export function presentScheduledPost(post: Post, scheduledAt: string): Schemas['SchedulePostResponse'] {
  return { id: post.id, status: post.status, scheduledAt: post.scheduledAt?.toISOString() ?? scheduledAt };
}
