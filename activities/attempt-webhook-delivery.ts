import { Webhook } from '../src/adapters/database/entities/webhook.ts';
import type { Deps } from '../src/domain/deps.ts';
import { eventToDeliver } from '../src/domain/webhooks/event-to-deliver.ts';
import type { TargetAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import type { RedeliverWebhookInput, RedeliveryResult } from '../workflows/contracts/redeliver-webhook.ts';
import { attemptDeliveries } from './webhook-attempts.ts';

/**
 * One attempt of one event to one webhook, under a delivery id the caller gives: a redelivery a customer asks for
 * (workflows/redeliver-webhook.ts).
 */
export async function attemptWebhookDelivery(deps: Deps, input: RedeliverWebhookInput): Promise<RedeliveryResult> {
  const em = deps.orm.em.fork();
  const webhook = await em.findOne(Webhook, input.webhookId);
  const found = await eventToDeliver(em, input.eventId);
  if (!webhook || !webhook.isActive || !found) return { outcome: 'skipped', statusCode: null, error: 'the webhook is inactive or deleted' };
  const [{ outcome, statusCode, error }] = (await attemptDeliveries(deps, em, found, [{ webhook, deliveryId: input.deliveryId }], input.attempt)) as [
    TargetAttempt,
  ];
  return { outcome, statusCode, error };
}
