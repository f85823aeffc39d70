import { ApplicationFailure } from '@temporalio/activity';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../src/data/entities/brand-kit.ts';
import { Post } from '../src/data/entities/post.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

/** The post a workflow works on, with its brand kit; a post deleted meanwhile ends the workflow for good. */
export async function loadPost(em: EntityManager, postId: string, options: { lock?: boolean } = {}): Promise<{ post: Post; brandKit: BrandKit | null }> {
  const post = await em.findOne(Post, postId, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!post) throw ApplicationFailure.nonRetryable(`Post ${postId} was deleted while the work was running.`, failureTypes.postDeleted);
  const brandKit = post.brandKitId ? await em.findOne(BrandKit, post.brandKitId) : null;
  return { post, brandKit };
}
