import { Webhook } from '../src/data/entities/webhook.ts';
import { WorkspaceEvent } from '../src/data/entities/workspace-event.ts';
import type { ActivityDeps } from './index.ts';
import { attemptDeliveries, type DeliveryOutcome, type TargetAttempt } from './webhook-attempts.ts';

export type DeliveryAttempt = {
  /** One of DeliveryOutcome, or skipped: the webhook is inactive or deleted, or the event is gone (nothing logged). */
  outcome: DeliveryOutcome | 'skipped';
  statusCode: number | null;
  error: string | null;
};

export type AttemptWebhookDeliveryInput = { webhookId: string; eventId: string; deliveryId: string; attempt: number };

/**
 * One attempt of one event to one webhook, under a delivery id the caller gives: the retry ladder of deliveries
 * started before events were fanned out (workflows/deliver-webhook.ts) and redeliveries a customer asks for.
 */
export async function attemptWebhookDelivery(deps: ActivityDeps, input: AttemptWebhookDeliveryInput): Promise<DeliveryAttempt> {
  const em = deps.orm.em.fork();
  const webhook = await em.findOne(Webhook, input.webhookId);
  const event = await em.findOne(WorkspaceEvent, input.eventId);
  if (!webhook || !webhook.isActive || !event) return { outcome: 'skipped', statusCode: null, error: 'the webhook is inactive or deleted' };
  const [{ outcome, statusCode, error }] = (await attemptDeliveries(deps, em, event, [{ webhook, deliveryId: input.deliveryId }], input.attempt)) as [TargetAttempt];
  return { outcome, statusCode, error };
}
