import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../../data/entities/brand-kit.ts';
import { Post } from '../../data/entities/post.ts';
import { failureTypes } from '../../temporal/failure-types.ts';
import { WorkRefused } from '../work-refused.ts';

/** The post a workflow works on, with its brand kit; a post deleted meanwhile ends the workflow for good. */
export async function loadPost(em: EntityManager, postId: string, options: { lock?: boolean } = {}): Promise<{ post: Post; brandKit: BrandKit | null }> {
  const post = await em.findOne(Post, postId, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!post) throw new WorkRefused(failureTypes.postDeleted, `Post ${postId} was deleted while the work was running.`);
  const brandKit = post.brandKitId ? await em.findOne(BrandKit, post.brandKitId) : null;
  return { post, brandKit };
}
