import type { Post } from '../../adapters/database/entities/post.ts';
import type { PostVersion } from '../../adapters/database/entities/post-version.ts';
import type { ObjectStorage } from '../../adapters/object-storage/object-storage.ts';
import type { Schemas } from '../schemas.ts';
import { postImageUrl } from './post.ts';

export async function presentPostVersion(version: PostVersion, storage: ObjectStorage): Promise<Schemas['PostVersion']> {
  return {
    id: version.id,
    versionNumber: version.versionNumber,
    label: version.label,
    kind: version.kind,
    imageUrl: await storage.signedUrl(version.imageKey),
    createdAt: version.createdAt.toISOString(),
  };
}

/** The post after a restore: its image is the restored version's. */
export async function presentRestoredPost(post: Post, storage: ObjectStorage): Promise<Schemas['RestorePostVersionResponse']> {
  return { id: post.id, status: post.status, imageUrl: (await postImageUrl(post, storage)) ?? '', updatedAt: post.updatedAt.toISOString() };
}
