import type { EntityManager } from '@mikro-orm/postgresql';
import type { VersionKind } from '../../adapters/database/entities/post-version.ts';
import { newId } from '../../adapters/database/new-id.ts';
import type { PostFormat } from '../../adapters/artwork/post-formats.ts';

export type NewVersion = {
  postId: string;
  kind: VersionKind;
  label: string;
  /** The work that made it (a generation, a render, a restore): at most one version per source. */
  sourceId: string;
  seed?: number | null;
  /** The post's state that the version keeps. */
  imageKey: string;
  artworkKey: string | null;
  prompt: string;
  format: PostFormat;
};

// Both in plain SQL: they sit on every generation's and render's save, where the ORM's lookups and flush cost
// about twice the CPU of the save they are now part of (see save-generated-image.ts).

/**
 * Adds the post's next numbered version and answers its number, in one statement. The caller holds the post's
 * row lock, which keeps numbering gap-free and in order when generations, renders and restores race.
 */
export async function appendVersion(em: EntityManager, version: NewVersion): Promise<number> {
  const [row] = await em.execute<Array<{ version_number: number }>>(
    `insert into post_versions (id, post_id, version_number, label, kind, image_key, artwork_key, prompt, format, source_id, seed, created_at)
     select ?, ?, coalesce(max(version_number), 0) + 1, ?, ?, ?, ?, ?, ?, ?, ?, ?
       from post_versions where post_id = ?
     returning version_number`,
    [
      newId(),
      version.postId,
      version.label,
      version.kind,
      version.imageKey,
      version.artworkKey,
      version.prompt,
      version.format,
      version.sourceId,
      version.seed ?? null,
      new Date(),
      version.postId,
    ],
  );
  return row!.version_number;
}

/** The number of the version that `sourceId`'s work saved, if it saved one: what makes a retried save answer the same. */
export async function savedVersionNumber(em: EntityManager, sourceId: string): Promise<number | undefined> {
  const [row] = await em.execute<Array<{ version_number: number }>>('select version_number from post_versions where source_id = ?', [sourceId]);
  return row?.version_number;
}
