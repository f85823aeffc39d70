import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from '../database/entities/webhook.ts';
import type { EventType, WorkspaceEvent } from '../database/entities/workspace-event.ts';
import { subscribesTo } from './event-names.ts';

/**
 * The active webhooks of the event's workspace that take its type, oldest first; only those among `ids` when given
 * (the deliveries still on the ladder).
 */
export async function subscribedWebhooks(em: EntityManager, event: WorkspaceEvent, ids?: string[]): Promise<Webhook[]> {
  const active = await em.find(
    Webhook,
    { workspaceId: event.workspaceId, isActive: true, ...(ids ? { id: { $in: ids } } : {}) },
    { orderBy: { createdAt: 'asc' } },
  );
  return active.filter((webhook) => subscribesTo(webhook.events, event.type));
}

/**
 * The type and workspace of the event when an active webhook of its workspace takes it, in one light read (no
 * webhook is loaded: this runs for every event, and most workspaces have no webhooks); null when none does or the
 * event is gone.
 */
export async function typeIfSubscribed(em: EntityManager, eventId: string): Promise<{ type: EventType; workspaceId: string } | null> {
  const rows = await em.execute<Array<{ type: EventType; workspace_id: string; events: string | null }>>(
    'select e.type, e.workspace_id, w.events from events e left join webhooks w on w.workspace_id = e.workspace_id and w.is_active where e.id = ?',
    [eventId],
  );
  if (!rows.some(({ type, events }) => events !== null && subscribesTo(events, type))) return null;
  return { type: rows[0]!.type, workspaceId: rows[0]!.workspace_id };
}

/**
 * Whether an active webhook of the workspace takes events of `type`, in one light read: asked in the transaction
 * that records an event, so that an event no webhook takes (most workspaces have none) is never handed over.
 */
export async function anyWebhookTakes(em: EntityManager, workspaceId: string, type: EventType): Promise<boolean> {
  const rows = await em.execute<Array<{ events: string }>>('select events from webhooks where workspace_id = ? and is_active', [workspaceId]);
  return rows.some(({ events }) => subscribesTo(events, type));
}
