import type { EntityManager } from '@mikro-orm/postgresql';
import type { Post } from '../../data/entities/post.ts';
import { PostVersion, type VersionKind } from '../../data/entities/post-version.ts';

/**
 * Adds the post's next numbered version from its current state. The caller holds the post's row lock, which
 * keeps numbering gap-free and in order when generations, renders and restores race.
 */
export async function appendVersion(
  em: EntityManager,
  post: Post,
  version: { kind: VersionKind; label: string; sourceId: string; seed?: number | null },
): Promise<PostVersion> {
  const [row] = await em.execute<Array<{ last: number | null }>>('select max(version_number) as last from post_versions where post_id = ?', [post.id]);
  return em.create(PostVersion, {
    postId: post.id,
    versionNumber: (row?.last ?? 0) + 1,
    label: version.label,
    kind: version.kind,
    imageKey: post.imageKey ?? '',
    artworkKey: post.artworkKey ?? null,
    prompt: post.prompt,
    format: post.format,
    sourceId: version.sourceId,
    seed: version.seed ?? null,
  });
}
