import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Post } from '../../adapters/database/entities/post.ts';
import { notFound } from '../../common/errors/app-error.ts';

/** The caller's post or a 404; another workspace's post is indistinguishable from a missing one. */
export async function findPost(em: EntityManager, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<Post> {
  const post = await em.findOne(Post, { id, workspaceId }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!post) throw notFound(`Post ${id}`);
  return post;
}
