import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkspaceEvent, type EventType } from '../../adapters/database/entities/workspace-event.ts';

/**
 * Records an event for webhooks in the caller's transaction, so it exists exactly when the change it reports
 * does. Keyed by what produced it: a retried activity gets the event it already recorded.
 */
export async function recordEvent(
  em: EntityManager,
  event: { workspaceId: string; type: EventType; postId: string | null; sourceId: string; details?: Record<string, unknown> },
): Promise<WorkspaceEvent> {
  const existing = await em.findOne(WorkspaceEvent, { sourceId: event.sourceId });
  return existing ?? em.create(WorkspaceEvent, { ...event, details: event.details ?? {} });
}
