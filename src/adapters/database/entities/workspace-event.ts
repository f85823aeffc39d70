import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import { createdAt, primaryKey } from './common-properties.ts';
import { belongsToWorkspace } from './workspace.ts';

export const eventTypes = ['post.published', 'post.failed', 'connection.expired'] as const;
export type EventType = (typeof eventTypes)[number];

/**
 * Something that happened in a workspace that webhooks tell customers about. Written in the same transaction as
 * the change it reports, so no event is lost; webhook delivery reads from here. Until `handedOverAt` is set the row
 * is also the event's outbox entry: whoever recorded it hands it to its delivery workflow, and the event sweep hands
 * over whatever they did not (see src/domain/events/hand-over-event.ts).
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
    /** When its delivery workflow was started, or found that no webhook takes it; null while it waits for that. */
    handedOverAt: p.datetime().nullable(),
  },
  indexes: [
    { properties: ['workspaceId', 'createdAt'] },
    // What the event sweep reads every minute: the few events still waiting to be handed over, in id (time) order.
    {
      name: 'events_awaiting_hand_over_index',
      expression: 'create index "events_awaiting_hand_over_index" on "events" ("id") where "handed_over_at" is null',
    },
  ],
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
