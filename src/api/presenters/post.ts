import type { Post } from '../../adapters/database/entities/post.ts';
import type { PostListRow } from '../../domain/posts/list-posts.ts';
import type { PostRecord } from '../../domain/posts/read-post.ts';
import type { ObjectStorage } from '../../adapters/object-storage/object-storage.ts';
import type { Schemas } from '../schemas.ts';

/** A signed URL of the post's current image, or null before the first generation. */
export function postImageUrl(post: Pick<Post, 'imageKey'>, storage: ObjectStorage): Promise<string | null> {
  return post.imageKey ? storage.signedUrl(post.imageKey) : Promise.resolve(null);
}

export async function presentPostListItem(post: PostListRow, storage: ObjectStorage): Promise<Schemas['PostListItem']> {
  return {
    id: post.id,
    workspaceId: post.workspaceId,
    projectId: post.projectId,
    title: post.title,
    prompt: post.prompt,
    status: post.status,
    imageUrl: await postImageUrl(post, storage),
    hasVideo: post.hasVideo,
    format: post.format,
    createdAt: post.createdAt.toISOString(),
  };
}

export async function presentPost(post: PostRecord, storage: ObjectStorage): Promise<Schemas['Post']> {
  return {
    ...(await presentPostListItem(post, storage)),
    brandKitId: post.brandKitId ?? null,
    scheduledAt: post.scheduledAt?.toISOString() ?? null,
    publishedAt: post.publishedAt?.toISOString() ?? null,
    failureReason: post.failureReason ?? null,
    updatedAt: post.updatedAt.toISOString(),
  };
}

export async function presentCreatedPost(post: Post, storage: ObjectStorage): Promise<Schemas['CreatePostResponse']> {
  const { id, title, status, imageUrl, hasVideo, createdAt } = await presentPostListItem(post, storage);
  return { id, title, status, imageUrl, hasVideo, createdAt };
}

export function presentUpdatedPost(post: Post): Schemas['UpdatePostResponse'] {
  return { id: post.id, title: post.title, status: post.status, updatedAt: post.updatedAt.toISOString() };
}
