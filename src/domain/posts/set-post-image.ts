import type { EntityManager } from '@mikro-orm/postgresql';
import type { PostFormat } from '../../adapters/artwork/post-formats.ts';

/** What a generation or a render makes current; what it leaves out (a render keeps the artwork) stays as it is. */
export type PostImage = { imageKey: string; artworkKey?: string; prompt?: string; format?: PostFormat };

/**
 * Makes the image the post's current one and the post a draft again, in the caller's transaction (which holds the
 * post's row lock, see lockPostRecord). One plain statement: this is every generation's and render's save.
 */
export async function setPostImage(em: EntityManager, postId: string, image: PostImage): Promise<void> {
  await em.execute(
    `update posts
        set image_key = ?, artwork_key = coalesce(?, artwork_key), prompt = coalesce(?, prompt), format = coalesce(?, format),
            status = 'draft', failure_reason = null, updated_at = ?
      where id = ?`,
    [image.imageKey, image.artworkKey ?? null, image.prompt ?? null, image.format ?? null, new Date(), postId],
    'run',
  );
}
