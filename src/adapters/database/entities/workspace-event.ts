import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { newId } from '../new-id.ts';
import { Workspace } from './workspace.ts';

export const eventTypes = ['post.published', 'post.failed'] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * Something that happened in a workspace that webhooks tell customers about. Written in the same transaction as
 * the change it reports, so no event is lost; webhook delivery reads from here.
 */
export const WorkspaceEvent = defineEntity({
  name: 'WorkspaceEvent',
  tableName: 'events',
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => newId()),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').deleteRule('cascade'),
    type: p.enum(eventTypes),
    /** The post the event is about (no foreign key: the event outlives a deleted post). */
    postId: p.uuid().nullable(),
    /** Event-specific details, e.g. `{ reason }` for post.failed. */
    details: p.json<Record<string, unknown>>(),
    /** What produced the event (a generation, a publication); unique, so a retried activity records it once. */
    sourceId: p.string().length(100).unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type WorkspaceEvent = InferEntity<typeof WorkspaceEvent>;
