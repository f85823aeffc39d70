import type { DeliveryOutcome } from './deliver-event.ts';

// What starting redeliverWebhook takes and answers: importing nothing of ours but another contract.

/** One attempt under a delivery id the caller gives (the `attemptWebhookDelivery` activity, `redeliverWebhook`'s input). */
export type RedeliverWebhookInput = { webhookId: string; eventId: string; deliveryId: string; attempt: number };
export type RedeliveryResult = {
  /** One of DeliveryOutcome, or skipped: the webhook is inactive or deleted, or the event is gone (nothing logged). */
  outcome: DeliveryOutcome | 'skipped';
  statusCode: number | null;
  error: string | null;
};
