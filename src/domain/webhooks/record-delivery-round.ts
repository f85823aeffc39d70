import type { EntityManager } from '@mikro-orm/postgresql';
import { Webhook } from '../../data/entities/webhook.ts';
import { WebhookDelivery } from '../../data/entities/webhook-delivery.ts';
import type { WorkspaceEvent } from '../../data/entities/workspace-event.ts';
import { newId } from '../../data/new-id.ts';
import { isSuccessStatus, unusableUrlReason, type WebhookPostResult } from '../../webhooks/post-webhook.ts';
import { outcomeOf, type DeliveryTarget } from './delivery-attempt.ts';

export type DeliveryAnswer = { target: DeliveryTarget; attemptedAt: Date; response: Pick<WebhookPostResult, 'statusCode' | 'durationMs' | 'error'> };

/**
 * What the log already holds for this attempt of these deliveries (a retried activity), by delivery id. The log
 * keeps the answer, not the outcome; whether the URL could ever work is told again from the URL itself.
 */
export async function loggedDeliveryAnswers(em: EntityManager, targets: readonly DeliveryTarget[], attempt: number) {
  const urls = new Map(targets.map((target) => [target.deliveryId, target.webhook.url]));
  const rows = await em.find(WebhookDelivery, { deliveryId: { $in: [...urls.keys()] }, attempt });
  return new Map(
    rows.map((row) => {
      const outcome = outcomeOf({ statusCode: row.statusCode ?? null, permanent: unusableUrlReason(urls.get(row.deliveryId)!) !== null });
      return [row.deliveryId, { statusCode: row.statusCode ?? null, error: row.error ?? null, outcome }] as const;
    }),
  );
}

/**
 * Logs a round of attempts (each once, however often the activity is retried), touches `lastTriggeredAt` and
 * deactivates the webhooks that answered 410, in one transaction of its own: three statements whatever the number
 * of webhooks.
 */
export async function recordDeliveryRound(em: EntityManager, event: WorkspaceEvent, attempt: number, answers: readonly DeliveryAnswer[]): Promise<void> {
  if (answers.length === 0) return;
  const gone = answers.filter(({ response }) => response.statusCode === 410).map(({ target }) => target.webhook.id);
  await em.transactional(async (tx) => {
    const rows = answers.map(({ target, attemptedAt, response }) => ({
      id: newId(),
      webhookId: target.webhook.id,
      eventId: event.id,
      eventType: event.type,
      deliveryId: target.deliveryId,
      attempt,
      attemptedAt,
      statusCode: response.statusCode,
      durationMs: Math.round(response.durationMs),
      succeeded: isSuccessStatus(response.statusCode),
      error: response.error,
    }));
    await tx.createQueryBuilder(WebhookDelivery).insert(rows).onConflict(['deliveryId', 'attempt']).ignore().execute();
    // One statement for the round: every webhook of it gets the round's latest attempt time.
    const attemptedAt = new Date(Math.max(...answers.map((answer) => answer.attemptedAt.getTime())));
    await tx.nativeUpdate(Webhook, { id: { $in: answers.map(({ target }) => target.webhook.id) } }, { lastTriggeredAt: attemptedAt });
    if (gone.length > 0) await tx.nativeUpdate(Webhook, { id: { $in: gone } }, { isActive: false });
  });
}
