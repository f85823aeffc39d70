import type { Post } from '../../adapters/database/entities/post.ts';
import type { PublishTargetAttempt } from '../../adapters/database/entities/publish-target-attempt.ts';
import type { PublishTargetPart } from '../../adapters/database/entities/publish-target-part.ts';
import type { TargetWithAttempts } from '../../domain/publishing/target-attempts.ts';
import type { Schemas } from '../schemas.ts';

/** `thread`: the target is posted as a thread, whose attempts each name their part. */
function presentAttempt(attempt: PublishTargetAttempt, thread: boolean): Schemas['PublishAttempt'] {
  return {
    at: attempt.attemptedAt.toISOString(),
    outcome: attempt.outcome,
    detail: attempt.detail,
    nextAttemptAt: attempt.nextAttemptAt?.toISOString() ?? null,
    ...(thread ? { part: attempt.part } : {}),
    answers: attempt.answers ?? null,
  };
}

function presentPart(part: PublishTargetPart): Schemas['PublishedPart'] {
  return { part: part.part, externalPostId: part.externalPostId, externalUrl: part.externalUrl ?? null, publishedAt: part.publishedAt.toISOString() };
}

export function presentPublishTarget({ target, attempts, parts }: TargetWithAttempts): Schemas['PublishTarget'] {
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
    attempts: attempts.map((attempt) => presentAttempt(attempt, target.thread)),
    ...(target.thread ? { thread: true, parts: parts.map(presentPart) } : {}),
  };
}

export function presentPublishedPost(post: Pick<Post, 'id' | 'status' | 'publishedAt'>): Schemas['PublishPostResponse'] {
  return { id: post.id, status: post.status, publishedAt: post.publishedAt?.toISOString() ?? null };
}

/** `scheduledAt`: the time asked for, shown while the post's row does not have it yet. */
export function presentScheduledPost(post: Post, scheduledAt: string): Schemas['SchedulePostResponse'] {
  return { id: post.id, status: post.status, scheduledAt: post.scheduledAt?.toISOString() ?? scheduledAt };
}
