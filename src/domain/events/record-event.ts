import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkspaceEvent, type EventType } from '../../data/entities/workspace-event.ts';

/** Records an event for webhooks in the caller's transaction: it exists exactly when the change it reports does. */
export function recordEvent(
  em: EntityManager,
  event: { workspaceId: string; type: EventType; postId: string; details?: Record<string, unknown> },
): WorkspaceEvent {
  return em.create(WorkspaceEvent, { ...event, details: event.details ?? {} });
}
