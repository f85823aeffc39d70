import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventType, PostEventDetails, WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';
import type { Post } from '../../adapters/database/entities/post.ts';
import { recordEvent } from './record-event.ts';

/** Records a post event with a snapshot of the post as it is now (after the change being reported). */
export function recordPostEvent(em: EntityManager, post: Post, event: { type: EventType; sourceId: string; reason?: string }): Promise<WorkspaceEvent> {
  const details: PostEventDetails = {
    title: post.title,
    status: post.status,
    publishedAt: post.publishedAt?.toISOString() ?? null,
    imageKey: post.imageKey ?? null,
    ...(event.reason ? { reason: event.reason } : {}),
  };
  return recordEvent(em, { workspaceId: post.workspaceId, type: event.type, postId: post.id, sourceId: event.sourceId, details });
}
