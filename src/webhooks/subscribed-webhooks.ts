import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from '../data/entities/webhook.ts';
import type { WorkspaceEvent } from '../data/entities/workspace-event.ts';
import { subscribesTo } from './event-names.ts';

/**
 * The active webhooks of the event's workspace that take its type, oldest first; only those among `ids` when given
 * (the deliveries still on the ladder).
 */
export async function subscribedWebhooks(em: EntityManager, event: WorkspaceEvent, ids?: string[]): Promise<Webhook[]> {
  const active = await em.find(Webhook, { workspaceId: event.workspaceId, isActive: true, ...(ids ? { id: { $in: ids } } : {}) }, { orderBy: { createdAt: 'asc' } });
  return active.filter((webhook) => subscribesTo(webhook.events, event.type));
}
