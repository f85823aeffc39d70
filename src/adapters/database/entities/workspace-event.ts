import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

export const eventTypes = ['post.published', 'post.failed', 'connection.expired'] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * Something that happened in a workspace that webhooks tell customers about. Written in the same transaction as
 * the change it reports, so no event is lost; webhook delivery reads from here.
 */
export const WorkspaceEvent = defineEntity({
  name: 'WorkspaceEvent',
  tableName: 'events',
  properties: {
    ...primaryKey,
    ...belongsToWorkspace,
    type: p.enum(eventTypes),
    /** The post the event is about (no foreign key: the event outlives a deleted post). */
    postId: p.uuid().nullable(),
    /** Event-specific details, e.g. `{ reason }` for post.failed. */
    details: p.json<Record<string, unknown>>(),
    /** What produced the event (a generation, a publication); unique, so a retried activity records it once. */
    sourceId: p.string().length(100).unique(),
    ...createdAt,
  },
  indexes: [{ properties: ['workspaceId', 'createdAt'] }],
});
export type WorkspaceEvent = InferEntity<typeof WorkspaceEvent>;

/** What a post event carries about its post, frozen when the event happens, so every delivery sends the same. */
export type PostEventDetails = {
  title: string;
  status: string;
  publishedAt: string | null;
  imageKey: string | null;
  reason?: string;
};

/** What `connection.expired` tells about the connection (recorded by markNeedsReauth), frozen when it happened. */
export type ConnectionEventDetails = { connectionId: string; platform: string; accountName: string; reason: string };
