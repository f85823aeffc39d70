import { defineQuery, defineSignal } from '@temporalio/workflow';

// What starting and asking deliverEvent takes and answers: imported by its callers and by the workflow, and
// importing nothing of ours.

/** The webhooks whose delivery failed and waits for its next rung of the ladder (the Temporal UI's Queries tab). */
export const retryingWebhooksQuery = defineQuery<string[]>('retryingWebhooks');

/**
 * The workspace moved to a plan without webhooks (sent by applyWorkspacePlan): the deliveries waiting on the ladder
 * go now instead of at their next rung, so the round reads the plan at once, logs why nothing was sent, and ends.
 */
export const planChangedSignal = defineSignal('planChanged');

export type DeliverEventInput = {
  eventId: string;
  /**
   * The waits between attempts of one delivery, in seconds (WEBHOOK_RETRY_WAITS_SECONDS when the delivery started):
   * the first attempt is immediate, then one more after each wait.
   */
  retryWaitsSeconds: readonly number[];
  /**
   * How long one request may take, in seconds (WEBHOOK_TIMEOUT_SECONDS when the delivery started): a round's
   * heartbeat timeout follows from it. Absent in runs started before it was passed.
   */
  requestTimeoutSeconds?: number;
};

/** What one attempt of an event to a webhook came to, told from the receiver's answer and written to the delivery log. */
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

export type WebhookDeliveryResult = {
  webhookId: string;
  /** Absent when the webhook stopped taking the event before its first attempt. */
  deliveryId?: string;
  /** `exhausted`: still failing after the last rung; `skipped`: deactivated, deleted or unsubscribed meanwhile. */
  outcome: DeliveryOutcome | 'exhausted' | 'skipped';
  attempts: number;
};
export type EventDeliveryResult = { webhooks: WebhookDeliveryResult[] };

/**
 * The workflow's type, for starting it by name: its starter (src/domain/events/hand-over-event.ts) is imported by the
 * publish activity, whose types the workflows import, so importing the workflow itself there would close a loop.
 */
export const deliverEventType = 'deliverEvent';
export type DeliverEvent = (input: DeliverEventInput) => Promise<EventDeliveryResult>;
