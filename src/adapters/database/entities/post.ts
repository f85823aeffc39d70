import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { postFormats, type PostFormat } from '../../artwork/post-formats.ts';
import { newId } from '../new-id.ts';
import { BrandKit } from './brand-kit.ts';
import { Project } from './project.ts';
import { Workspace } from './workspace.ts';

export const postStatuses = ['draft', 'scheduled', 'published', 'failed'] as const;
export type PostStatus = (typeof postStatuses)[number];
const formats = Object.keys(postFormats) as PostFormat[];

export const Post = defineEntity({
  name: 'Post',
  tableName: 'posts',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').deleteRule('cascade'),
    projectId: () => p.manyToOne(Project).mapToPk().fieldName('project_id').deleteRule('cascade'),
    title: p.string().length(200),
    prompt: p.text(),
    status: p.enum(postStatuses).default('draft'),
    /** Format of the current image. */
    format: p.enum(formats).default('1:1'),
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
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
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
