import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { allPostFormats } from '../../artwork/post-formats.ts';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToPost } from './post.ts';

const versionKinds = ['generated', 'rendered', 'restored'] as const;
export type VersionKind = (typeof versionKinds)[number];

/** One entry of a post's history: what its image, artwork, prompt and format were at that point. */
export const PostVersion = defineEntity({
  name: 'PostVersion',
  tableName: 'post_versions',
  properties: {
    ...primaryKey,
    ...belongsToPost,
    versionNumber: p.integer(),
    label: p.string().length(200),
    kind: p.enum(versionKinds),
    imageKey: p.text(),
    artworkKey: p.text().nullable(),
    prompt: p.text(),
    format: p.enum(allPostFormats),
    /** The seed the artwork was generated with (generated versions), so the same image can be made again. */
    seed: p.bigint('number').nullable(),
    /**
     * The generation, render or restore that made this version. Unique, so a retried activity that already
     * committed finds its version instead of adding a second one (exactly once).
     */
    sourceId: p.uuid().unique(),
    ...createdAt,
  },
  uniques: [{ properties: ['postId', 'versionNumber'] }],
});
export type PostVersion = InferEntity<typeof PostVersion>;
