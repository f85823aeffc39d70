import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BrandKit } from '../../adapters/database/entities/brand-kit.ts';
import { Post } from '../../adapters/database/entities/post.ts';
import { postDeletedMeanwhile, readWorkflowPost, type PostRecord } from './read-post.ts';

/**
 * The post a workflow's activity draws from (a generation, a render, a video), with its brand kit; a post deleted
 * meanwhile ends the workflow for good. Read-only, so the post is plain SQL (readPost says why): it is the first
 * step of every generation, render and video, and stands between the request and its answer.
 */
export async function loadPost(em: EntityManager, postId: string): Promise<{ post: PostRecord; brandKit: BrandKit | null }> {
  const post = await readWorkflowPost(em, postId);
  const brandKit = post.brandKitId ? await em.findOne(BrandKit, post.brandKitId) : null;
  return { post, brandKit };
}

/** The post a workflow's step changes through the ORM, locked until the caller's transaction ends. */
export async function loadPostForUpdate(em: EntityManager, postId: string): Promise<Post> {
  const post = await em.findOne(Post, postId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!post) throw postDeletedMeanwhile(postId);
  return post;
}
