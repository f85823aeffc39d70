import type { Webhook } from '../../data/entities/webhook.ts';
import type { Schemas } from '../schemas.ts';

/** Never the secret. */
export function presentWebhook(webhook: Webhook): Schemas['Webhook'] {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    isActive: webhook.isActive,
    lastTriggeredAt: webhook.lastTriggeredAt?.toISOString() ?? null,
    createdAt: webhook.createdAt.toISOString(),
  };
}
