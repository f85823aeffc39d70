import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { allPostFormats } from '../../artwork/post-formats.ts';
import { BrandKit } from './brand-kit.ts';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { Project } from './project.ts';
import { belongsToWorkspace } from './workspace.ts';

const postStatuses = ['draft', 'scheduled', 'published', 'failed'] as const;
export type PostStatus = (typeof postStatuses)[number];

export const Post = defineEntity({
  name: 'Post',
  tableName: 'posts',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    projectId: () => p.manyToOne(Project).mapToPk().fieldName('project_id').deleteRule('cascade'),
    title: p.string().length(200),
    prompt: p.text(),
    status: p.enum(postStatuses).default('draft'),
    /** Format of the current image. */
    format: p.enum(allPostFormats).default('1:1'),
    /** Object-storage key of the current image (generated or rendered); null until the first generation. */
    imageKey: p.text().nullable(),
    /** The generated artwork that render composes from (render never composes on top of its own output). */
    artworkKey: p.text().nullable(),
    hasVideo: p.boolean().default(false),
    brandKitId: () => p.manyToOne(BrandKit).mapToPk().fieldName('brand_kit_id').nullable().deleteRule('set null'),
    scheduledAt: p.datetime().nullable(),
    publishedAt: p.datetime().nullable(),
    /** Why the post is `failed`, in words the user can act on. */
    failureReason: p.text().nullable(),
    ...createdAndUpdatedAt,
  },
  // Newest-first lists per workspace (optionally by status) and per project; see list-posts.ts.
  indexes: [
    {
      name: 'posts_workspace_created_index',
      expression: 'create index "posts_workspace_created_index" on "posts" ("workspace_id", "created_at" desc, "id" desc)',
    },
    {
      name: 'posts_workspace_status_created_index',
      expression: 'create index "posts_workspace_status_created_index" on "posts" ("workspace_id", "status", "created_at" desc, "id" desc)',
    },
    { name: 'posts_project_created_index', expression: 'create index "posts_project_created_index" on "posts" ("project_id", "created_at" desc, "id" desc)' },
    { name: 'posts_brand_kit_index', properties: ['brandKitId'] },
  ],
});
export type Post = InferEntity<typeof Post>;

/** The post a row belongs to (`post_id`), whose deletion deletes the row. */
export const belongsToPost = {
  postId: () => p.manyToOne(Post).mapToPk().fieldName('post_id').deleteRule('cascade'),
};
