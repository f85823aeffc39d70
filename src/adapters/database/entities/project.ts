import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAndUpdatedAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

const projectStatuses = ['active', 'archived'] as const;
export type ProjectStatus = (typeof projectStatuses)[number];

export const Project = defineEntity({
  name: 'Project',
  tableName: 'projects',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    name: p.string().length(100),
    description: p.text().nullable(),
    icon: p.string().length(32).nullable(),
    color: p.string().length(7).nullable(),
    status: p.enum(projectStatuses).default('active'),
    /** Object-storage key of the cover image; the URL is signed on every read. */
    coverKey: p.text().nullable(),
    ...createdAndUpdatedAt,
  },
  indexes: [{ properties: ['workspaceId', 'status', 'createdAt'] }],
});
export type Project = InferEntity<typeof Project>;
