import { Webhook } from '../src/data/entities/webhook.ts';
import { WorkspaceEvent } from '../src/data/entities/workspace-event.ts';
import type { ActivityDeps } from './index.ts';
import type { DeliveryAttempt, DeliveryAttemptInput, TargetAttempt } from '../src/domain/webhooks/delivery-attempt.ts';
import { attemptDeliveries } from './webhook-attempts.ts';

/**
 * One attempt of one event to one webhook, under a delivery id the caller gives: the retry ladder of deliveries
 * started before events were fanned out (workflows/deliver-webhook.ts) and redeliveries a customer asks for.
 */
export async function attemptWebhookDelivery(deps: ActivityDeps, input: DeliveryAttemptInput): Promise<DeliveryAttempt> {
  const em = deps.orm.em.fork();
  const webhook = await em.findOne(Webhook, input.webhookId);
  const event = await em.findOne(WorkspaceEvent, input.eventId);
  if (!webhook || !webhook.isActive || !event) return { outcome: 'skipped', statusCode: null, error: 'the webhook is inactive or deleted' };
  const [{ outcome, statusCode, error }] = (await attemptDeliveries(deps, em, event, [{ webhook, deliveryId: input.deliveryId }], input.attempt)) as [TargetAttempt];
  return { outcome, statusCode, error };
}
