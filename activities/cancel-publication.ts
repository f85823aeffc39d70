import { LockMode } from '@mikro-orm/postgresql';
import { Post } from '../src/data/entities/post.ts';
import { PublishTarget } from '../src/data/entities/publish-target.ts';
import type { ActivityDeps } from './index.ts';

/** A cancelled publication: its targets become `Cancelled`, and a scheduled post goes back to `draft`. */
export async function cancelPublication(deps: ActivityDeps, input: { postId: string; publicationId: string }): Promise<void> {
  await deps.orm.em.fork().transactional(async (em) => {
    await em.nativeUpdate(
      PublishTarget,
      { publicationId: input.publicationId, status: { $in: ['Pending', 'Scheduled'] } },
      { status: 'Cancelled', updatedAt: new Date() },
    );
    const post = await em.findOne(Post, input.postId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (post?.status === 'scheduled') Object.assign(post, { status: 'draft', scheduledAt: null, updatedAt: new Date() });
  });
}
