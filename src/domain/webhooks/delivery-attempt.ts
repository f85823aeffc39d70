import type { Webhook } from '../../data/entities/webhook.ts';
import { isSuccessStatus, type WebhookPostResult } from '../../webhooks/post-webhook.ts';

// What one attempt of an event to a webhook came to: told from the receiver's answer, written to the delivery log,
// and what the delivery workflows act on (retry ladder, results).

export type DeliveryOutcome =
  /** A 2xx answer. */
  | 'delivered'
  /** Anything else that may work later: tried again on the retry ladder. */
  | 'failed'
  /** A 410 Gone: the webhook is now inactive. */
  | 'gone'
  /** The stored URL can never work (not https, not a URL): logged once, never retried. */
  | 'unusable'
  /** The workspace is no longer on a plan with webhooks: logged, never retried. */
  | 'not-on-plan';

export type DeliveryTarget = { webhook: Webhook; deliveryId: string };
export type TargetAttempt = { webhookId: string; deliveryId: string; outcome: DeliveryOutcome; statusCode: number | null; error: string | null };

/** One attempt under a delivery id the caller gives (the `attemptWebhookDelivery` activity, `redeliverWebhook`'s input). */
export type DeliveryAttemptInput = { webhookId: string; eventId: string; deliveryId: string; attempt: number };
export type DeliveryAttempt = {
  /** One of DeliveryOutcome, or skipped: the webhook is inactive or deleted, or the event is gone (nothing logged). */
  outcome: DeliveryOutcome | 'skipped';
  statusCode: number | null;
  error: string | null;
};

export function outcomeOf(response: Pick<WebhookPostResult, 'statusCode' | 'permanent'>): DeliveryOutcome {
  if (isSuccessStatus(response.statusCode)) return 'delivered';
  if (response.statusCode === 410) return 'gone';
  return response.permanent ? 'unusable' : 'failed';
}
