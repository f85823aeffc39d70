import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Post } from '../../adapters/database/entities/post.ts';
import { storableReason } from '../../common/validation/storable-text.ts';
import { recordPostEvent } from '../events/post-event.ts';

export type MarkPostFailedInput = { postId: string; reason: string; sourceId: string };

/**
 * The post becomes `failed` with the reason shown on it, and a `post.failed` event is recorded for webhooks, in the
 * caller's transaction. Returns the event's id (none when the post was deleted meanwhile).
 */
export async function markPostFailed(em: EntityManager, input: MarkPostFailedInput): Promise<{ eventId: string | null }> {
  const post = await em.findOne(Post, input.postId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!post) return { eventId: null };
  // The reason may quote the provider's own words.
  const reason = storableReason(input.reason);
  post.status = 'failed';
  post.failureReason = reason;
  post.updatedAt = new Date();
  const event = await recordPostEvent(em, post, { type: 'post.failed', sourceId: input.sourceId, reason });
  return { eventId: event.id };
}
