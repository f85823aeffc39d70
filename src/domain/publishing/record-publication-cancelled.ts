import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Post } from '../../adapters/database/entities/post.ts';
import { PublishTarget } from '../../adapters/database/entities/publish-target.ts';

export type PublicationRef = { postId: string; publicationId: string };

/**
 * Records a cancelled publication, in the caller's transaction: its targets become `Cancelled`, and a scheduled post
 * goes back to `draft`.
 */
export async function recordPublicationCancelled(em: EntityManager, input: PublicationRef): Promise<void> {
  await em.nativeUpdate(
    PublishTarget,
    { publicationId: input.publicationId, status: { $in: ['Pending', 'Scheduled'] } },
    { status: 'Cancelled', updatedAt: new Date() },
  );
  const post = await em.findOne(Post, input.postId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (post?.status === 'scheduled') Object.assign(post, { status: 'draft', scheduledAt: null, updatedAt: new Date() });
}
