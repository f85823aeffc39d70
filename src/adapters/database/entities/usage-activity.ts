import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { Post } from './post.ts';
import { belongsToWorkspace } from './workspace.ts';

const usageTypes = ['PostGeneration', 'PostRender', 'VideoGeneration', 'PostPublish', 'SocialPublish', 'ScheduledGeneration'] as const;
export type UsageType = (typeof usageTypes)[number];

/** What the workspace used, one row per billable action; kept when the post is deleted. */
export const UsageActivity = defineEntity({
  name: 'UsageActivity',
  tableName: 'usage_activity',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    type: p.enum(usageTypes),
    description: p.text(),
    postId: () => p.manyToOne(Post).mapToPk().fieldName('post_id').nullable().deleteRule('set null'),
    ...createdAt,
  },
  indexes: [
    {
      name: 'usage_activity_workspace_created_index',
      expression: 'create index "usage_activity_workspace_created_index" on "usage_activity" ("workspace_id", "created_at" desc, "id" desc)',
    },
    { name: 'usage_activity_post_index', properties: ['postId'] },
  ],
});
export type UsageActivity = InferEntity<typeof UsageActivity>;
