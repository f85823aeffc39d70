import { LockMode } from '@mikro-orm/postgresql';
import { Post } from '../src/data/entities/post.ts';
import { recordEvent } from '../src/domain/events/record-event.ts';
import type { ActivityDeps } from './index.ts';

export type MarkPostFailedInput = { postId: string; reason: string };

/** The post becomes `failed` with the reason shown on it, and a `post.failed` event is recorded for webhooks. */
export async function markPostFailed(deps: ActivityDeps, input: MarkPostFailedInput): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    const post = await em.findOne(Post, input.postId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    // Done already (a retry after the commit): no second event.
    if (!post || (post.status === 'failed' && post.failureReason === input.reason)) return;
    post.status = 'failed';
    post.failureReason = input.reason;
    post.updatedAt = new Date();
    recordEvent(em, { workspaceId: post.workspaceId, type: 'post.failed', postId: post.id, details: { reason: input.reason } });
  });
}
